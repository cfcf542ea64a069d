/**
 * Admission: bringing an errand to `active` — opening, resuming or healing it — only while the
 * cap on open errands holds, parking the least recently used idle errand to make room (C2, H2).
 */
import { Effect, Runtime as EffectRuntime } from 'effect'
import type { SupervisorCore } from './core.ts'
import { AllBusy, ErrandUnavailable, type SupervisorError } from '@errands/sessions'
import type { Actors } from './actors.ts'
import type { Binding } from '@errands/sessions'
import { holdsContext, isEvictable, isFrozen, type Entry, type ErrandActor } from './views.ts'
import { notBusy, waitUntil } from './waiting.ts'

/** The supervisor's admission: see {@link makeAdmission}. */
export type Admission = ReturnType<typeof makeAdmission>

/**
 * The admission of one supervisor: `admit` (make room, then act), `healWatched` (reopen a watched
 * crashed errand at once) and `ensureActive` (what `open`, `drive` and `resume` wait on).
 *
 * @example
 * const admission = makeAdmission(core, actors)
 * const binding = yield* admission.ensureActive(entry, false)
 */
export const makeAdmission = (core: SupervisorCore, actors: Actors) => {
  const { effectRuntime, settings, entries, admission, pendingHeals, now } = core
  const { spawn } = actors

  /** Another process holds this errand (a cluster's other runner): nothing opens here. */
  const heldElsewhere = (entry: Entry) =>
    new ErrandUnavailable({
      reason: 'held-elsewhere',
      conversationId: entry.conversation.id,
      message:
        "This conversation's browser is held by another host of the cluster, which answers for it; ask again " +
        '(any host reaches it) in a few seconds.',
    })

  /**
   * Makes room for one more context (parking the LRU idle errand, C2) and runs `trigger` while holding the slot.
   * Every open, resume and heal passes here, so here is where a process that may not hold the errand
   * (`options.holds`: another cluster runner owns it) refuses before anything opens.
   */
  const admit = (entry: Entry, trigger: () => void): Effect.Effect<void, AllBusy | ErrandUnavailable> =>
    admission.withPermits(1)(
      Effect.gen(function* () {
        if (core.options.holds?.(entry.conversation.id) === false) return yield* heldElsewhere(entry)
        const holding = [...entries.values()].filter((e) => e !== entry && holdsContext(e)).length
        if (holding >= settings.maxErrands) {
          const victim = [...entries.values()]
            .filter((e) => e !== entry && isEvictable(e))
            // A frozen errand is sealed before an active idle one: it was set aside already (C2, C4).
            .sort(
              (a, b) =>
                Number(isFrozen(b)) - Number(isFrozen(a)) ||
                a.actor!.getSnapshot().context.lastUsedAt - b.actor!.getSnapshot().context.lastUsedAt ||
                (a.conversation.id < b.conversation.id ? -1 : 1),
            )[0]
          if (victim === undefined) return yield* AllBusy.of(settings.maxErrands)
          victim.actor!.send({ type: 'errand.evict', cause: 'capacity', at: now() })
          yield* waitUntil(victim.actor!, notBusy)
          if (holdsContext(victim)) return yield* AllBusy.of(settings.maxErrands)
        }
        trigger()
      }),
    )

  /**
   * A watched errand that crashed is reopened at once (H2) — through admission, so the cap
   * holds; when every slot is busy it waits for its next use. Runs after the current
   * transition (never inside the actor's own notification).
   */
  const healWatched = (entry: Entry, actor: ErrandActor) => {
    if (core.shuttingDown) return
    const fiber = EffectRuntime.runFork(effectRuntime)(
      Effect.gen(function* () {
        yield* Effect.yieldNow()
        const s = actor.getSnapshot()
        if (entry.actor !== actor || !s.matches({ healing: 'waiting' }) || s.context.watchers === 0) return
        yield* Effect.ignore(admit(entry, () => actor.send({ type: 'errand.used', at: now() })))
        yield* waitUntil(actor, notBusy)
      }),
    )
    pendingHeals.add(fiber)
    fiber.addObserver(() => pendingHeals.delete(fiber))
  }

  const unavailable = (entry: Entry, reason: ErrandUnavailable['reason']) => {
    const e = entry.actor?.getSnapshot().context.lastError
    const done = reason === 'open-failed' ? 'opened' : reason === 'resume-failed' ? 'resumed' : 'reopened'
    return new ErrandUnavailable({
      reason,
      conversationId: entry.conversation.id,
      message: `This conversation's browser could not be ${done}${e ? ` (${e.reason})` : ''}; try again in a moment.`,
    })
  }

  /**
   * Brings the entry's errand to `active` (seed, resume or heal through admission) and attaches a driver when asked.
   */
  const ensureActive = (entry: Entry, drive: boolean): Effect.Effect<Binding, SupervisorError> =>
    Effect.gen(function* () {
      let spawned = false
      let resumed = false
      let healed = false
      let thawed = false
      const attach = (actor: ErrandActor) => {
        if (!drive) return
        actor.send({ type: 'driver.attached', at: now() })
        entry.driving.push(actor)
      }
      if (drive && entry.actor !== undefined && entry.actor.getSnapshot().status === 'active') attach(entry.actor)
      for (let step = 0; step < 16; step++) {
        if (core.shuttingDown)
          return yield* new ErrandUnavailable({
            reason: 'shutting-down',
            conversationId: entry.conversation.id,
            message: 'The browser is shutting down; try again after it restarts.',
          })
        const actor = entry.actor
        const snapshot = actor?.getSnapshot()
        if (actor === undefined || snapshot === undefined || snapshot.status === 'done') {
          // A resume whose sealed record was unreadable ends the errand: say so rather than
          // quietly handing back an empty one (the next use starts fresh).
          if (resumed) return yield* unavailable(entry, 'resume-failed')
          if (spawned) return yield* unavailable(entry, 'open-failed')
          yield* admit(entry, () => attach(spawn(entry)))
          spawned = true
        } else if (snapshot.matches('active')) {
          return { conversationId: entry.conversation.id, contextId: snapshot.context.contextId!, isolated: true }
        } else if (snapshot.hasTag('busy')) {
          yield* waitUntil(actor, notBusy)
        } else if (snapshot.matches('parked')) {
          if (resumed) return yield* unavailable(entry, 'resume-failed')
          yield* admit(entry, () => actor.send({ type: 'errand.used', at: now() }))
          resumed = true
        } else if (snapshot.matches('frozen')) {
          // Its context is kept, so it holds its slot already: thawed, not admitted (C4).
          if (thawed) return yield* unavailable(entry, 'resume-failed')
          actor.send({ type: 'errand.used', at: now() })
          thawed = true
        } else if (snapshot.matches({ healing: 'waiting' })) {
          if (healed) return yield* unavailable(entry, 'heal-failed')
          yield* admit(entry, () => actor.send({ type: 'errand.used', at: now() }))
          healed = true
        } else {
          // healing.cooling: it crashed again right after a heal. Rather than hold the caller
          // for the backoff, say when to come back (the backoff runs out on the clock).
          return yield* new ErrandUnavailable({
            reason: 'heal-failed',
            conversationId: entry.conversation.id,
            message:
              "This conversation's browser crashed again right after reopening; wait a few seconds and try again.",
          })
        }
      }
      return yield* unavailable(entry, 'open-failed')
    })

  return { admit, healWatched, ensureActive }
}
