/**
 * The swap rule (W3, docs/passwords.md), pure: what a stand-in looks like, and how an outgoing
 * request that carries one is rewritten — the value written the way the place it sits in needs
 * it (a form body percent-encoded, a JSON body as a JSON string's inside, a URL query
 * percent-encoded). A runtime's interception calls {@link swapRequest} only for a request its
 * destination allows; for any other it calls {@link findStandIns}, to report the stand-ins it
 * leaves as they are.
 *
 * @example
 * const live = [{ token: 'StandinAbc…', reveal: () => 'p@ss w' , shape: 'token' }]
 * swapRequest({ url, contentType: 'application/x-www-form-urlencoded', body }, live).body // …p%40ss+w…
 */
import { randomBytes, randomInt } from 'node:crypto'

/** What every token stand-in starts with: a reader of a page or a log knows one when it sees it. */
export const STAND_IN_PREFIX = 'Standin'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** Letters and digits after the prefix: 22 of 62, over 130 bits. */
const TOKEN_RANDOM = 22

/** The fewest random characters a token stand-in has (a field's `maxlength` may cut the prefix, never these). */
export const MIN_TOKEN_RANDOM = 12

/**
 * A fresh stand-in: a token of letters and digits (nothing a form, a URL or JSON would escape,
 * so the page's request carries it byte for byte), or `digits` random digits for a one-time
 * code field. `maxLength` (a field's `maxlength`) shortens a token to fit: the prefix goes first,
 * and a field shorter than {@link MIN_TOKEN_RANDOM} gets no stand-in (`undefined`).
 *
 * @example
 * mintStandIn('token')     // 'Standin3kQ9…' (29 characters)
 * mintStandIn('digits', 6) // '402913'
 */
export const mintStandIn = (shape: 'token' | 'digits', digits = 6, maxLength?: number): string | undefined => {
  if (shape === 'digits') return Array.from({ length: digits }, () => String(randomInt(10))).join('')
  const room = maxLength !== undefined && maxLength > 0 ? maxLength : Number.POSITIVE_INFINITY
  if (room < MIN_TOKEN_RANDOM) return undefined
  const prefix = room >= STAND_IN_PREFIX.length + MIN_TOKEN_RANDOM ? STAND_IN_PREFIX : ''
  const random = Math.min(TOKEN_RANDOM, room - prefix.length)
  return prefix + Array.from(randomBytes(random), (b) => ALPHABET[b % ALPHABET.length]).join('')
}

/** A live stand-in as the swap rule sees it. */
export interface LiveStandIn {
  readonly token: string
  readonly shape: 'token' | 'digits'
  /** The value now (called once per request that carries the token). */
  readonly reveal: () => string
}

/** An outgoing request: its URL, its `Content-Type` (if any) and its body's bytes (if any). */
export interface OutgoingRequest {
  readonly url: string
  readonly contentType?: string | undefined
  readonly body?: Uint8Array | undefined
}

/** A rewritten request (only what changed) and which stand-ins it carried. */
export interface SwapResult {
  readonly url?: string | undefined
  readonly body?: Uint8Array | undefined
  readonly swapped: ReadonlyArray<LiveStandIn>
  /** Stand-ins in the body that stayed: the body's type says no way to write a value into it. */
  readonly unwritable: ReadonlyArray<LiveStandIn>
}

/** How a value is written into a body of this media type, or undefined when we cannot tell. */
const bodyEncoder = (contentType: string | undefined, body: Uint8Array): ((v: string) => string) | undefined => {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  if (type === 'application/x-www-form-urlencoded') return (v) => encodeURIComponent(v).replace(/%20/g, '+')
  if (type === 'application/json' || type.endsWith('+json')) return jsonInside
  if (type === 'multipart/form-data') return (v) => v
  if (type === 'text/plain' || type === '') {
    // `fetch(url, { body: JSON.stringify(x) })` sends text/plain: JSON is written as JSON.
    try {
      JSON.parse(Buffer.from(body).toString('utf8'))
      return jsonInside
    } catch {
      return type === 'text/plain' ? (v) => v : undefined
    }
  }
  return undefined
}

/** The inside of a JSON string holding `v` (without its quotes). */
const jsonInside = (v: string): string => JSON.stringify(v).slice(1, -1)

/** Where `token` occurs in `hay` as a whole (a digit code: not inside a longer run of digits). */
const occurrences = (hay: Buffer, token: string, shape: LiveStandIn['shape']): Array<number> => {
  const needle = Buffer.from(token, 'utf8')
  const at: Array<number> = []
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) {
    if (shape === 'digits' && (isDigit(hay[i - 1]) || isDigit(hay[i + needle.length]))) continue
    at.push(i)
  }
  return at
}

const isDigit = (byte: number | undefined): boolean => byte !== undefined && byte >= 0x30 && byte <= 0x39

const replaceAt = (hay: Buffer, at: ReadonlyArray<number>, length: number, value: Buffer): Buffer => {
  const parts: Array<Buffer> = []
  let from = 0
  for (const i of at) {
    parts.push(hay.subarray(from, i), value)
    from = i + length
  }
  parts.push(hay.subarray(from))
  return Buffer.concat(parts)
}

/** The query part of a URL (after the first `?`, before any `#`), and what comes before it. */
const splitQuery = (url: string): { readonly head: string; readonly query: string; readonly tail: string } => {
  const hash = url.indexOf('#')
  const end = hash < 0 ? url.length : hash
  const q = url.indexOf('?')
  if (q < 0 || q > end) return { head: url.slice(0, end), query: '', tail: url.slice(end) }
  return { head: url.slice(0, q + 1), query: url.slice(q + 1, end), tail: url.slice(end) }
}

