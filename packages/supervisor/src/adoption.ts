/**
 * Adoption: sealed records in the store come in as parked actors, resumable with their tabs (E5)
 * — at start-up, and later for one errand another process sharing the store parked (issue #16).
 * Unreadable records are dropped for that errand only, and health says so (S4).
 */
import type { StoreError } from '@errands/store'
import { Effect, Option } from 'effect'
import type { SupervisorCore } from './core.ts'
import { words } from './health.ts'
import type { Actors } from './actors.ts'

/**
 * `adoptRecord` for one errand, and `adoptAll`, which start-up runs once.
 *
 * @example
 * const { adoptAll } = makeAdoption(core, actors)
 * yield* adoptAll // parked errands from an earlier run are back
 */
export const makeAdoption = (core: SupervisorCore, actors: Actors) => {
  const { store, health, now } = core
  const { register, spawn } = actors

  /** A sealed record comes in as a parked actor; an unreadable one is dropped, said in health. */
  const adoptRecord = (errandId: string): Effect.Effect<boolean, StoreError> =>
    Effect.gen(function* () {
      const found = yield* Effect.either(store.get(errandId))
      if (found._tag === 'Left') {
        if (found.left._tag !== 'RecordUnreadable') return yield* found.left
        health.add({
          at: now(),
          level: 'warning',
          text: words.recordDropped(found.left.reason),
          conversationId: errandId,
        })
        yield* Effect.ignore(store.remove(errandId))
        return false
      }
      if (Option.isNone(found.right)) return false
      const record = found.right.value
      const entry = register({ id: record.conversationId, kind: record.kind, helper: record.reason === 'helper' })
      entry.ownBrowser = record.kind === 'chat'
      spawn(entry, { parkedAt: record.parkedAt, lentSites: record.lentSites })
      return true
    })

  const adoptAll = Effect.gen(function* () {
    // Parked errands from an earlier run come back as parked actors (E5); unreadable records are
    // dropped for that errand only, and health says so (S4).
    for (const problem of yield* store.problems()) {
      health.add({
        at: now(),
        level: 'warning',
        text: words.recordDropped(problem.reason),
        conversationId: problem.errandId,
      })
      yield* Effect.ignore(store.discard(problem.file))
    }
    for (const parked of yield* store.list()) yield* Effect.ignore(adoptRecord(parked.errandId))
  })

  return { adoptRecord, adoptAll }
}
