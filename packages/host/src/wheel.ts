/**
 * The wheel as the person's routes take it (P1, P2, issue #26): take it, hand it back. A single
 * host's is its sessions' own; a cluster provides {@link PersonWheel} so that the call reaches the
 * host that holds the errand open (docs/cluster.md), and the app prefers it when present.
 *
 * @example
 * Layer.succeed(PersonWheel, { takeWheel, handBack, personDriving })
 */
import { applyWheelInput } from '@errands/liveview'
import { Runtime, type PageInput } from '@errands/runtime'
import { Sessions } from '@errands/sessions'
import { Context, Effect } from 'effect'
import type { ErrandViewAnswer } from './routeAnswers.ts'

/** Taking the wheel and handing it back, by conversation id. */
export interface PersonWheelShape {
  /** A person takes the wheel (resuming a parked errand first). */
  readonly takeWheel: (conversationId: string) => Effect.Effect<typeof ErrandViewAnswer.Type, unknown>
  /** The person hands back, with an optional note for the waiting agents; idempotent. */
  readonly handBack: (conversationId: string, note?: string | undefined) => Effect.Effect<void, unknown>
  /** Whether a person drives the errand, asked where it is (a cluster's owner, K4). */
  readonly driving?: ((conversationId: string) => Effect.Effect<boolean, unknown>) | undefined
  /** The errand as its owner has it — driving, waiting, a request for help — for another host's live view (K4). */
  readonly view?: ((conversationId: string) => Effect.Effect<typeof ErrandViewAnswer.Type, unknown>) | undefined
  /** The person's input while they drive, applied where the errand is (the live view's, K4). */
  readonly input?:
    | ((
        conversationId: string,
        events: ReadonlyArray<PageInput>,
      ) => Effect.Effect<{ readonly applied: number }, unknown>)
    | undefined
}

/**
 * A wheel that reaches an errand held elsewhere (a cluster's); without it the app uses `Sessions`.
 *
 * @example
 * Effect.serviceOption(PersonWheel)
 */
export class PersonWheel extends Context.Tag('@errands/host/PersonWheel')<PersonWheel, PersonWheelShape>() {}

/**
 * This host's own wheel: its sessions take and hand back, and the person's input goes to the
 * errand's page here (what a cluster's owner runs for the others, K4).
 *
 * @example
 * const wheel = yield* localWheel
 * yield* wheel.input!('session:k1', [{ type: 'text', text: 'hi' }])
 */
export const localWheel = Effect.gen(function* () {
  const sessions = yield* Sessions
  const runtime = yield* Runtime
  return PersonWheel.of({
    takeWheel: sessions.takeWheel,
    handBack: sessions.handBack,
    driving: (conversationId) => Effect.sync(() => sessions.personDriving(conversationId)),
    input: (conversationId, events) => applyWheelInput({ sessions, runtime }, conversationId, events),
  })
})
