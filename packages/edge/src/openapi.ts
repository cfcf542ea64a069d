/**
 * The OpenAPI 3.1 document of declared routes (docs/edge.md, "Declared routes"): request and answer bodies,
 * query and path parameters are `JSONSchema` of the very Schemas a front decodes and encodes with, so the
 * document describes the wire and nothing else. Every operation lists the edge's refusals that can reach it
 * (the order of checks, docs/edge.md) with the one error body `{"error":{"code","reason","message"}}`, plus
 * the statuses its endpoint declares. Which statuses and security a caller's routes carry is the front's to
 * say (`OpenApiOptions`); the host serves one document for `/v1` and the live view's API.
 *
 * @example
 * const doc = openApiDocument([api, liveApi], { port: 7777, title: 'Errands host', version: '0.1.0', … })
 * doc.paths['/v1/navigate'].post.requestBody
 */
import { JSONSchema, Schema } from 'effect'
import { endpointsOf, type Endpoint } from './endpoint.ts'

/** The error body every refusal and failure is sent as (`render.ts`). */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    /** The error's tag: `BadRequest`, `AllBusy`, `PageError` … (docs/edge.md's and docs/host.md's tables). */
    code: Schema.String,
    /** Which case of it, when the error has cases: `invalid-body`, `missing-token` … */
    reason: Schema.optional(Schema.String),
    /** What was wrong and what to do instead, in words for a model or a person. */
    message: Schema.String,
  }),
}).annotations({
  identifier: 'Error',
  description: 'Every failure: its code, its reason and a message saying what to do.',
})

/** The headers that come with some refusals (the edge's renderer sets them). */
const ERROR_HEADERS: Readonly<Record<number, Record<string, { description: string; schema: { type: 'string' } }>>> = {
  401: { 'WWW-Authenticate': { description: 'Bearer.', schema: { type: 'string' } } },
  405: { Allow: { description: 'The methods this path takes.', schema: { type: 'string' } } },
  503: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'string' } } },
}

/** A security requirement: scheme name → scopes (none here). */
type Requirement = Readonly<Record<string, ReadonlyArray<string>>>

/** What a front (or the host serving several) says of its routes. */
export interface OpenApiOptions {
  readonly port: number
  readonly title: string
  readonly version: string
  readonly description: string
  /** What each status means, for the statuses any route can answer. */
  readonly statuses: Readonly<Record<number, string>>
  /** The statuses every route of this endpoint's front and access can answer (the edge's refusals and more). */
  readonly statusesOf: (e: Endpoint) => ReadonlyArray<number>
  /** Each caller's security requirements (`open`: none). */
  readonly security: Readonly<Record<string, ReadonlyArray<Requirement>>>
  readonly securitySchemes: Readonly<Record<string, unknown>>
  /** Header parameters an endpoint takes besides its declaration (the host's `X-Browser-Proxy`). */
  readonly headersOf?: ((e: Endpoint) => ReadonlyArray<Record<string, unknown>>) | undefined
}

const operationId = (e: Endpoint): string =>
  e.method.toLowerCase() + e.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())

/**
 * The OpenAPI 3.1 document of every endpoint of `declarations`, served at `http://127.0.0.1:<port>`.
 *
 * @example
 * openApiDocument([api], options).openapi // '3.1.0'
 */
export const openApiDocument = (
  declarations: ReadonlyArray<object>,
  options: OpenApiOptions,
): Readonly<Record<string, unknown>> => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const json = (schema: Schema.Schema.Any): JSONSchema.JsonSchema7 =>
    JSONSchema.fromAST(schema.ast, { definitions, definitionPath: '#/components/schemas/', target: 'openApi3.1' })
  const errorRef = json(ErrorBody)

  const operation = (e: Endpoint) => {
    const statuses = [...new Set([...options.statusesOf(e), ...e.errors])].sort((a, b) => a - b)
    const query = e.query
      ? (json(e.query) as { properties?: Record<string, JSONSchema.JsonSchema7>; required?: Array<string> })
      : undefined
    const parameters = [
      ...Object.entries(e.params as Record<string, Schema.Schema.Any>).map(([name, schema]) => ({
        name,
        in: 'path',
        required: true,
        schema: json(schema),
      })),
      ...Object.entries(query?.properties ?? {}).map(([name, schema]) => ({
        name,
        in: 'query',
        required: query?.required?.includes(name) ?? false,
        schema,
      })),
      ...(options.headersOf?.(e) ?? []),
    ]
    const answer = e.answer
    const ok =
      '_tag' in answer && answer._tag === 'BytesAnswer'
        ? {
            description: answer.description,
            headers: Object.fromEntries(
              Object.entries(answer.headers).map(([name, description]) => [
                name,
                { description, schema: { type: 'string' } },
              ]),
            ),
            content: Object.fromEntries(
              answer.media.map((media) => [media, { schema: { type: 'string', contentMediaType: media } }]),
            ),
          }
        : { description: 'OK', content: { 'application/json': { schema: json(answer as Schema.Schema.Any) } } }
    const body = e.body ? json(e.body) : undefined
    return {
      operationId: operationId(e),
      summary: e.summary,
      tags: [e.access],
      security: options.security[e.access] ?? [],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(body
        ? {
            requestBody: {
              // An empty body is `{}` (the edge's parseJson): a body with no required field may be left out.
              required: ((body as { required?: ReadonlyArray<string> }).required ?? []).length > 0,
              content: { 'application/json': { schema: body } },
            },
          }
        : e.rawBody
          ? {
              requestBody: {
                required: true,
                content: { [e.rawBody]: { schema: { type: 'string', format: 'binary' } } },
              },
            }
          : {}),
      responses: {
        '200': ok,
        ...Object.fromEntries(
          statuses.map((status) => [String(status), { $ref: `#/components/responses/Status${status}` }]),
        ),
      },
    }
  }

  const paths: Record<string, Record<string, unknown>> = {}
  for (const e of declarations.flatMap(endpointsOf)) {
    const path = e.path.replace(/:([A-Za-z]+)/g, '{$1}')
    const method = e.method.toLowerCase()
    const at = (paths[path] ??= {})
    if (method in at) throw new Error(`openApiDocument: ${e.method} ${e.path} is declared twice`)
    at[method] = operation(e)
  }
  const used = new Set(
    Object.values(paths).flatMap((ops) =>
      Object.values(ops).flatMap((op) => Object.keys((op as { responses: object }).responses)),
    ),
  )
  const missing = [...used].filter((status) => status !== '200' && options.statuses[Number(status)] === undefined)
  if (missing.length > 0) throw new Error(`openApiDocument: no description for status ${missing.join(', ')}`)
  return {
    openapi: '3.1.0',
    info: { title: options.title, version: options.version, description: options.description },
    servers: [{ url: `http://127.0.0.1:${options.port}` }],
    paths,
    components: {
      schemas: definitions,
      responses: Object.fromEntries(
        Object.entries(options.statuses)
          .filter(([status]) => used.has(status))
          .map(([status, description]) => [
            `Status${status}`,
            {
              description,
              ...(ERROR_HEADERS[Number(status)] ? { headers: ERROR_HEADERS[Number(status)] } : {}),
              content: { 'application/json': { schema: errorRef } },
            },
          ]),
      ),
      securitySchemes: options.securitySchemes,
    },
  }
}
