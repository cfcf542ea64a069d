/**
 * Decoding what a front was sent — a JSON body or a query — strictly with Effect Schema, in one wording for every
 * front (docs/edge.md): unknown fields and wrong types are refused, every problem (up to eight) named by its path.
 *
 * @example
 * const body = yield* decodeBody(NavigateBody, text) // BadRequest 'invalid-body' when it does not fit
 */
import { Effect, ParseResult, Schema } from 'effect'
import { parseJson } from './body.ts'
import { BadRequest } from './errors.ts'

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
