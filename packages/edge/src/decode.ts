/**
 * Decoding what a front was sent — a JSON body, a query or path parameters — strictly with Effect Schema, in one
 * wording for every front (docs/edge.md): unknown fields and wrong types are refused, every problem (up to eight)
 * named by its path, never by the value that was refused.
 *
 * @example
 * const body = yield* decodeBody(NavigateBody, text) // BadRequest 'invalid-body' when it does not fit
 */
import { Effect, ParseResult, Schema } from 'effect'
import { parseJson } from './body.ts'
import type { Endpoint } from './endpoint.ts'
import { BadRequest } from './errors.ts'

/**
 * No body, or `{}` (a struct without fields would let any field through: every field is refused).
 *
 * @example
 * Schema.decodeUnknownSync(EmptyBody)({}) // {}
 */
export const EmptyBody = Schema.Record({ key: Schema.String, value: Schema.Never }).annotations({
  message: () => 'this endpoint takes no fields; send {} or nothing',
})

const formatIssues = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .slice(0, 8)
    // A refusal names the field and what it takes, never the value it got: a body carries what a person typed,
    // a password, a token (P5, W4), and Schema's default words end in `, actual <the value>`.
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(body)'}: ${i.message.replace(/, actual [\s\S]*$/, '')}`)
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

/**
 * Decodes a route's path parameters (percent-decoded by the router) with the Schemas its endpoint declares; a
 * parameter that does not fit is named, never quoted.
 *
 * @example
 * yield* decodeParams({ id: TabId }, { id: 't2' }) // { id: 't2' }
 */
export const decodeParams = (
  schemas: Endpoint['params'],
  raw: Readonly<Record<string, string>>,
): Effect.Effect<Readonly<Record<string, unknown>>, BadRequest> =>
  Effect.gen(function* () {
    const out: Record<string, unknown> = {}
    for (const [name, schema] of Object.entries(schemas)) {
      out[name] = yield* Schema.decodeUnknown(schema as Schema.Schema<unknown, string>)(raw[name]).pipe(
        Effect.mapError(
          () => new BadRequest({ reason: 'invalid-parameter', message: `The path parameter ${name} is not valid.` }),
        ),
      )
    }
    return out
  })
