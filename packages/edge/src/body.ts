/**
 * Reading a request body up to a limit: a declared `Content-Length` over it is refused before a
 * byte is read, and a body that grows past it while streaming stops being kept (a web stream is
 * cancelled; a Node request is drained without buffering, so the answer still reaches the
 * client). Both fail with the edge's `PayloadTooLarge` (413); a body that cannot be read is
 * `BadRequest('malformed-request')`.
 *
 * @example
 * const bytes = yield* readNodeBody(req, 16 * 1024)
 * const value = yield* parseJson(new TextDecoder().decode(bytes))
 */
import { Effect } from 'effect'
import type { IncomingMessage } from 'node:http'
import { BadRequest, PayloadTooLarge } from './errors.ts'

const unreadable = () =>
  new BadRequest({ reason: 'malformed-request', message: 'The request body could not be read; send it again.' })

const declaredTooLarge = (declared: string | null | undefined, limit: number): boolean =>
  declared !== null && declared !== undefined && Number(declared) > limit

/**
 * A web request's body (`request.body`), at most `limit` bytes. A stream that fails with a
 * `PayloadTooLarge` (a server that already saw the body grow too large) fails with it.
 *
 * @example
 * const bytes = yield* readWebBody(request.body, 1024 * 1024, request.headers.get('content-length'))
 */
export const readWebBody = (
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  declared?: string | null,
): Effect.Effect<Uint8Array, PayloadTooLarge | BadRequest> =>
  Effect.gen(function* () {
    if (declaredTooLarge(declared, limit)) return yield* PayloadTooLarge.of(limit)
    if (body === null) return new Uint8Array(0)
    const reader = body.getReader()
    const read = yield* Effect.tryPromise({
      try: async (): Promise<Array<Uint8Array> | 'too-large'> => {
        const chunks: Array<Uint8Array> = []
        let size = 0
        for (;;) {
          const { done, value } = await reader.read()
          if (done) return chunks
          size += value.byteLength
          if (size > limit) {
            await reader.cancel().catch(() => undefined)
            return 'too-large'
          }
          chunks.push(value)
        }
      },
      catch: (e) => (e instanceof PayloadTooLarge ? e : unreadable()),
    })
    if (read === 'too-large') return yield* PayloadTooLarge.of(limit)
    return concat(read)
  })

/**
 * A Node request's body, at most `limit` bytes. Past the limit the rest is drained unkept, so
 * the connection can still carry the 413.
 *
 * @example
 * const bytes = yield* readNodeBody(req, 512 * 1024)
 */
export const readNodeBody = (
  req: IncomingMessage,
  limit: number,
): Effect.Effect<Uint8Array, PayloadTooLarge | BadRequest> =>
  Effect.async<Uint8Array, PayloadTooLarge | BadRequest>((resume) => {
    if (declaredTooLarge(req.headers['content-length'], limit)) {
      req.resume()
      return resume(Effect.fail(PayloadTooLarge.of(limit)))
    }
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        req.resume()
        resume(Effect.fail(PayloadTooLarge.of(limit)))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed(concat(chunks)))
    }
    const onError = () => {
      cleanup()
      resume(Effect.fail(unreadable()))
    }
    const cleanup = () => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    return Effect.sync(cleanup)
  })

const concat = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0))
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.byteLength
  }
  return out
}

/**
 * Bytes as UTF-8 text (bad sequences become U+FFFD).
 *
 * @example
 * utf8(new Uint8Array([123, 125])) // '{}'
 */
export const utf8 = (bytes: Uint8Array): string => new TextDecoder('utf-8', { fatal: false }).decode(bytes)

/**
 * Parses JSON text; an empty (or blank) body is `{}`.
 *
 * @example
 * yield* parseJson('{"on":true}') // { on: true }
 */
export const parseJson = (text: string): Effect.Effect<unknown, BadRequest> =>
  Effect.try({
    try: () => (text.trim() === '' ? {} : (JSON.parse(text) as unknown)),
    catch: () => new BadRequest({ reason: 'invalid-json', message: 'The body is not valid JSON; send a JSON object.' }),
  })
