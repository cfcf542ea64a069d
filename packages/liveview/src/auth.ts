/**
 * Who may see the live view: the person, proven once with the host's token. The token is pasted
 * into the page once and exchanged for a random sign-in id carried by an HttpOnly, SameSite=Strict
 * cookie; the token never travels in a URL and never reaches the page's script again. Sign-ins
 * live in memory: a restarted host asks again.
 *
 * @example
 * const auth = new LiveAuth(token)
 * const id = auth.signIn('pasted token') // a cookie value, or undefined
 * auth.isSignedIn(req.headers.cookie)
 */
import { Redacted } from 'effect'
import { randomBytes, timingSafeEqual } from 'node:crypto'

/** The cookie's name. @example `${LIVE_COOKIE}=…` */
export const LIVE_COOKIE = 'errands_live'

/** How many sign-ins are kept (oldest forgotten first). */
const MAX_SIGN_INS = 64

const sameSecret = (given: string, expected: string): boolean => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * The value of cookie `name` in a `Cookie` header.
 *
 * @example
 * cookieValue('a=1; errands_live=xyz', 'errands_live') // 'xyz'
 */
export const cookieValue = (header: string | undefined, name: string): string | undefined => {
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const at = part.indexOf('=')
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim()
  }
  return undefined
}

/**
 * The live view's sign-ins.
 *
 * @example
 * new LiveAuth(Redacted.make('t0k3n')).signIn('t0k3n') // 'Qm…' (43 characters)
 */
export class LiveAuth {
  private readonly ids = new Set<string>()

  constructor(private readonly token: Redacted.Redacted<string>) {}

  /**
   * A new sign-in id when `given` is the host's token, else `undefined`.
   *
   * @example
   * auth.signIn(pasted)
   */
  signIn(given: string): string | undefined {
    if (!sameSecret(given, Redacted.value(this.token))) return undefined
    const id = randomBytes(32).toString('base64url')
    this.ids.add(id)
    if (this.ids.size > MAX_SIGN_INS) this.ids.delete(this.ids.values().next().value!)
    return id
  }

  /**
   * Whether the `Cookie` header carries a live sign-in.
   *
   * @example
   * auth.isSignedIn(req.headers.cookie)
   */
  isSignedIn(cookieHeader: string | undefined): boolean {
    const id = cookieValue(cookieHeader, LIVE_COOKIE)
    if (id === undefined) return false
    for (const known of this.ids) if (sameSecret(id, known)) return true
    return false
  }

  /**
   * Forgets the sign-in in the `Cookie` header (sign out).
   *
   * @example
   * auth.signOut(req.headers.cookie)
   */
  signOut(cookieHeader: string | undefined): void {
    const id = cookieValue(cookieHeader, LIVE_COOKIE)
    if (id !== undefined) this.ids.delete(id)
  }

  /**
   * The `Set-Cookie` value for a sign-in id (`undefined`: clear it).
   *
   * @example
   * res.setHeader('set-cookie', LiveAuth.cookie(id))
   */
  static cookie(id: string | undefined): string {
    return id === undefined
      ? `${LIVE_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`
      : `${LIVE_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/`
  }
}
