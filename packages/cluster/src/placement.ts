/**
 * Where errands are held, in cluster mode (issue #24; docs/adr/0053-data-only-verbs-cross-the-cluster.md): the
 * owners table says which host holds each open errand, and what a face sends to that host that is not a session
 * verb goes there as one typed RPC of the key's entity, its arguments and answer data:
 *
 * - an MCP tool call (`mcpTool`): the tool's name and arguments one way, the owner's result the other — its page
 *   refs are the owner's snapshots', so the call crosses, not the page;
 * - a DevTools URL (`devtools`), minted by the owner (A1): a client's WebSocket must reach the port of the host whose
 *   Chromium holds the context, and the token is that host's listener's. Minted by a host that does not own the
 *   errand, the URL would have that host open a second context for it beside the owner's;
 * - the person's permission card and Allow (`Ask`, `Allow`: lendRpcs.ts), the Allow carrying this host's
 *   main-context sign-in for the site — the browser the person pressed Allow in — to lend where the errand is;
 * - the take-backs on every runner (`TakeBack`, L5): each other live runner, asked through one of its errands'
 *   entities, cleans what it has open; a runner that holds no errand has nothing open to clean;
 * - health's cluster part: the runners and this runner's shards.
 *
 * The faces (DevTools' route, MCP, Person's card, Allow and take-backs, health) are the single host's code over
 * this service.
 *
 * @example
 * Layer.effect(Placement, clusterPlacement(settings))
 */
import { ShardId, Sharding } from '@effect/cluster'
import { SqlClient } from '@effect/sql'
import { DevToolsUnavailable } from '@errands/devtools'
import { Placement, type ClusterReport, type TakenElsewhere } from '@errands/host'
import { Lending, LendFailed, type LendingError, type TakeBackReport } from '@errands/lending'
import { Effect } from 'effect'
import type { ClusterSettings } from './config.ts'
import { Errand } from './ErrandEntity.ts'
import type { ErrandClient } from './forward.ts'
import { unreachable } from './forward.ts'
import { ownedHere } from './ownedHere.ts'
import { Owners, type OwnerBook } from './owners.ts'

/** `host:port` of this runner. @example selfAddress(settings) // '127.0.0.1:7787' */
export const selfAddress = (s: ClusterSettings): string => `${s.host}:${s.port}`

/** Rounds of asking: an errand that moved between the look-up and the call lands elsewhere once. */
const ROUNDS = 3

/**
 * What the asked host says when the owner's answer is a failure of its own: the DevTools
 * endpoint's error as it is, the supervisor's typed ones as they are, anything else in words.
 */
const asEndpointError = (e: { readonly _tag: string; readonly message?: string }) =>
  e._tag === 'DevToolsUnavailable' ||
  e._tag === 'AllBusy' ||
  e._tag === 'ErrandUnavailable' ||
  e._tag === 'InvalidRequest' ||
  e._tag === 'UnknownConversation'
    ? (e as DevToolsUnavailable)
    : new DevToolsUnavailable({
        reason: 'browser-unreachable',
        message:
          `The host that holds this session could not mint a DevTools URL ` +
          `(${e._tag}${e.message === undefined ? '' : `: ${e.message.slice(0, 200)}`}); try again in a few seconds.`,
      })

const LENDING_ERRORS = new Set(['LendRefused', 'LendFailed', 'SettingsError'])

/** The owner's lending error as it is; the cluster's own failures (runner moving, mailbox) in words. */
const asLendingError = (e: { readonly _tag: string }): LendingError =>
  LENDING_ERRORS.has(e._tag)
    ? (e as LendingError)
    : new LendFailed({
        reason: 'unavailable',
        message:
          `The host that holds this session could not be reached (${e._tag}); it may be moving to another ` +
          `host — nothing was lent, try again in a few seconds.`,
      })

/**
 * Every other live runner takes back what it has open (`site`, or every site for `null`): the cluster-wide verb.
 *
 * @example
 * const there = yield* takeBackElsewhere(owners, client)('shop.example')
 */
export const takeBackElsewhere =
  (owners: OwnerBook, client: ErrandClient, self: string) =>
  (site: string | null): Effect.Effect<TakenElsewhere, LendFailed> =>
    Effect.gen(function* () {
      // This runner's own errands are its lending's (the caller's): only the others are asked.
      const reached = new Set<string>([self])
      const errands: Array<TakeBackReport['errands'][number]> = []
      const dropped: Array<string> = []
      for (let round = 0; round < ROUNDS; round++) {
        const targets = [...(yield* owners.keyPerRunner)].filter(([runner]) => !reached.has(runner))
        if (targets.length === 0) break
        for (const [runner, key] of targets) {
          const answer = yield* Effect.either(client(key).TakeBack({ site }).pipe(Effect.timeout('30 seconds')))
          if (answer._tag === 'Left') {
            if (round === ROUNDS - 1) {
              return yield* new LendFailed({
                reason: 'unavailable',
                message:
                  `took it back here and from every set-aside errand, but the host ${runner} could not be ` +
                  `reached; try again in a few seconds`,
              })
            }
            continue
          }
          if (answer.right.failed !== null) {
            return yield* new LendFailed({
              reason: 'unavailable',
              message: `took it back here, but the host ${answer.right.runner} said: ${answer.right.failed}`,
            })
          }
          reached.add(answer.right.runner)
          const report = answer.right.report as TakeBackReport
          errands.push(...report.errands)
          dropped.push(...report.dropped)
        }
      }
      return { errands, dropped }
    })

/**
 * This host's placement: here for the keys whose shard it holds, at their owner for the others.
 *
 * @example
 * const placement = yield* clusterPlacement(settings)
 */
export const clusterPlacement = (s: ClusterSettings) =>
  Effect.gen(function* () {
    const sharding = yield* Sharding.Sharding
    const client: ErrandClient = yield* Errand.client
    const owners = yield* Owners
    const sql = yield* SqlClient.SqlClient
    const lending = yield* Lending
    const here = ownedHere(sharding)
    const self = selfAddress(s)
    const cluster: Effect.Effect<ClusterReport> = Effect.gen(function* () {
      const rows = yield* sql<{
        address: string
        healthy: boolean
      }>`SELECT address, healthy FROM cluster_runners ORDER BY address`.pipe(Effect.orElseSucceed(() => []))
      const live = yield* owners.liveRunners
      let mine = 0
      for (let i = 1; i <= s.shards; i++) if (sharding.hasShardId(ShardId.make('default', i))) mine++
      return {
        runner: self,
        runners: rows.map((r) => ({
          address: r.address,
          healthy: Boolean(r.healthy),
          alive: live.includes(r.address),
        })),
        shards: { total: s.shards, here: mine },
      }
    })
    return Placement.of({
      tool: (key, tool, args) =>
        here(key) ? undefined : Effect.mapError(client(key).mcpTool({ tool, args }), unreachable),
      devtools: (key) => (here(key) ? undefined : Effect.mapError(client(key).devtools({}), asEndpointError)),
      // The card and Allow of every session go to its entity, which the cluster delivers here when it is owned here.
      ask: (key, site) => Effect.mapError(client(key).Ask({ site }), asLendingError),
      allow: (key, site) =>
        Effect.flatMap(lending.mainSignIn(site), (signIn) =>
          Effect.mapError(client(key).Allow({ site, signIn }), asLendingError),
        ),
      heldElsewhere: owners.heldElsewhere,
      takeBack: takeBackElsewhere(owners, client, self),
      cluster,
    })
  })
