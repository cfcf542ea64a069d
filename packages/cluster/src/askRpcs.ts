/**
 * The person in the loop, as RPCs of a session's entity (K4, issue #26): the errand's own machine
 * models the waiting, so what an agent asks of the person reaches the host that holds it open,
 * whichever host the agent called.
 *
 * - `View`: the errand as its owner sees it — `personDriving`, `waiting` and `help` are the
 *   owner's machine's (another host's own view of it is at most a sealed copy, "parked").
 * - `Help`: an agent's whole request for help (`POST /v1/session/help`, MCP's
 *   `browser_request_help`) waits on the owner, where the hand-back — made on any host, which
 *   sends it there (`HandBack`) — answers it with the person's note.
 * - `Asked` / `Answered`: a sign-in question put to the person on the host the agent asked (its
 *   card is there, and its Allow lends that host's main-browser sign-in through `Allow`) makes
 *   the owner's errand wait for the person, and its end ends the waiting.
 *
 * The reason and the note are the agent's and the person's (P5): they cross only the runners'
 * TLS socket, are never persisted (no RPC of the entity is) and never logged.
 *
 * @example
 * const view = yield* client('task-42').View({})
 * const answer = yield* client('task-42').Help({ reason: 'a captcha', timeoutMs: 60_000 })
 */
import { Rpc } from '@effect/rpc'
import { ErrandViewAnswer } from '@errands/host'
import { UnknownConversation } from '@errands/sessions'
import { Schema } from 'effect'

/**
 * The entity's errand as its owner's supervisor shows it.
 *
 * @example
 * client(key).View({}) // { conversationId: 'session:task-42', state: 'active', personDriving: true, … }
 */
export const View = Rpc.make('View', { payload: {}, success: ErrandViewAnswer, error: UnknownConversation })

/** How a request for help ended (the supervisor's `HandBack`). */
const HelpEnded = Schema.Union(
  Schema.Struct({ handedBack: Schema.Literal(true), note: Schema.NullOr(Schema.String) }),
  Schema.Struct({ handedBack: Schema.Literal(false), reason: Schema.Literal('timeout') }),
)

/**
 * An agent asks a person for help and waits on the owner, at most `timeoutMs`, for the hand-back.
 *
 * @example
 * client(key).Help({ reason: 'a captcha', timeoutMs: 60_000 }) // { handedBack: true, note: 'solved' }
 */
export const Help = Rpc.make('Help', {
  payload: { reason: Schema.String, timeoutMs: Schema.Number },
  success: HelpEnded,
  error: UnknownConversation,
})

/**
 * An agent waits for the person's answer to a sign-in question asked on another host: the
 * owner's errand waits for the person until `Answered` with the same id.
 *
 * @example
 * client(key).Asked({ id: 'q3fa9c1d2', ask: 'sign-in', site: 'shop.example' })
 */
export const Asked = Rpc.make('Asked', {
  payload: { id: Schema.String, ask: Schema.Literal('help', 'sign-in'), site: Schema.optional(Schema.String) },
  error: UnknownConversation,
})

/**
 * How that question ended.
 *
 * @example
 * client(key).Answered({ id: 'q3fa9c1d2', outcome: 'allow' })
 */
export const Answered = Rpc.make('Answered', {
  payload: { id: Schema.String, outcome: Schema.Literal('allow', 'deny', 'handed-back', 'timeout', 'withdrawn') },
})
