/**
 * Pairing codes, Bearer tokens and fences (D1, D2). Codes and tokens are random from
 * `node:crypto`, kept only as SHA-256 digests, and compared in constant time: a lookup scans every
 * candidate with `timingSafeEqual` and never stops early, so timing says nothing about how much of
 * a guess was right.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'

/**
 * Crockford's base32 alphabet (no I, L, O, U): easy to read aloud and to type. 32 symbols, so
 * `byte & 31` of a random byte is uniform.
 *
 * @example
 * codeAlphabet.length // 32
 */
export const codeAlphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/**
 * Length of a pairing code in symbols: 12 × 5 = 60 random bits. With redeem failures limited to
 * 20 a minute (globally), guessing one live code takes longer than the universe has existed.
 *
 * @example
 * newPairingCode().replaceAll('-', '').length === codeLength // true
 */
export const codeLength = 12

/**
 * A new pairing code, grouped for reading: `7KQ2-M9XD-4TRB`.
 *
 * @example
 * newPairingCode() // '7KQ2-M9XD-4TRB'
 */
export const newPairingCode = (): string => {
  const bytes = randomBytes(codeLength)
  const symbols = [...bytes].map((b) => codeAlphabet[b & 31]!).join('')
  return symbols.match(/.{1,4}/g)!.join('-')
}

/**
 * A code as typed, in canonical form (upper case, no separators; `O`→`0`, `I`/`L`→`1` as
 * Crockford allows), or `undefined` when it cannot be a code at all.
 *
 * @example
 * normalizeCode(' 7kq2-m9xd 4trb ') // '7KQ2M9XD4TRB'
 */
export const normalizeCode = (typed: string): string | undefined => {
  if (typed.length > 64) return undefined
  const text = typed.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1')
  if (text.length !== codeLength) return undefined
  for (const c of text) if (!codeAlphabet.includes(c)) return undefined
  return text
}

/**
 * A new Bearer token: 32 random bytes, base64url.
 *
 * @example
 * newToken().length // 43
 */
export const newToken = (): string => randomBytes(32).toString('base64url')

/**
 * A random id for a lease or an observation (not a secret, but not guessable either).
 *
 * @example
 * newId('lease') // 'lease-3f0c…'
 */
export const newId = (prefix: string): string => `${prefix}-${randomUUID()}`

/**
 * The SHA-256 digest of a secret: what the service keeps instead of the secret.
 *
 * @example
 * digest('abc').length // 32
 */
export const digest = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest()

/**
 * Finds the item whose digest equals `candidate`, comparing against every item in constant time
 * per item and never stopping early.
 *
 * @example
 * findByDigest(records, (r) => r.codeDigest, digest(normalizeCode(typed)!))
 */
export const findByDigest = <T>(
  items: Iterable<T>,
  get: (item: T) => Buffer | null,
  candidate: Buffer,
): T | undefined => {
  let found: T | undefined
  for (const item of items) {
    const d = get(item)
    if (d === null || d.length !== candidate.length) continue
    // The comparison runs for every item (it is the left operand); only the assignment depends on it.
    if (timingSafeEqual(d, candidate) && found === undefined) found = item
  }
  return found
}

/**
 * The fence of a shared document: an opaque digest of its URL and document id. The lease machine
 * compares fences without ever holding the URL (L7: it is shown to the inspector).
 *
 * @example
 * fenceOf('https://mail.example/inbox', 'A1B2') === fenceOf('https://mail.example/inbox', 'A1B2') // true
 */
export const fenceOf = (url: string, documentId: string): string =>
  createHash('sha256')
    .update(JSON.stringify([url, documentId]), 'utf8')
    .digest('base64url')
