/**
 * Waiting on an errand actor: until it is quiet, not busy, or any state a caller names. Every
 * supervisor operation that sends an event and returns the errand's new view waits here.
 */
import { Effect } from 'effect'
import type { ErrandActor, ErrandSnapshot } from './views.ts'

/** Whether the errand is done or neither busy nor settling (what `settle` waits for). */
export const quiet = (s: ErrandSnapshot) => s.status !== 'active' || (!s.hasTag('busy') && !s.hasTag('settling'))
/** Whether the errand is done or not busy (opening, parking, closing, healing). */
export const notBusy = (s: ErrandSnapshot) => s.status !== 'active' || !s.hasTag('busy')

/** Waits (interruptibly) until the actor's snapshot satisfies `predicate`. */
export const waitUntil = (
  actor: ErrandActor,
  predicate: (s: ErrandSnapshot) => boolean,
): Effect.Effect<ErrandSnapshot> =>
  Effect.async<ErrandSnapshot>((resume) => {
    const now = actor.getSnapshot()
    if (predicate(now)) return resume(Effect.succeed(now))
    const sub = actor.subscribe({
      next: (s) => {
        if (predicate(s)) {
          sub.unsubscribe()
          resume(Effect.succeed(s))
        }
      },
      complete: () => resume(Effect.succeed(actor.getSnapshot())),
      error: () => resume(Effect.succeed(actor.getSnapshot())),
    })
    return Effect.sync(() => sub.unsubscribe())
  })
