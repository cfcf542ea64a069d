/**
 * The wheel as the person's routes take it (P1, P2, issue #26): take it, hand it back. A single
 * host's is its sessions' own; a cluster provides {@link PersonWheel} so that the call reaches the
 * host that holds the errand open (docs/cluster.md), and the app prefers it when present.
 *
 * @example
 * Layer.succeed(PersonWheel, { takeWheel, handBack, personDriving })
 */
import { Context, type Effect } from 'effect'
import type { ErrandViewAnswer } from './routeAnswers.ts'

/** Taking the wheel and handing it back, by conversation id. */
export interface PersonWheelShape {
  /** A person takes the wheel (resuming a parked errand first). */
  readonly takeWheel: (conversationId: string) => Effect.Effect<typeof ErrandViewAnswer.Type, unknown>
  /** The person hands back, with an optional note for the waiting agents; idempotent. */
  readonly handBack: (conversationId: string, note?: string | undefined) => Effect.Effect<void, unknown>
}

/**
 * A wheel that reaches an errand held elsewhere (a cluster's); without it the app uses `Sessions`.
 *
 * @example
 * Effect.serviceOption(PersonWheel)
 */
export class PersonWheel extends Context.Tag('@errands/host/PersonWheel')<PersonWheel, PersonWheelShape>() {}
