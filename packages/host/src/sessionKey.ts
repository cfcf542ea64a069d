/**
 * The one session-key contract (B1): 1–128 characters of `A–Z a–z 0–9 . _ : -`, carried in the
 * `X-Browser-Session` header of every stateful call. A key is an **isolation key**, never
 * authority: it picks which errand context a call drives, and nothing else (the person's
 * endpoints need the token).
 *
 * At the edge a key becomes a conversation id, `session:<key>`; from there on there is one code
 * path through the supervisor. Chats toggled by the person are `chat:<id>`, so the two never
 * collide.
 *
 * @example
 * const key = Either.getOrThrow(parseSessionKey('agent-7.research'))
 * conversationIdOf(key) // 'session:agent-7.research'
 */
import { Either, Schema } from 'effect'
import { InvalidSessionKey } from './errors.ts'

/** The header that carries the key (lower-case, as Node reports header names). @example headers.get(SESSION_HEADER) */
export const SESSION_HEADER = 'x-browser-session'

/** The longest key accepted. @example 'k'.repeat(MAX_KEY_LENGTH) // still valid */
export const MAX_KEY_LENGTH = 128

const KEY_PATTERN = /^[A-Za-z0-9._:-]+$/

/**
 * A valid session key (branded: only {@link parseSessionKey} or the schema makes one).
 *
 * @example
 * Schema.decodeUnknownSync(SessionKey)('a:b') // 'a:b' as SessionKey
 */
export const SessionKey = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(MAX_KEY_LENGTH),
  Schema.pattern(KEY_PATTERN),
  Schema.brand('SessionKey'),
)

/**
 * A decoded session key.
 *
 * @example
 * const key: SessionKey = Schema.decodeUnknownSync(SessionKey)('k1')
 */
export type SessionKey = typeof SessionKey.Type

const CONTRACT = `1–${MAX_KEY_LENGTH} characters of A–Z a–z 0–9 . _ : -`

/**
 * Checks a header value against the contract, with a message that says what to send instead.
 * `undefined` means the header was not sent.
 *
 * @example
 * parseSessionKey(undefined) // Left(InvalidSessionKey { reason: 'missing' })
 * parseSessionKey('a b')     // Left(InvalidSessionKey { reason: 'bad-character' })
 */
export const parseSessionKey = (raw: string | null | undefined): Either.Either<SessionKey, InvalidSessionKey> => {
  if (raw === undefined || raw === null) {
    return Either.left(
      new InvalidSessionKey({
        reason: 'missing',
        message:
          `This endpoint needs the header X-Browser-Session: <key> (${CONTRACT}); use one stable key per ` +
          `agent session.`,
      }),
    )
  }
  if (raw.length === 0) {
    return Either.left(
      new InvalidSessionKey({
        reason: 'empty',
        message: `The X-Browser-Session header is empty; send your session's key (${CONTRACT}).`,
      }),
    )
  }
  if (raw.length > MAX_KEY_LENGTH) {
    return Either.left(
      new InvalidSessionKey({
        reason: 'too-long',
        message:
          `The X-Browser-Session key has ${raw.length} characters; at most ${MAX_KEY_LENGTH} are allowed ` +
          `(${CONTRACT}).`,
      }),
    )
  }
  if (!KEY_PATTERN.test(raw)) {
    return Either.left(
      new InvalidSessionKey({
        reason: 'bad-character',
        message:
          `The X-Browser-Session key has a character outside A–Z a–z 0–9 . _ : - (spaces, Unicode and control ` +
          `characters are refused); send ${CONTRACT}.`,
      }),
    )
  }
  return Either.right(raw as SessionKey)
}

/**
 * The conversation id a session key stands for (a task conversation: always its own context, E1).
 *
 * @example
 * conversationIdOf(key) // 'session:k1'
 */
export const conversationIdOf = (key: SessionKey): string => `session:${key}`

/**
 * The conversation id of a chat the person toggles (E2).
 *
 * @example
 * chatConversationId('c-42') // 'chat:c-42'
 */
export const chatConversationId = (chatId: SessionKey): string => `chat:${chatId}`

/**
 * Whether a conversation id is in the sessions' namespace (`session:…`, a well-formed key or not):
 * a task's, never a chat's.
 *
 * @example
 * isSessionConversation('session:k1') // true
 * isSessionConversation('chat:c1')    // false
 */
export const isSessionConversation = (conversationId: string): boolean => conversationId.startsWith('session:')

/**
 * The session key back from a conversation id, when it is one of the host's sessions.
 *
 * @example
 * sessionKeyOf('session:k1') // 'k1'
 * sessionKeyOf('chat:c1')    // undefined
 */
export const sessionKeyOf = (conversationId: string): SessionKey | undefined => {
  if (!isSessionConversation(conversationId)) return undefined
  return Either.getOrUndefined(parseSessionKey(conversationId.slice('session:'.length)))
}
