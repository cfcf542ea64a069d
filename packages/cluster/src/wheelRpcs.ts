/**
 * The person's wheel of a session's errand, as RPCs of its entity (K4, issue #26): the errand is
 * open on one runner, so taking the wheel, handing it back and the person's input run there —
 * whichever host's live view or `/v1/person/wheel` the person used. Before, a live view on
 * another host took the wheel of a sealed copy it did not hold (404) and its input found no page
 * (409 "no page").
 *
 * The note and the input are the person's (P5): they cross only the runners' TLS socket, are
 * never persisted (no RPC of the entity is) and never logged.
 *
 * @example
 * const view = yield* client('task-42').TakeWheel({})
 * yield* client('task-42').WheelInput({ events: [{ type: 'text', text: 'hi' }] })
 */
import { Rpc } from '@effect/rpc'
import { ErrandViewAnswer, InputAnswer, InputEvent, NotAtTheWheel, PageError } from '@errands/host'
import { AllBusy, ErrandUnavailable, InvalidRequest, UnknownConversation } from '@errands/sessions'
import { Schema } from 'effect'

/** What taking the wheel can fail with on the owner (resuming the errand, a chat in the person's browser). */
const WheelError = Schema.Union(AllBusy, ErrandUnavailable, InvalidRequest, UnknownConversation)

/**
 * A person takes the wheel of the entity's errand (resumed there first when parked).
 *
 * @example
 * client(key).TakeWheel({})
 */
export const TakeWheel = Rpc.make('TakeWheel', { payload: {}, success: ErrandViewAnswer, error: WheelError })

/**
 * The person hands the wheel back, with their note for the waiting agents (idempotent).
 *
 * @example
 * client(key).HandBack({ note: 'done' })
 */
export const HandBack = Rpc.make('HandBack', {
  payload: { note: Schema.optional(Schema.String) },
  error: UnknownConversation,
})

/**
 * The person's input while they drive, applied to the errand's active tab on its owner.
 *
 * @example
 * client(key).WheelInput({ events })
 */
export const WheelInput = Rpc.make('WheelInput', {
  payload: { events: Schema.Array(InputEvent) },
  success: InputAnswer,
  error: Schema.Union(NotAtTheWheel, PageError, UnknownConversation),
})

/**
 * Whether a person drives the entity's errand now (what another host's live view shows, K4).
 *
 * @example
 * client(key).Driving({}) // true while a person has the wheel
 */
export const Driving = Rpc.make('Driving', { payload: {}, success: Schema.Boolean })
