/**
 * Driving: a caller holds an errand active while it works in its context (never parked while
 * driven, C2), then lets go; and closing an entry's errand. A chat on the person's own browser is
 * driven in the main context.
 */
import { Effect } from 'effect'
import type { Admission } from './admission.ts'
import type { SupervisorCore } from './core.ts'
import type { Actors } from './actors.ts'
import type { Binding } from '@errands/sessions'
import { isIsolated, type Entry } from './views.ts'
import { waitUntil } from './waiting.ts'

/** The supervisor's driving: see {@link makeDriving}. */
export type Driving = ReturnType<typeof makeDriving>

/**
 * `drive` / `undrive` pairs and `closeEntry` for one supervisor.
 *
 * @example
 * const driving = makeDriving(core, actors, admission)
 * Effect.acquireUseRelease(driving.drive('task-1'), work, () => driving.undrive('task-1'))
 */
export const makeDriving = (core: SupervisorCore, actors: Actors, admission: Admission) => {
  const { runtime, entries, now, journal } = core
  const { entryOf, send } = actors
  const { ensureActive } = admission

  const mainBinding = (conversationId: string): Binding => ({
    conversationId,
    contextId: runtime.mainContext,
    isolated: false,
  })

  const drive = (conversationId: string) =>
    Effect.gen(function* () {
      const entry = yield* entryOf(conversationId)
      if (!isIsolated(entry)) return mainBinding(conversationId)
      journal({ t: now(), op: 'drive', conversationId })
      return yield* ensureActive(entry, true).pipe(Effect.tapError(() => Effect.sync(() => void detach(entry))))
    })

  const detach = (entry: Entry) => {
    const actor = entry.driving.pop()
    if (actor !== undefined && actor.getSnapshot().status === 'active')
      actor.send({ type: 'driver.detached', at: now() })
  }

  const undrive = (conversationId: string) =>
    Effect.sync(() => {
      const entry = entries.get(conversationId)
      if (entry === undefined || entry.driving.length === 0) return
      journal({ t: now(), op: 'undrive', conversationId })
      detach(entry)
    })

  const closeEntry = (entry: Entry) =>
    Effect.gen(function* () {
      const actor = entry.actor
      if (actor === undefined) return
      send(entry, { type: 'errand.close', at: now() })
      yield* waitUntil(actor, (s) => s.status !== 'active')
    })

  return { mainBinding, drive, undrive, closeEntry }
}