/**
 * Every live stand-in `request` carries anywhere — URL (path and query), body, or a header
 * value given in `headers` — for the report of a request that keeps them.
 *
 * @example
 * findStandIns({ url: 'https://evil.test/?x=Standin…' }, live).length // 1
 */
export const findStandIns = (
  request: OutgoingRequest & { readonly headers?: ReadonlyArray<string> | undefined },
  live: ReadonlyArray<LiveStandIn>,
): ReadonlyArray<LiveStandIn> => {
  const body = request.body === undefined ? undefined : Buffer.from(request.body)
  const headers = Buffer.from((request.headers ?? []).join('\n'), 'utf8')
  const url = Buffer.from(request.url, 'utf8')
  return live.filter((s) =>
    [url, headers, ...(body ? [body] : [])].some((hay) => occurrences(hay, s.token, s.shape).length > 0),
  )
}

/**
 * Writes each live stand-in's value where `request` carries the stand-in: the URL's query
 * (percent-encoded) and the body, encoded for its media type — a form body, JSON (`+json`, and
 * a `text/plain` body that is JSON), `multipart/form-data` and other `text/plain` as it is. A
 * body of another type keeps its stand-ins (`unwritable`). The path, fragment and headers are
 * never rewritten.
 *
 * @example
 * swapRequest({ url: 'https://shop.example/login?pw=' + token }, live).url // 'https://shop.example/login?pw=p%40ss'
 */
export const swapRequest = (request: OutgoingRequest, live: ReadonlyArray<LiveStandIn>): SwapResult => {
  const swapped = new Set<LiveStandIn>()
  const unwritable = new Set<LiveStandIn>()
  const values = new Map<LiveStandIn, string>()
  const revealed = (s: LiveStandIn): string => {
    const known = values.get(s)
    if (known !== undefined) return known
    const v = s.reveal()
    values.set(s, v)
    return v
  }

  let url: string | undefined
  const { head, query, tail } = splitQuery(request.url)
  let newQuery: Buffer = Buffer.from(query, 'utf8')
  for (const s of live) {
    const at = occurrences(newQuery, s.token, s.shape)
    if (at.length === 0) continue
    newQuery = replaceAt(newQuery, at, Buffer.byteLength(s.token), Buffer.from(encodeURIComponent(revealed(s))))
    swapped.add(s)
  }
  if (swapped.size > 0) url = head + newQuery.toString('utf8') + tail

  let body: Uint8Array | undefined
  if (request.body !== undefined && request.body.length > 0) {
    let bytes: Buffer = Buffer.from(request.body)
    const encode = bodyEncoder(request.contentType, request.body)
    let changed = false
    for (const s of live) {
      const at = occurrences(bytes, s.token, s.shape)
      if (at.length === 0) continue
      if (encode === undefined) {
        unwritable.add(s)
        continue
      }
      bytes = replaceAt(bytes, at, Buffer.byteLength(s.token), Buffer.from(encode(revealed(s)), 'utf8'))
      swapped.add(s)
      changed = true
    }
    if (changed) body = new Uint8Array(bytes)
  }
  return { url, body, swapped: [...swapped], unwritable: [...unwritable] }
}

/** The shortest value {@link findValues} looks for: a shorter one turns up in requests by chance. */
export const MIN_VALUE_SEARCH = 6

/**
 * `bytes` with every `%XX` turned into its byte (a lone `%` stays), and with `plus` each `+` into a
 * space first: how a value looks once a URL or a form body is read back, whatever spelled it.
 */
const percentDecoded = (bytes: Buffer, plus: boolean): Buffer => {
  const out = Buffer.alloc(bytes.length)
  let n = 0
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    const hex = b === 0x25 && i + 2 < bytes.length ? bytes.subarray(i + 1, i + 3).toString('latin1') : ''
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      out[n++] = Number.parseInt(hex, 16)
      i += 2
    } else out[n++] = plus && b === 0x2b ? 0x20 : b
  }
  return out.subarray(0, n)
}

/**
 * The live secrets whose **value** `request` carries — as it is, inside a JSON string, or in any
 * percent-encoding (a URL a browser normalised, a form body) — for a runtime to stop a request to
 * another destination that carries it (a site that reflects what it received into a redirect,
 * W3). Token secrets only: a one-time code's digits turn up anywhere.
 *
 * @example
 * findValues({ url: 'https://evil.test/?pw=p%40ss-word' }, live).length // 1, for the value 'p@ss-word'
 */
export const findValues = (
  request: OutgoingRequest & { readonly headers?: ReadonlyArray<string> | undefined },
  live: ReadonlyArray<LiveStandIn>,
): ReadonlyArray<LiveStandIn> => {
  const raw = [
    Buffer.from(request.url, 'utf8'),
    Buffer.from((request.headers ?? []).join('\n'), 'utf8'),
    ...(request.body === undefined ? [] : [Buffer.from(request.body)]),
  ]
  const hay = raw.flatMap((b) => [b, percentDecoded(b, false), percentDecoded(b, true)])
  return live.filter((s) => {
    if (s.shape !== 'token') return false
    const v = s.reveal()
    if (v.length < MIN_VALUE_SEARCH) return false
    // A Location header is Latin-1 on the wire: a site that reflects `é` sends the byte 0xe9, not 0xc3 0xa9.
    const forms = [...[v, jsonInside(v)].map((f) => Buffer.from(f, 'utf8')), Buffer.from(v, 'latin1')]
    return hay.some((h) => forms.some((f) => h.includes(f)))
  })
}
