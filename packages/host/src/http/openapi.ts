/**
 * `GET /v1/openapi.json`: the host's declared routes — `/v1` (`api.ts`) and the live view's JSON API
 * (`liveApi` of @errands/liveview) — as one OpenAPI 3.1 document, by the edge's generator
 * (`openApiDocument` of @errands/edge). What is the host's here: what each status means, who may call
 * (`session`, `person`, `live`, `open`) and the security schemes that say how.
 *
 * @example
 * const doc = hostOpenApi({ port: 7777 })
 * doc.paths['/v1/navigate'].post.requestBody
 */
import { type Endpoint, openApiDocument } from '@errands/edge'
import { liveApi, LIVE_HEADER } from '@errands/liveview'
import { readFileSync } from 'node:fs'
import { api } from './api.ts'

/** What each status means here (docs/host.md's table, by status). */
const STATUS: Readonly<Record<number, string>> = {
  400:
    'BadRequest (not JSON, a body or parameter that does not fit), InvalidSessionKey, InvalidUpstreamProxy, ' +
    'InvalidRequest.',
  401: 'Unauthorized: no bearer token, or one that is not valid here.',
  403:
    'ForeignOrigin (a browser request from another origin or site) or BlockedByPolicy (the containment policy ' +
    'refused the URL).',
  404:
    'TabNotFound, UnknownConversation, QuestionNotFound, or a conversation this host does not have (or the ' +
    'host has no such switch or vault).',
  405: 'MethodNotAllowed: the path takes other methods (see Allow).',
  409:
    'A conflict: NotAtTheWheel, PersonDriving, NoDialog, DevToolsUnavailable on the main context, a refused ' +
    'lend, the inspector’s port taken.',
  413: 'PayloadTooLarge: the body is over the limit (1 MiB on /v1, 16 KiB on the live view, 1 MiB for an import).',
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

const SECURITY = {
  session: [{ sessionKey: [] }, { sessionKey: [], agentToken: [] }],
  person: [{ personToken: [] }],
  live: [{ liveSignIn: [] }],
  open: [],
} as const

let version: string | undefined
/** The host package's version; `src/http/` and `dist/http/` are both two folders below it. */
const hostVersion = (): string =>
  (version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version)

/**
 * The OpenAPI 3.1 document of every route the host declares, served at `http://127.0.0.1:<port>`.
 *
 * @example
 * hostOpenApi({ port: 7777 }).openapi // '3.1.0'
 */
export const hostOpenApi = (options: { readonly port: number }): Readonly<Record<string, unknown>> =>
  openApiDocument([api, liveApi], {
    port: options.port,
    title: 'Errands host',
    version: hostVersion(),
    description:
      "The browser host for AI agents (docs/host.md) and the live view's JSON API (docs/live-view.md). Every " +
      'failure is JSON: {"error":{"code","reason","message"}}.',
    statuses: STATUS,
    statusesOf: (e: Endpoint) => [...EVERY_ROUTE, ...(e.access === 'open' ? [] : [401])],
    security: SECURITY,
    headersOf: (e: Endpoint) =>
      e.access === 'session'
        ? [
            {
              name: 'X-Browser-Proxy',
              in: 'header',
              required: false,
              description: "The errand's upstream proxy when this call opens it (issue #21).",
              schema: { type: 'string' },
            },
          ]
        : [],
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
      liveSignIn: {
        type: 'apiKey',
        in: 'header',
        name: LIVE_HEADER,
        description: "The live view's sign-in id (POST /live/sign-in with the host's token; X4): held by the page.",
      },
    },
  })
