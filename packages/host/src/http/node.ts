/**
 * Serving the app with `node:http`: each request becomes a web `Request` (the body read up to
 * the limit; an `AbortSignal` that fires when the client leaves, which interrupts the call and
 * releases its session), each `Response` is written back. A body past the limit reaches the app
 * as a stream that fails with `PayloadTooLarge`, so the app's Host and Origin checks still come
 * first and the 413 is the app's answer like any other.
 *
 * Requests Node's parser refuses before any handler runs — a header with a control character,
 * headers too large — get the JSON error too, through the server's `clientError` event
 * (STACK-NOTES). So does a request in absolute form (`GET http://evil/ HTTP/1.1`): the Host
 * check must be the only source of truth about which host was meant.
 *
 * @example
 * const server = http.createServer(nodeHandler(() => app))
 * server.on('clientError', onClientError)
 */
import {
  BadRequest,
  HeadersTooLarge,
  InternalError,
  PayloadTooLarge,
  rawErrorResponse,
  readNodeBody,
  RequestTimeout,
  sendError,
  WrongHost,
} from '@errands/edge'
import { Effect, Either } from 'effect'
import type * as http from 'node:http'
import type { Duplex } from 'node:stream'
import { InvalidSessionKey } from '../errors.ts'
import { MAX_BODY_BYTES } from './body.ts'

/** Anything that answers web requests (the app, or a "starting" stand-in). */
export interface Fetcher {
  readonly fetch: (request: Request) => Promise<Response>
}

/** The body the app gets for a request whose body grew past the limit: reading it fails with the 413. */
const tooLargeBody = (): ReadableStream<Uint8Array> =>
  new ReadableStream({ start: (c) => c.error(PayloadTooLarge.of(MAX_BODY_BYTES)) })

/**
 * A Node request's headers as web `Headers` (repeated headers appended). Throws on a value the
 * `Headers` class refuses.
 *
 * @example
 * const headers = webHeaders(req) // headers.get('host')
 */
export const webHeaders = (req: http.IncomingMessage): Headers => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v)
  }
  return headers
}

/**
 * Counts requests in flight, so shutdown can let them finish for a moment.
 *
 * @example
 * const inFlight = new InFlight(); inFlight.enter(); inFlight.leave(); await inFlight.drain(2_000)
 */
export class InFlight {
  private count = 0
  private waiters: Array<() => void> = []

  /** @example inFlight.enter() */
  enter(): void {
    this.count++
  }

  /** @example inFlight.leave() */
  leave(): void {
    this.count--
    if (this.count === 0) for (const w of this.waiters.splice(0)) w()
  }

  /**
   * Resolves when nothing is in flight, or after `ms`.
   *
   * @example
   * await inFlight.drain(2_000)
   */
  drain(ms: number): Promise<void> {
    if (this.count === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms)
      this.waiters.push(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  }
}

/**
 * The request listener: `current()` is asked for the app on every request (it changes from a
 * "starting" stand-in to the app once the engine is up).
 *
 * @example
 * http.createServer(nodeHandler(() => app, inFlight, 7777))
 */
export const nodeHandler =
  (current: () => Fetcher, inFlight: InFlight, port: () => number) =>
  (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const url = req.url ?? '/'
    if (!url.startsWith('/')) {
      sendError(
        res,
        new WrongHost({
          reason: 'absolute-form',
          message: 'Requests in absolute form are not answered; send the path only, with Host: 127.0.0.1:<port>.',
        }),
      )
      return
    }
    inFlight.enter()
    const abort = new AbortController()
    res.on('close', () => {
      if (!res.writableFinished) abort.abort()
    })
    void (async () => {
      try {
        const method = req.method ?? 'GET'
        const read =
          method === 'GET' || method === 'HEAD'
            ? undefined
            : await Effect.runPromise(Effect.either(readNodeBody(req, MAX_BODY_BYTES)))
        if (read !== undefined && Either.isLeft(read) && read.left._tag === 'BadRequest') {
          sendError(res, read.left)
          return
        }
        const body =
          read === undefined
            ? undefined
            : Either.isLeft(read)
              ? tooLargeBody()
              : read.right.length > 0
                ? (read.right as Uint8Array<ArrayBuffer>)
                : undefined
        let headers: Headers
        try {
          headers = webHeaders(req)
        } catch {
          sendError(
            res,
            new BadRequest({
              reason: 'malformed-request',
              message: 'A request header has a value HTTP does not allow.',
            }),
          )
          return
        }
        const request = new Request(`http://127.0.0.1:${port()}${url}`, {
          method,
          headers,
          body,
          signal: abort.signal,
          ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
        } as RequestInit)
        const response = await current().fetch(request)
        const out: Record<string, string> = {}
        response.headers.forEach((v, k) => {
          out[k] = v
        })
        const payload = Buffer.from(await response.arrayBuffer())
        out['content-length'] = String(payload.length)
        res.writeHead(response.status, out)
        res.end(method === 'HEAD' ? undefined : payload)
      } catch {
        if (!res.headersSent) sendError(res, InternalError.of('The host failed unexpectedly; try again.'))
        else res.destroy()
      } finally {
        inFlight.leave()
      }
    })()
  }

/**
 * Answers what Node's parser refused with the JSON error, then closes the connection.
 *
 * @example
 * server.on('clientError', onClientError)
 */
export const onClientError = (error: NodeJS.ErrnoException, socket: Duplex): void => {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW'
  const timeout = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
  // Say so when it was the session key that carried the bad byte (Node hands us the raw bytes).
  const packet = (error as { rawPacket?: Buffer }).rawPacket?.toString('latin1') ?? ''
  const badKey = packet
    .split('\r\n')
    .some((line) => /^x-browser-session:/i.test(line) && /[\x00-\x08\x0a-\x1f\x7f]/.test(line))
  if (badKey) {
    socket.end(
      rawErrorResponse(
        new InvalidSessionKey({
          reason: 'bad-character',
          message:
            'The X-Browser-Session key has a control character; send 1–128 characters of A–Z a–z 0–9 . _ : - only.',
        }),
      ),
    )
    return
  }
  const refusal = tooLarge
    ? new HeadersTooLarge({ reason: 'headers-too-large', message: 'The request headers are too large.' })
    : timeout
      ? new RequestTimeout({ reason: 'slow-request', message: 'The request took too long to arrive.' })
      : new BadRequest({
          reason: 'malformed-request',
          message:
            error.code === 'HPE_INVALID_HEADER_TOKEN'
              ? 'A request header has a character HTTP does not allow (a control character?); X-Browser-Session ' +
                'takes 1–128 of A–Z a–z 0–9 . _ : - only.'
              : 'The request is not valid HTTP/1.1.',
        })
  socket.end(rawErrorResponse(refusal))
}
