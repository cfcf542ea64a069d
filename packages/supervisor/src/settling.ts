/**
 * Letting errands come to rest: the idle sweep (C4: freeze, then seal), `settle` (wait until nothing is opening,
 * parking, closing, healing or snapshotting) and `shutdown` (park every open errand, E5).
 */
import { Effect, Fiber } from 'effect'
import type { SupervisorCore } from './core.ts'
import type { Actors } from './actors.ts'
import { isEvictable, isFrozen } from './views.ts'
import { notBusy, quiet, waitUntil } from './waiting.ts'

/**
 * The sweep, settle and shutdown of one supervisor.
 *
 * @example
 * const { sweep } = makeSettling(core, actors)
 * yield* sweep // the conversation ids it parked
 */
export const makeSettling = (core: SupervisorCore, actors: Actors) => {
  const { settings, entries, pendingHeals, now, journal } = core
  const { send } = actors

  // Idle past idleMs, an open errand is frozen; idle past parkIdleMs, a frozen one is sealed (C4, docs/parking.md).
  // Not while its snapshot is due or being taken: freezing would drop it, and a heal or a read of
  // where it is would go by an older one (H1); the next sweep looks again.
  const sweep = Effect.gen(function* () {
    const t = now()
    const idle = [...entries.values()].filter((e) => {
      const s = e.actor?.getSnapshot()
      return (
        isEvictable(e, 'idle') &&
        (isFrozen(e) || s?.matches({ active: { snapshot: 'clean' } }) === true) &&
        t - s!.context.lastUsedAt >= (isFrozen(e) ? settings.parkIdleMs : settings.idleMs)
      )
    })
    for (const e of idle) e.actor!.send({ type: 'errand.evict', cause: 'idle', at: t })
    for (const e of idle) yield* waitUntil(e.actor!, notBusy)
    return idle.map((e) => e.conversation.id)
  })

  const settle = Effect.gen(function* () {
    for (let round = 0; round < 100; round++) {
      const pending = [...entries.values()].filter((e) => e.actor !== undefined && !quiet(e.actor.getSnapshot()))
      if (pending.length === 0 && pendingHeals.size === 0) return
      for (const fiber of [...pendingHeals]) yield* Fiber.await(fiber)
      for (const e of pending) yield* waitUntil(e.actor!, quiet)
    }
  })

  const shutdown = Effect.gen(function* () {
    if (core.shuttingDown) return
    journal({ t: now(), op: 'shutdown' })
    core.shuttingDown = true
    for (const entry of entries.values()) send(entry, { type: 'system.shutdown', at: now() })
    yield* settle
  })

  return { sweep, settle, shutdown }
}
