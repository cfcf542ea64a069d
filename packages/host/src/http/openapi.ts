/**
 * `GET /v1/openapi.json`: the declaration (`api.ts`) as an OpenAPI 3.1 document. Request and
 * answer bodies, query and path parameters are `JSONSchema` of the very Schemas the host decodes
 * and encodes with, so the document describes the wire and nothing else. Every operation lists
 * the edge's refusals that can reach it (the order of checks in `app.ts`) with the one error body
 * `{"error":{"code","reason","message"}}`, plus the statuses its endpoint declares.
 *
 * @example
 * const doc = openApiDocument(api, { port: 7777 })
 * doc.paths['/v1/navigate'].post.requestBody
 */
import { JSONSchema, Schema } from 'effect'
import { readFileSync } from 'node:fs'
import { EmptyBody } from '../schemas.ts'
import { endpointsOf, type Endpoint } from './endpoint.ts'

/** The error body every refusal and failure of the host is sent as (`@errands/edge`'s renderer). */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    /** The error's tag: `BadRequest`, `AllBusy`, `PageError` … (docs/host.md's table). */
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

/** What each status means here (docs/host.md's table, by status). */
const STATUS: Readonly<Record<number, string>> = {
  400:
    'BadRequest (not JSON, a body or parameter that does not fit), InvalidSessionKey, InvalidUpstreamProxy, ' +
    'InvalidRequest.',
  401: 'Unauthorized: no bearer token, or one that is not valid here.',
  403:
    'ForeignOrigin (a browser request from another origin or site) or BlockedByPolicy (the containment policy ' +
    'refused the URL).',
  404: 'TabNotFound, UnknownConversation, or a conversation this host does not have.',
  405: 'MethodNotAllowed: the path takes other methods (see Allow).',
  409: 'A conflict: NoDialog, DevToolsUnavailable on the main context, a refused lend, the inspector’s port taken.',
  413: 'PayloadTooLarge: the body is over 1 MiB.',
  415: 'UnsupportedMediaType: a body that is not application/json.',
  421: 'WrongHost: the Host header is not 127.0.0.1:<port> or localhost:<port>.',
  422: 'PageError: the page refused the action.',
  500: 'InternalError: a bug (the detail is in the host log).',
  501: 'DevToolsUnavailable: the runtime has no real browser.',
  502: 'PageError: the site is unreachable.',
  503: 'AllBusy (Retry-After: 60), ErrandUnavailable or HostUnavailable (Retry-After: 5): try again later.',
  504: 'PageError: the deadline passed.',
}

/** Statuses every route can answer: the edge's refusals and the host's own failures. */
const EVERY_ROUTE = [400, 403, 405, 413, 415, 421, 500, 503]

const ERROR_HEADERS: Readonly<Record<number, Record<string, { description: string; schema: { type: 'string' } }>>> = {
  401: { 'WWW-Authenticate': { description: 'Bearer.', schema: { type: 'string' } } },
  405: { Allow: { description: 'The methods this path takes.', schema: { type: 'string' } } },
  503: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'string' } } },
}

const SECURITY = {
  session: [{ sessionKey: [] }, { sessionKey: [], agentToken: [] }],
  person: [{ personToken: [] }],
  open: [],
} as const

let version: string | undefined
/** The host package's version; `src/http/` and `dist/http/` are both two folders below it. */
const hostVersion = (): string =>
  (version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version)

const operationId = (e: Endpoint): string =>
  e.method.toLowerCase() + e.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())

/**
 * The OpenAPI 3.1 document of every endpoint in `declaration`, served at `http://127.0.0.1:<port>`.
 *
 * @example
 * openApiDocument(api, { port: 7777 }).openapi // '3.1.0'
 */
export const openApiDocument = (
  declaration: object,
  options: { readonly port: number },
): Readonly<Record<string, unknown>> => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const json = (schema: Schema.Schema.Any): JSONSchema.JsonSchema7 =>
    JSONSchema.fromAST(schema.ast, { definitions, definitionPath: '#/components/schemas/', target: 'openApi3.1' })
  const errorRef = json(ErrorBody)

  const operation = (e: Endpoint) => {
    const statuses = [...new Set([...EVERY_ROUTE, ...(e.access === 'open' ? [] : [401]), ...e.errors])].sort(
      (a, b) => a - b,
    )
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
      ...(e.access === 'session'
        ? [
            {
              name: 'X-Browser-Proxy',
              in: 'header',
              required: false,
              description: "The errand's upstream proxy when this call opens it (issue #21).",
              schema: { type: 'string' },
            },
          ]
        : []),
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
    return {
      operationId: operationId(e),
      summary: e.summary,
      tags: [e.access],
      security: SECURITY[e.access],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(e.body
        ? {
            requestBody: {
              // A body of no fields may be left out: nothing and `{}` are the same call.
              required: e.body !== EmptyBody,
              content: { 'application/json': { schema: json(e.body) } },
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
  for (const e of endpointsOf(declaration)) {
    const path = e.path.replace(/:([A-Za-z]+)/g, '{$1}')
    ;(paths[path] ??= {})[e.method.toLowerCase()] = operation(e)
  }
  const used = new Set(
    Object.values(paths).flatMap((ops) =>
      Object.values(ops).flatMap((op) => Object.keys((op as { responses: object }).responses)),
    ),
  )
  return {
    openapi: '3.1.0',
    info: {
      title: 'Errands host',
      version: hostVersion(),
      description:
        'The browser host for AI agents (docs/host.md). Every failure is JSON: {"error":{"code","reason","message"}}.',
    },
    servers: [{ url: `http://127.0.0.1:${options.port}` }],
    paths,
    components: {
      schemas: definitions,
      responses: Object.fromEntries(
        Object.entries(STATUS)
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
      securitySchemes: {
        sessionKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Browser-Session',
          description: 'Separates one errand from another; not authority (B1).',
        },
        agentToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'With ERRANDS_AGENT_TOKENS_FILE set: a token whose line covers the session key (X2).',
        },
        personToken: { type: 'http', scheme: 'bearer', description: 'The host-token file in the data directory.' },
      },
    },
  }
}
