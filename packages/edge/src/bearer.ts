/**
 * Tokens at the edge: the `Authorization: Bearer <token>` header and a comparison whose time does
 * not depend on how much of a guess was right — both sides are hashed to SHA-256 first, so
 * `timingSafeEqual` always compares 32 bytes with 32 bytes (a plain `===`, or `timingSafeEqual`
 * on raw strings of different lengths, tells a guesser the length or the matching prefix).
 *
 * @example
 * checkBearer(request.headers, expectedDigest) // undefined, or Unauthorized (401)
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { Unauthorized } from './errors.ts'
import type { HeadersLike } from './checks.ts'

/**
 * The SHA-256 digest of a secret (what is kept and compared instead of the secret).
 *
 * @example
 * const expected = digestOf(token)
 */
export const digestOf = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest()

/**
 * Whether `given` is the secret whose digest is `expected`, in constant time.
 *
 * @example
 * sameSecret(pasted, digestOf(token)) // true when equal
 */
export const sameSecret = (given: string, expected: Buffer): boolean => timingSafeEqual(digestOf(given), expected)

/**
 * The token of an `Authorization: Bearer <token>` header (scheme in any case; token68 characters).
 *
 * @example
 * bearerOf('Bearer abc.def') // 'abc.def'
 * bearerOf('Basic Zm9v')     // undefined
 */
export const bearerOf = (header: string | null | undefined): string | undefined => {
  const m = header === null || header === undefined ? null : /^bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(header)
  return m ? m[1] : undefined
}

/** What a refused caller is told: where to get the right token. */
export interface BearerWords {
  readonly missing: string
  readonly wrong: string
}

const WORDS: BearerWords = {
  missing: 'This call needs Authorization: Bearer <token>.',
  wrong: 'The bearer token is not valid here.',
}

/**
 * Checks `Authorization: Bearer <token>` against one expected token's digest: `undefined`, or
 * the 401 to answer (`missing-token` with no header, `wrong-token` otherwise).
 *
 * @example
 * checkBearer(headers, digestOf(hostToken), { missing: 'Send the host token …', wrong: 'Not this host’s token …' })
 */
export const checkBearer = (
  headers: HeadersLike,
  expected: Buffer,
  words: BearerWords = WORDS,
): Unauthorized | undefined => {
  const header = headers.get('authorization')
  if (header === null) return new Unauthorized({ reason: 'missing-token', message: words.missing })
  const token = bearerOf(header)
  // Compared even when the header is malformed, so a malformed header takes as long as a wrong one.
  const same = sameSecret(token ?? '', expected)
  return token !== undefined && same ? undefined : new Unauthorized({ reason: 'wrong-token', message: words.wrong })
}
