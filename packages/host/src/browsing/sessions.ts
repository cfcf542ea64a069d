/**
 * The host's per-session state (B2, B6): for each key, and only for it — its drive lock
 * (creation coalesced per key), the viewport it asked for, its input count, the context it last
 * worked in, and the nonce that makes its tab ids its own. The page itself (the driven tab, the
 * fitted viewport, the input lock, the cast and its frames) is the runtime's. There is
 * no process-global page, tab or fallback URL: everything page-related hangs off a record here,
 * found by the key.
 *
 * A record holds no browser: the supervisor owns the errand (open, park, resume, close) and the
 * runtime owns the context. A record can therefore outlive a park and find its new context on
 * the next call (`contextId` changes; the new context is fitted to the session's viewport).
 *
 * @example
 * const book = new SessionBook()
 * const s = book.get(key)            // created on first use, no browser involved
 * const id = publicTabId(s, 't1')    // e.g. '3fa9c1d2-t1'
 * parseTabId(s, id)                  // 't1'
 * book.drop(key)                     // on release / task done
 */
import { randomBytes } from 'node:crypto'
import type { ContextId } from '@errands/runtime'
import { Effect } from 'effect'
import type { SessionKey } from '../sessionKey.ts'

/** One session's host-side state. */
export interface HostSession {
  /** The session key, or `main` for the person's main context. */
  readonly key: SessionKey | 'main'
  /** Makes this session's public tab ids unlike any other session's. */
  readonly nonce: string
  /** Serialises bringing the errand up (open, resume, heal), so N first calls make one context. */
  readonly driveLock: Effect.Semaphore
  /**
   * The viewport the session asked for: the runtime fits its context (docs/adr/0049-runtime-owns-the-page.md); kept
   * here for the context a resume or heal brings, which starts unfitted.
   */
  viewport: { readonly width: number; readonly height: number } | undefined
  /** The context the session last worked in (changes after a park/resume or a heal). */
  contextId: ContextId | undefined
  /** Input events applied. */
  inputEvents: number
}

const newSession = (key: SessionKey | 'main', nonce: string): HostSession => ({
  key,
  nonce,
  driveLock: Effect.unsafeMakeSemaphore(1),
  viewport: undefined,
  contextId: undefined,
  inputEvents: 0,
})

/**
 * Every session's record, by key.
 *
 * @example
 * const book = new SessionBook()
 */
export class SessionBook {
  private readonly records = new Map<SessionKey, HostSession>()
  private readonly nonces = new Set<string>()
  readonly main: HostSession = newSession('main', this.freshNonce())

  /**
   * The session's record, created when first asked for (this touches no browser).
   *
   * @example
   * book.get(key).viewport
   */
  get(key: SessionKey): HostSession {
    let record = this.records.get(key)
    if (record === undefined) {
      record = newSession(key, this.freshNonce())
      this.records.set(key, record)
    }
    return record
  }

  /** The record, if there is one. @example book.peek(key)?.inputEvents */
  peek(key: SessionKey): HostSession | undefined {
    return this.records.get(key)
  }

  /**
   * Forgets a session (release, task done); its cast stops with its context, in the runtime. The
   * nonce is never reused, so tab ids handed out before stay refused.
   *
   * @example
   * await book.drop(key)
   */
  async drop(key: SessionKey): Promise<void> {
    this.records.delete(key)
  }

  /** How many sessions have a record. @example book.size */
  get size(): number {
    return this.records.size
  }

  private freshNonce(): string {
    for (;;) {
      const nonce = randomBytes(4).toString('hex')
      if (!this.nonces.has(nonce)) {
        this.nonces.add(nonce)
        return nonce
      }
    }
  }
}

/**
 * The id a session's tab has in the API: the session's nonce and the runtime's tab id.
 *
 * @example
 * publicTabId(session, 't2') // '3fa9c1d2-t2'
 */
export const publicTabId = (session: HostSession, tabId: string): string => `${session.nonce}-${tabId}`

/**
 * The runtime's tab id from a public id, or `undefined` when the id is not this session's
 * (another session's tab id is never accepted, B3).
 *
 * @example
 * parseTabId(session, '3fa9c1d2-t2') // 't2'
 * parseTabId(other, '3fa9c1d2-t2')   // undefined
 */
export const parseTabId = (session: HostSession, publicId: string): string | undefined => {
  const dash = publicId.indexOf('-')
  if (dash < 0 || publicId.slice(0, dash) !== session.nonce) return undefined
  const tabId = publicId.slice(dash + 1)
  return /^t\d+$/.test(tabId) ? tabId : undefined
}
