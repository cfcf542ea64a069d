/**
 * Reading and decoding JSON bodies: size-limited, parsed, then decoded strictly with Effect
 * Schema (unknown fields and wrong types are refused, every problem named by its path).
 *
 * @example
 * const body = yield* decodeBody(NavigateBody, yield* readText(request))
 */
import { Effect, ParseResult, Schema } from 'effect'
import { BadRequest, PayloadTooLarge } from '../errors.ts'

/** The largest body the host reads (bytes). @example readText(request, MAX_BODY_BYTES) */
export const MAX_BODY_BYTES = 1024 * 1024

/**
 * The request's body as text, refusing more than {@link MAX_BODY_BYTES}.
 *
 * @example
 * const text = yield* readText(request)
 */
export const readText = (request: Request, limit = MAX_BODY_BYTES): Effect.Effect<string, PayloadTooLarge | BadRequest> =>
  Effect.gen(function* () {
    const declared = Number(request.headers.get('content-length') ?? '0')
    if (declared > limit) return yield* tooLarge(limit)
    if (request.body === null) return ''
    const buffer = yield* Effect.tryPromise({
      try: () => request.arrayBuffer(),
      catch: () => new BadRequest({ reason: 'malformed-request', message: 'The request body could not be read; send it again.' }),
    })
    if (buffer.byteLength > limit) return yield* tooLarge(limit)
    return new TextDecoder('utf-8', { fatal: false }).decode(buffer)
  })

const tooLarge = (limit: number) =>
  Effect.fail(new PayloadTooLarge({ reason: 'body-too-large', message: `The body is larger than ${limit} bytes; send less.` }))

const formatIssues = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .slice(0, 8)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(body)'}: ${i.message}`)
    .join('; ')

/**
 * Parses `text` as JSON (an empty body is `{}`) and decodes it with `schema`, refusing unknown
 * fields.
 *
 * @example
 * yield* decodeBody(ClickBody, '{"selector":"#go"}') // { selector: '#go' }
 */
export const decodeBody = <A, I>(schema: Schema.Schema<A, I>, text: string): Effect.Effect<A, BadRequest> =>
  Effect.gen(function* () {
    let raw: unknown = {}
    if (text.trim() !== '') {
      try {
        raw = JSON.parse(text)
      } catch {
        return yield* new BadRequest({ reason: 'invalid-json', message: 'The body is not valid JSON; send a JSON object.' })
      }
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return yield* new BadRequest({ reason: 'invalid-body', message: 'The body must be a JSON object.' })
    }
    return yield* Schema.decodeUnknown(schema, { errors: 'all', onExcessProperty: 'error' })(raw).pipe(
      Effect.mapError((e) => new BadRequest({ reason: 'invalid-body', message: `The body does not fit this endpoint — ${formatIssues(e)}.` })),
    )
  })

/**
 * Decodes query parameters (each given at most once) with `schema`, refusing unknown ones.
 *
 * @example
 * yield* decodeQuery(ScreenshotQuery, new URLSearchParams('fullPage=true'))
 */
export const decodeQuery = <A, I>(schema: Schema.Schema<A, I>, query: URLSearchParams): Effect.Effect<A, BadRequest> =>
  Effect.gen(function* () {
    const raw: Record<string, string> = {}
    for (const [k, v] of query) {
      if (k in raw) return yield* new BadRequest({ reason: 'invalid-parameter', message: `The query parameter ${k} is given twice.` })
      raw[k] = v
    }
    return yield* Schema.decodeUnknown(schema, { errors: 'all', onExcessProperty: 'error' })(raw).pipe(
      Effect.mapError((e) => new BadRequest({ reason: 'invalid-parameter', message: `The query does not fit this endpoint — ${formatIssues(e)}.` })),
    )
  })
