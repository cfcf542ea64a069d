/**
 * Who may see the live view (V1, X4): the person, proven once with the host's token. The token is
 * pasted into the page once and exchanged for a random sign-in id that the sign-in **answers to
 * the page's script**, which keeps it in memory only and sends it on every call — the
 * `X-Errands-Live` header on the JSON API, and the WebSocket's subprotocol list
 * (`Sec-WebSocket-Protocol: errands-live, <id>`) on the screencast socket.
 *
 * Why not a cookie: cookies ignore ports, and `SameSite=Strict` treats all of loopback as one
 * site, so a cookie for 127.0.0.1:7777 also goes to every other server on 127.0.0.1 the person's
 * browser visits (a dev server, a tool's UI). A header the page's own script adds goes nowhere
 * else: no other origin's page can read the id (same-origin policy) or make the browser add it.
 * No cookie carries authority; a replayed one gives nothing. A reload asks for the token again;
 * sign-ins live in memory, so a restarted host asks again too.
 *
 * @example
 * const auth = new LiveAuth(token)
 * const id = auth.signIn('pasted token') // answered to the page, or undefined
 * auth.isSignedIn(liveIdOf(req.headers))
 */
import { digestOf, sameSecret } from '@errands/edge'
import { Redacted } from 'effect'
import { randomBytes } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { LIVE_HEADER, LIVE_PROTOCOL } from './protocol.ts'

/** How many sign-ins are kept (oldest forgotten first). */
const MAX_SIGN_INS = 64

/**
 * The sign-in id a request's `X-Errands-Live` header carries.
 *
 * @example
 * liveIdOf({ 'x-errands-live': 'Qm…' }) // 'Qm…'
 */
export const liveIdOf = (headers: IncomingHttpHeaders): string | undefined => {
  const value = headers[LIVE_HEADER]
  return Array.isArray(value) ? undefined : value
}

/**
 * The sign-in id a WebSocket upgrade offers as its second subprotocol (`errands-live, <id>`).
 *
 * @example
 * socketIdOf({ 'sec-websocket-protocol': 'errands-live, Qm…' }) // 'Qm…'
 */
export const socketIdOf = (headers: IncomingHttpHeaders): string | undefined => {
  const offered = (headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim())
  return offered.length === 2 && offered[0] === LIVE_PROTOCOL ? offered[1] : undefined
}

/**
 * The live view's sign-ins.
 *
 * @example
 * new LiveAuth(Redacted.make('t0k3n')).signIn('t0k3n') // 'Qm…' (43 characters)
 */
export class LiveAuth {
  /** Sign-in ids and their digests (what a presented id is compared with, the edge's way). */
  private readonly ids = new Map<string, Buffer>()
  private readonly token: Buffer

  constructor(token: Redacted.Redacted<string>) {
    this.token = digestOf(Redacted.value(token))
  }

  /**
   * A new sign-in id when `given` is the host's token, else `undefined`.
   *
   * @example
   * auth.signIn(pasted)
   */
  signIn(given: string): string | undefined {
    if (!sameSecret(given, this.token)) return undefined
    const id = randomBytes(32).toString('base64url')
    this.ids.set(id, digestOf(id))
    if (this.ids.size > MAX_SIGN_INS) this.ids.delete(this.ids.keys().next().value!)
    return id
  }

  /**
   * Whether `id` is a live sign-in (compared in constant time with each).
   *
   * @example
   * auth.isSignedIn(liveIdOf(req.headers))
   */
  isSignedIn(id: string | undefined): boolean {
    if (id === undefined || id === '') return false
    let found = false
    for (const known of this.ids.values()) found = sameSecret(id, known) || found
    return found
  }

  /**
   * Forgets a sign-in (sign out).
   *
   * @example
   * auth.signOut(liveIdOf(req.headers))
   */
  signOut(id: string | undefined): void {
    if (id !== undefined) this.ids.delete(id)
  }
}
