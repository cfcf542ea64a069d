/**
 * The DevTools endpoint's tokens: random (32 bytes from the OS), each bound to one conversation,
 * revoked with it (park, release, close). The token is the only thing in the URL's path, so
 * whoever holds the URL holds exactly that errand — and nothing logs it (L7).
 *
 * @example
 * const tokens = new TokenBook()
 * const token = tokens.mint('session:k1')
 * tokens.conversationOf(token) // 'session:k1'
 * tokens.revoke('session:k1')
 * tokens.conversationOf(token) // undefined
 */
import { randomBytes } from 'node:crypto'

const TOKEN = /^[A-Za-z0-9_-]{43}$/

/**
 * Tokens by conversation.
 *
 * @example
 * new TokenBook().mint('task-1').length // 43
 */
export class TokenBook {
  private readonly byToken = new Map<string, string>()

  /** A fresh token for the conversation (older ones stay valid until revoked). @example tokens.mint('task-1') */
  mint(conversationId: string): string {
    const token = randomBytes(32).toString('base64url')
    this.byToken.set(token, conversationId)
    return token
  }

  /**
   * The conversation a token belongs to, or undefined (malformed, unknown or revoked).
   *
   * @example
   * tokens.conversationOf('nope') // undefined
   */
  conversationOf(token: string): string | undefined {
    // 256 random bits: guessing is hopeless, so a plain lookup is enough (no near misses to time).
    return TOKEN.test(token) ? this.byToken.get(token) : undefined
  }

  /** Revokes every token of the conversation; returns how many. @example tokens.revoke('task-1') */
  revoke(conversationId: string): number {
    let revoked = 0
    for (const [token, id] of this.byToken) {
      if (id === conversationId) {
        this.byToken.delete(token)
        revoked++
      }
    }
    return revoked
  }

  /** Revokes every token (shutdown). @example tokens.clear() */
  clear(): void {
    this.byToken.clear()
  }
}
