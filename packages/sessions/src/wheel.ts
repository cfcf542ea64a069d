/**
 * The wheel check (P1), one place for every face that refuses: while a person has the wheel of an errand, an
 * agent's call that acts on it — by the one decision of what acts (`acts` of @errands/runtime, acting.ts) — is
 * refused with `PersonDriving` (409); reads and the asks of the person answer. (DevTools holds such a command
 * until the hand-back instead of refusing it: its WheelGate asks the same `acts`.)
 *
 * @example
 * const refusal = wheelRefusal(sessions.personDriving, 'session:k1', 'v1', 'navigate')
 * if (refusal) return yield* refusal
 */
import { acts, type Face } from '@errands/runtime'
import { PersonDriving } from './errors.ts'

/**
 * `PersonDriving` when `call` acts on the conversation's errand and a person drives it now, else `undefined`.
 *
 * @example
 * wheelRefusal(() => true, 'session:k1', 'mcp', 'browser_click')    // PersonDriving
 * wheelRefusal(() => true, 'session:k1', 'mcp', 'browser_snapshot') // undefined: a read
 */
export const wheelRefusal = (
  personDriving: (conversationId: string) => boolean,
  conversationId: string,
  face: Face,
  call: string,
  params?: Readonly<Record<string, unknown>>,
): PersonDriving | undefined =>
  acts(face, call, params) && personDriving(conversationId) ? PersonDriving.of(conversationId) : undefined
