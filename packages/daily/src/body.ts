/**
 * JSON bodies at the door: `application/json` only (B7 — `text/plain`, `multipart/form-data` and
 * `application/x-www-form-urlencoded` are what a plain web form can send cross-site without a
 * preflight, so they are refused with 415), bounded in size, decoded with a Schema.
 */
import type { IncomingMessage } from 'node:http'
import { Effect, ParseResult, Schema } from 'effect'
import { BadRequest, UnsupportedMediaType } from './errors.ts'

/**
 * Whether a `Content-Type` header is JSON (`application/json`, any parameters).
 *
 * @example
 * isJsonContentType('application/json; charset=utf-8') // true
 * isJsonContentType('text/plain') // false
 */
export const isJsonContentType = (header: string | undefined): boolean =>
  header !== undefined && header.split(';')[0]!.trim().toLowerCase() === 'application/json'

/**
 * Reads at most `maxBytes` of the request's body; a larger one fails with 413 without being
 * read to the end.
 *
 * @example
 * const text = yield* readBody(req, 512 * 1024)
 */
export const readBody = (req: IncomingMessage, maxBytes: number): Effect.Effect<string, BadRequest> =>
  Effect.async<string, BadRequest>((resume) => {
    const tooLarge = () => new BadRequest({ reason: 'body-too-large', message: `The body is larger than ${maxBytes} bytes.` })
    const declared = Number(req.headers['content-length'] ?? '0')
    if (declared > maxBytes) return resume(Effect.fail(tooLarge()))
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) {
        cleanup()
        resume(Effect.fail(tooLarge()))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed(Buffer.concat(chunks).toString('utf8')))
    }
    const onError = () => {
      cleanup()
      resume(Effect.fail(new BadRequest({ reason: 'malformed-json', message: 'The request body could not be read.' })))
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

/**
 * Checks the media type, reads the body and decodes it with `schema`.
 *
 * @example
 * const { code } = yield* readJson(req, RedeemBody, 64 * 1024)
 */
export const readJson = <A, I>(
  req: IncomingMessage,
  schema: Schema.Schema<A, I>,
  maxBytes: number,
): Effect.Effect<A, UnsupportedMediaType | BadRequest> =>
  Effect.gen(function* () {
    if (!isJsonContentType(req.headers['content-type'])) {
      return yield* Effect.fail(new UnsupportedMediaType({ reason: 'not-json', message: 'Send the body as application/json.' }))
    }
    const text = yield* readBody(req, maxBytes)
    const json = yield* Effect.try({
      try: () => (text.trim() === '' ? {} : (JSON.parse(text) as unknown)),
      catch: () => new BadRequest({ reason: 'malformed-json', message: 'The body is not valid JSON.' }),
    })
    return yield* Schema.decodeUnknown(schema)(json).pipe(
      Effect.mapError((e) => {
        const first = ParseResult.ArrayFormatter.formatErrorSync(e)[0]
        const where = first && first.path.length > 0 ? `${first.path.join('.')}: ` : ''
        return new BadRequest({ reason: 'invalid-body', message: `Invalid body: ${where}${first?.message ?? 'unexpected shape'}`.slice(0, 300) })
      }),
    )
  })
