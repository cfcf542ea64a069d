/**
 * Released keys leave every listing (K2). Every host registers the errands sealed in the shared
 * store as parked — at start-up (E5) and when a shard moves away — so it can resume them. When the
 * owner releases one (`DELETE /v1/session`, a task done) its record goes, but the other hosts kept
 * listing it as parked: in `/v1/person/sessions`, the live view and health's parked count. Each host
 * compares its parked errands with the store's records now and then and forgets those whose record
 * is gone (the session service's `adopt`, which checks that record again first).
 *
 * @example
 * Layer.scopedDiscard(forgetReleased(3_000))
 */
import { Sessions } from '@errands/sessions'
import { SealedStore } from '@errands/store'
import { Duration, Effect, Schedule } from 'effect'

/**
 * Forgets, every `everyMs`, the parked errands whose sealed record is gone; runs until the scope closes.
 *
 * @example
 * yield* forgetReleased(3_000)
 */
export const forgetReleased = (everyMs: number) =>
  Effect.gen(function* () {
    const store = yield* SealedStore
    const sessions = yield* Sessions
    const tick = Effect.gen(function* () {
      const parked = (yield* sessions.list).filter((v) => v.state === 'parked').map((v) => v.conversationId)
      if (parked.length === 0) return
      // One read of the table's headers for all of them; only the missing ones are looked up again.
      const sealed = new Set((yield* store.list()).map((e) => e.errandId))
      for (const id of parked) if (!sealed.has(id)) yield* Effect.ignore(sessions.adopt(id))
    })
    yield* Effect.forkScoped(Effect.repeat(Effect.ignore(tick), Schedule.spaced(Duration.millis(everyMs))))
  })
