/**
 * `POST /v1/fetch` (B3, stateless): one HTTP(S) GET from the host itself, through the same
 * containment policy as every browser context (G1, G2) and without any cookie jar.
 *
 * The guard decides the URL, and then — because a public name can resolve to a private or
 * loopback address (DNS rebinding) — every address the name resolves to, before connecting.
 * Redirects are followed by hand (at most 5), each hop decided again.
 *
 * @example
 * const result = yield* guardedFetch('http://127.0.0.1:3000/', { policy, deadlineMs: 10_000 })
 */
import { decide, describeTarget, type GuardPolicy } from '@errands/guard'
import { Effect } from 'effect'
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import * as http from 'node:http'
import * as https from 'node:https'
import type { LookupFunction } from 'node:net'
import { BadRequest, BlockedByPolicy, PageError } from '../errors.ts'

/** What a fetch returns. Text bodies as text, others base64; at most `maxBytes`. */
export interface FetchResult {
  readonly url: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly encoding: 'utf-8' | 'base64'
  readonly truncated: boolean
  readonly redirects: number
}

/** How to fetch. */
export interface FetchOptions {
  readonly policy: GuardPolicy
  readonly deadlineMs: number
  readonly maxBytes?: number | undefined
  readonly maxRedirects?: number | undefined
}

const blocked = (url: string, rule: string, detail: string) =>
  new BlockedByPolicy({
    reason: 'blocked',
    rule,
    message: `The containment policy refuses ${describeTarget(url)} (rule ${rule}: ${detail}).`,
  })

/** A DNS lookup that refuses addresses the policy blocks (the name was allowed; its addresses must be too). */
const guardedLookup = (
  policy: GuardPolicy,
  scheme: string,
  port: number,
  onBlocked: (e: BlockedByPolicy) => void,
): LookupFunction =>
  ((
    hostname: string,
    options: object,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, [])
      for (const a of addresses) {
        const host = a.family === 6 ? `[${a.address}]` : a.address
        const decision = decide(`${scheme}://${host}:${port}/`, policy)
        if (!decision.allow) {
          const e = blocked(`${scheme}://${host}:${port}/`, decision.rule, `${hostname} resolves to ${a.address}`)
          onBlocked(e)
          const refusal: NodeJS.ErrnoException = new Error('blocked by policy')
          refusal.code = 'EBLOCKED'
          return callback(refusal, [])
        }
      }
      const all = (options as { all?: boolean }).all === true
      if (all) return callback(null, addresses)
      const first = addresses[0]!
      return callback(null, first.address, first.family)
    })
  }) as LookupFunction

const TEXTY =
  /^(text\/|application\/(json|xml|javascript|x-javascript|ld\+json|xhtml\+xml|rss\+xml|atom\+xml))|\+json|\+xml/i

interface Hop {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
  readonly truncated: boolean
}

const once = (url: URL, options: FetchOptions, signal: AbortSignal): Promise<Hop> =>
  new Promise<Hop>((resolve, reject) => {
    const scheme = url.protocol.slice(0, -1)
    const port = url.port !== '' ? Number(url.port) : scheme === 'https' ? 443 : 80
    let refusal: BlockedByPolicy | undefined
    const lookup = guardedLookup(options.policy, scheme, port, (e) => (refusal = e))
    const client = scheme === 'https' ? https : http
    const request = client.request(
      url,
      {
        method: 'GET',
        lookup,
        signal,
        headers: { accept: '*/*', 'user-agent': 'errands-host', 'accept-encoding': 'identity' },
        agent: false,
      },
      (response) => {
        const max = options.maxBytes ?? 1024 * 1024
        const chunks: Array<Buffer> = []
        let size = 0
        let truncated = false
        response.on('data', (chunk: Buffer) => {
          if (size >= max) {
            truncated = true
            response.destroy()
            return
          }
          chunks.push(chunk)
          size += chunk.length
        })
        const finish = () => {
          const body = Buffer.concat(chunks)
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: body.subarray(0, max),
            truncated: truncated || body.length > max,
          })
        }
        response.on('end', finish)
        response.on('close', finish)
        response.on('error', (e) => (truncated ? finish() : reject(e)))
      },
    )
    request.on('error', (e) => reject(refusal ?? e))
    request.end()
  })

/**
 * Fetches `input` through the guard. Fails with `BlockedByPolicy` (403), `BadRequest` for a
 * non-HTTP URL, or `PageError` (unavailable/timeout) when the site cannot be reached.
 *
 * @example
 * yield* guardedFetch('https://example.com/', { policy: defaultPolicy([{ port: 7777 }]), deadlineMs: 10_000 })
 */
export const guardedFetch = (
  input: string,
  options: FetchOptions,
): Effect.Effect<FetchResult, BlockedByPolicy | BadRequest | PageError> =>
  Effect.gen(function* () {
    let url = new URL(input)
    const maxRedirects = options.maxRedirects ?? 5
    for (let redirects = 0; ; redirects++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        return yield* new BadRequest({
          reason: 'invalid-body',
          message: `Only http and https URLs can be fetched (got ${url.protocol}).`,
        })
      }
      const decision = decide(url.href, options.policy)
      if (!decision.allow) return yield* blocked(url.href, decision.rule, decision.detail)
      const target = url
      const hop = yield* Effect.tryPromise({
        try: (signal) => once(target, options, signal),
        catch: (e) =>
          e instanceof BlockedByPolicy
            ? e
            : new PageError({
                reason: 'unavailable',
                message:
                  `Could not fetch ${describeTarget(target.href)}: ` +
                  `${(e as NodeJS.ErrnoException).code ?? 'failed'}; check that the site is up.`,
              }),
      }).pipe(
        Effect.timeoutFail({
          duration: options.deadlineMs,
          onTimeout: () =>
            new PageError({
              reason: 'timeout',
              message: `${describeTarget(target.href)} did not answer within ${options.deadlineMs} ms.`,
            }),
        }),
      )
      const location = hop.headers.location
      if (hop.status >= 300 && hop.status < 400 && location !== undefined) {
        if (redirects >= maxRedirects) {
          return yield* new PageError({
            reason: 'unavailable',
            message: `More than ${maxRedirects} redirects from ${describeTarget(input)}; not followed.`,
          })
        }
        url = new URL(location, url)
        continue
      }
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(hop.headers)) {
        // No cookies in or out: a fetch never carries a session.
        if (k === 'set-cookie' || v === undefined) continue
        headers[k] = Array.isArray(v) ? v.join(', ') : v
      }
      const texty = TEXTY.test(headers['content-type'] ?? 'text/plain')
      return {
        url: url.href,
        status: hop.status,
        headers,
        body: texty ? hop.body.toString('utf-8') : hop.body.toString('base64'),
        encoding: texty ? 'utf-8' : 'base64',
        truncated: hop.truncated,
        redirects,
      } satisfies FetchResult
    }
  })
