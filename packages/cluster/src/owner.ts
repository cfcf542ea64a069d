/**
 * The errand entity on the runner that owns it: the errand lives in this runner's supervisor
 * exactly as long as the entity lives here (issue #16, K1). When the entity arrives (first call
 * after the shard came here) the supervisor adopts what a peer sealed; when the entity leaves
 * (its shard moves to a runner that joined, or this host shuts down) the errand is parked and
 * sealed before the shard's lock is let go — so the next owner resumes it with its cookies,
 * storage and tabs, and no errand is ever open on two runners at once.
 *
 * Cap, LRU parking, the idle sweep and healing stay this runner's supervisor's, unchanged: the
 * entity only calls the same `Browsing` verbs a single host runs, and adopts, resumes, views and
 * parks through the same session service (`Sessions`, ADR 0027) every face of the host uses.
 *
 * @example
 * const layer = errandOwnerLayer // needs Sharding and the host's services
 */
import { Entity } from '@effect/cluster'
import { DevTools } from '@errands/devtools'
import {
  Browsing,
  conversationIdOf,
  HostHealth,
  localWheel,
  NotAtTheWheel,
  PageError,
  parseSessionKey,
  sessionTarget,
  toolRunner,
} from '@errands/host'
import { Lending } from '@errands/lending'
import { Sessions } from '@errands/sessions'
import { words } from '@errands/supervisor'
import { Duration, Effect, Option } from 'effect'
import { Errand } from './ErrandEntity.ts'
import { ownerHandlers } from './forward.ts'
import { Owners } from './owners.ts'

/** States in which an errand holds (or is getting) a context here. */
const open = (state: string) => state !== 'parked' && state !== 'closed' && state !== 'main'

/**
 * The entity's handlers as a layer: registers `Errand` with this runner's sharding.
 *
 * @example
 * Layer.provide(errandOwnerLayer, shardingLayer)
 */
export const errandOwnerLayer = Errand.toLayer(
  Effect.gen(function* () {
    const local = yield* Browsing
    const devtools = yield* DevTools
    // MCP tool calls sent here run on this host's page, with refs of this host's snapshots.
    const sessions = yield* Sessions
    // An acting tool is refused here while a person drives (P1): the asking host cannot know (K4).
    const runTool = toolRunner(local, sessions.personDriving)
    const wheel = yield* localWheel
    const health = yield* HostHealth
    const lending = yield* Lending
    const owners = yield* Owners
    const address = yield* Entity.CurrentAddress
    const runner = yield* Entity.CurrentRunnerAddress
    // Ids come from our own forwarders, which parsed the key already; anything else is a bug.
    const key = yield* Effect.orDie(parseSessionKey(address.entityId))
    const conversationId = conversationIdOf(key)

    // Arrival: whatever a peer parked or sealed for this key becomes resumable here.
    const adopted = yield* sessions
      .adopt(conversationId)
      .pipe(
        Effect.catchAll((e) =>
          Effect.as(
            health.note('warning', `A session that moved here could not be read from the sealed store (${e.reason}).`),
            'unreadable' as const,
          ),
        ),
      )
    // Its runner died with it open (K3, H2): reopen it now from its last sealed snapshot, whoever
    // came first (the healer's `Heal` or an agent's call), and say so once. Not cut short by a
    // caller that stops waiting: a half-done resume would leave nobody to say it. An errand
    // killed before its first snapshot was sealed has nothing to come back from: its next use
    // starts it afresh, and its row goes (no healer asks again).
    const deadRunner = yield* owners.orphanedBy(key)
    if (deadRunner !== undefined && adopted === 'absent') {
      yield* owners.forgetOrphan(key)
      yield* health.note(
        'warning',
        `A session whose host ${deadRunner} left the cluster before its first snapshot was sealed starts afresh here.`,
      )
    } else if (deadRunner !== undefined) {
      yield* Effect.uninterruptible(
        sessions.resume(conversationId).pipe(
          Effect.zipRight(health.note('info', `${words.healed}: its host ${deadRunner} left the cluster.`)),
          Effect.catchAll((e) =>
            health.note(
              'warning',
              `A session whose host ${deadRunner} left the cluster could not be reopened here (${e.message})`,
            ),
          ),
        ),
      )
    }
    // Leaving: park and seal before the shard is let go (the cluster waits for this).
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        const view = yield* Effect.option(sessions.view(conversationId))
        if (Option.isSome(view) && open(view.value.state)) yield* Effect.ignore(sessions.park(conversationId))
      }),
    )

    return {
      ...ownerHandlers(local, key),
      // Brought up here like every verb (opened, resumed or healed), then a URL on this host's port.
      devtools: ({ payload }) =>
        Effect.zipRight(local.tabs(sessionTarget(key, payload.upstreamProxy)), devtools.endpoint(conversationId)),
      // The boundary's verb on the owner (L7): the session's proxy is set where its context is.
      setUpstreamProxy: ({ payload }) => sessions.setUpstreamProxy(conversationId, payload.proxy),
      mcpTool: ({ payload }) => runTool(key, payload.tool, payload.args),
      // The arrival above did the healing; the healer's message only makes the entity arrive.
      Heal: () =>
        Effect.map(Effect.option(sessions.view(conversationId)), (view) => ({
          lifecycle: Option.match(view, { onNone: () => 'none', onSome: (v) => v.state }),
        })),
      // The errand is here: the card reads its lent sites, an Allow lends into it (issue #24).
      Ask: ({ payload }) => lending.ask(conversationId, payload.site),
      Allow: ({ payload }) => lending.allow(conversationId, payload.site, payload.signIn),
      // The person's wheel (K4): taken, handed back and driven here, where the page is.
      TakeWheel: () => sessions.takeWheel(conversationId),
      HandBack: ({ payload }) => sessions.handBack(conversationId, payload.note),
      Driving: () => Effect.sync(() => sessions.personDriving(conversationId)),
      // The person in the loop (K4): this errand's machine waits, whichever host the agent asked.
      View: () => sessions.view(conversationId),
      Help: ({ payload }) => sessions.askForHelp(conversationId, payload.reason, payload.timeoutMs),
      Asked: ({ payload }) => sessions.asked(conversationId, payload),
      Answered: ({ payload }) => sessions.answered(conversationId, payload.id, payload.outcome),
      WheelInput: ({ payload }) =>
        Effect.catchAll(wheel.input!(conversationId, payload.events), (e) =>
          Effect.fail(
            e instanceof NotAtTheWheel
              ? e
              : new PageError({
                  reason: 'unavailable',
                  message: 'The input could not reach the errand’s page; try again.',
                }),
          ),
        ),
      TakeBack: ({ payload }) =>
        // Lending's own take-back, this runner's only: the asking host reaches the others (placement.ts).
        (payload.site === null ? lending.signOutEverywhere : lending.revoke(payload.site)).pipe(
          Effect.map((report) => ({ runner: `${runner.host}:${runner.port}`, report, failed: null })),
          Effect.catchAll((e) =>
            Effect.succeed({ runner: `${runner.host}:${runner.port}`, report: null, failed: e.message }),
          ),
        ),
    }
  }),
  // Idleness is the supervisor's (C4): an entity that went idle and away would park its errand
  // early, so it stays while its shard stays. Calls of one key run side by side like on a single
  // host (a frame poll beside a navigation); the host's per-key locks order what must be ordered.
  { maxIdleTime: Duration.infinity, concurrency: 'unbounded' },
)
