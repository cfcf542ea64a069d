/**
 * What a viewer's page may send on the live view's socket (V1), checked before anything acts on
 * it: watch a conversation, stop watching, or acknowledge a drawn frame. Anything else is refused
 * with a message saying what is accepted.
 *
 * @example
 * parseClient('{"type":"ack","seq":3}') // { type: 'ack', seq: 3 }
 */
import { Schema } from 'effect'
import { ConversationIdParam } from './endpoints.ts'
import type { ClientMessage } from './protocol.ts'

/**
 * A viewer's message, or `undefined` for one that is none of the three.
 *
 * @example
 * parseClient('{"type":"watch","conversationId":"session:k1"}') // { type: 'watch', conversationId: 'session:k1' }
 */
export const parseClient = (data: unknown): ClientMessage | undefined => {
  try {
    const m = JSON.parse(String(data)) as Record<string, unknown>
    if (
      m.type === 'watch' &&
      typeof m.conversationId === 'string' &&
      Schema.is(ConversationIdParam)(m.conversationId)
    ) {
      return { type: 'watch', conversationId: m.conversationId }
    }
    if (m.type === 'unwatch') return { type: 'unwatch' }
    if (m.type === 'ack' && Number.isSafeInteger(m.seq)) return { type: 'ack', seq: m.seq as number }
  } catch {
    // falls through
  }
  return undefined
}
