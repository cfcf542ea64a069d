/**
 * Reading and decoding JSON bodies: size-limited, parsed, then decoded strictly with Effect
 * Schema (unknown fields and wrong types are refused, every problem named by its path).
 *
 * @example
 * const body = yield* decodeBody(NavigateBody, yield* readText(request))
 */
import { parseJson, readWebBody, utf8, type PayloadTooLarge } from '@errands/edge'
import { Effect, ParseResult, Schema } from 'effect'
import { BadRequest } from '../errors.ts'

/** The largest body the host reads (bytes). @example readText(request, MAX_BODY_BYTES) */
export const MAX_BODY_BYTES = 1024 * 1024

/**
 * The request's body as text, refusing more than {@link MAX_BODY_BYTES} (the edge's reader:
 * declared or streamed, it stops past the limit).
 *
 * @example
 * const text = yield* readText(request)
 */
export const readText = (
  request: Request,
  limit = MAX_BODY_BYTES,
): Effect.Effect<string, PayloadTooLarge | BadRequest> =>
  Effect.map(readWebBody(request.body, limit, request.headers.get('content-length')), utf8)

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
    const raw = yield* parseJson(text)
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return yield* new BadRequest({ reason: 'invalid-body', message: 'The body must be a JSON object.' })
    }
    return yield* Schema.decodeUnknown(schema, { errors: 'all', onExcessProperty: 'error' })(raw).pipe(
      Effect.mapError(
        (e) =>
          new BadRequest({
            reason: 'invalid-body',
            message: `The body does not fit this endpoint — ${formatIssues(e)}.`,
          }),
      ),
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
      if (k in raw)
        return yield* new BadRequest({
          reason: 'invalid-parameter',
          message: `The query parameter ${k} is given twice.`,
        })
      raw[k] = v
    }
    return yield* Schema.decodeUnknown(schema, { errors: 'all', onExcessProperty: 'error' })(raw).pipe(
      Effect.mapError(
        (e) =>
          new BadRequest({
            reason: 'invalid-parameter',
            message: `The query does not fit this endpoint — ${formatIssues(e)}.`,
          }),
      ),
    )
  })
