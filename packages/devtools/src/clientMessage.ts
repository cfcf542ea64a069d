/**
 * A client's message as the connection first reads it: JSON, an object, an integer id and a
 * method, params an object — or the JSON-RPC error that answers it (-32700, -32600, -32602).
 *
 * @example
 * const read = readCommand('{"id":1,"method":"Browser.getVersion"}') // { command: { id: 1, … } }
 */
import type { Command, Params } from './connection.ts'

/** A CDP message, either way. */
interface Message {
  readonly id?: unknown
  readonly method?: unknown
  readonly params?: unknown
  readonly sessionId?: unknown
  readonly result?: unknown
  readonly error?: unknown
}

/**
 * `text` as a client's command, or the error answer to send back when it is not one.
 *
 * @example
 * const read = readCommand(text)
 * if ('answer' in read) return toClient(read.answer)
 */
export const readCommand = (text: string): { readonly command: Command } | { readonly answer: Params } => {
  let message: Message
  try {
    message = JSON.parse(text) as Message
  } catch {
    return { answer: { error: { code: -32700, message: 'Message must be JSON.' } } }
  }
  if (typeof message !== 'object' || message === null)
    return { answer: { error: { code: -32600, message: 'Message must be an object.' } } }
  const sessionId = typeof message.sessionId === 'string' ? message.sessionId : undefined
  if (!Number.isSafeInteger(message.id) || typeof message.method !== 'string') {
    return {
      answer: {
        id: message.id,
        sessionId,
        error: { code: -32600, message: 'Message must have an integer id and a method.' },
      },
    }
  }
  if (
    message.params !== undefined &&
    (typeof message.params !== 'object' || message.params === null || Array.isArray(message.params))
  ) {
    return { answer: { id: message.id, sessionId, error: { code: -32602, message: 'params must be an object.' } } }
  }
  return {
    command: {
      id: message.id as number,
      method: message.method,
      params: (message.params ?? {}) as Params,
      sessionId,
    },
  }
}
