/**
 * The host as a web-standard `fetch(Request) → Response` (Hono-style): tested in-process with
 * `app.request(path, init)`, no port, and served by `node.ts`. Every request passes, in order:
 *
 * 1. the Host check (421) and the Origin / Sec-Fetch-Site check (403) — B7, `@errands/edge`'s;
 * 2. routing (404, 405 with `Allow`);
 * 3. the media type of a body (415);
 * 4. access: the session key (400, B1) — and, when agent tokens are configured, a token that
 *    covers it (401, X2, `agentTokens.ts`) — or the person's token (401);
 * 5. the query and the body, decoded strictly with Effect Schema (400);
 * 6. the route's one service call, whose answer is encoded with its declared Schema (`api.ts`).
 *
 * Steps 1–5 touch nothing: a refused request never reaches a service, let alone Chromium.
 *
 * @example
 * const app = yield* makeApp({ port: 7777, token })
 * const res = await app.request('/v1/url', { headers: { 'x-browser-session': 'k1' } })
 */
import { DevTools } from '@errands/devtools'
import { parseUpstreamProxy, type UpstreamProxy } from '@errands/runtime'
import {
  admit,
  checkBearer,
  checkMediaType,
  checkMethod,
  digestOf,
  hasBody,
  ownHost,
  readWebBody,
  type Identity,
  decodeBody,
  decodeQuery,
  Router,
} from '@errands/edge'
import { Sessions } from '@errands/sessions'
import { Vault } from '@errands/passwords'
import { Cause, Effect, Either, Exit, Option, Redacted, Runtime, Schema } from 'effect'
import { Browsing } from '../browsing/Browsing.ts'
import { SessionProxy } from '../browsing/SessionProxy.ts'
import { BadRequest, HostUnavailable, NotFound } from '../errors.ts'
import { HostHealth } from '../health.ts'
import { Person } from '../person/Person.ts'
import { Placement } from '../placement.ts'
import { parseSessionKey, SESSION_HEADER, type SessionKey } from '../sessionKey.ts'
import { Stateless } from '../stateless/Stateless.ts'
import { PersonWheel } from '../wheel.ts'
import { checkAgentToken, type AgentTokens } from './agentTokens.ts'
import { readText } from './body.ts'
import { errorResponse, json } from './respond.ts'
import { routes, type Route } from './routes.ts'

/** The header naming a session's upstream proxy when its first call opens it (issue #21). */
export const PROXY_HEADER = 'x-browser-proxy'

/** How the app is set up. */
export interface AppOptions extends Identity {
  /** The person's bearer token (see `token.ts`). */
  readonly token: Redacted.Redacted<string>
  /** Agent credentials (X2): set, every `session` route needs a token covering its key. */
  readonly agentTokens?: AgentTokens | undefined
  /** Receives one line per failed request (5xx) and per defect; never headers, bodies or keys. */
  readonly log?: ((line: string) => void) | undefined
  /** The largest raw body (a staged file, #25) the app reads: ERRANDS_FILES_MAX_FILE_BYTES (default 25 MiB). */
  readonly maxRawBodyBytes?: number | undefined
}

/** The host app. */
export interface App {
  /** Answers one request. Never rejects: every failure is a JSON error response. */
  readonly fetch: (request: Request) => Promise<Response>
  /**
   * A request against the app in-process (tests): `path` is relative to the host's origin and
   * `Host` defaults to the host's own.
   */
  readonly request: (path: string, init?: RequestInit) => Promise<Response>
  /** Refuses every further request with 503 (shutdown). */
  readonly close: () => void
}

const TOKEN_WORDS = {
  missing: "The person's endpoints need Authorization: Bearer <token> (the host-token file in the data directory).",
  wrong: "The bearer token is not this host's; read it from the host-token file in the data directory.",
}

/**
 * Builds the app on the host's services.
 *
 * @example
 * const app = await Effect.runPromise(makeApp(options).pipe(Effect.provide(layers)))
 */
export const makeApp = (
  options: AppOptions,
): Effect.Effect<App, never, Browsing | Person | HostHealth | Stateless | DevTools | SessionProxy | Sessions> =>
  Effect.gen(function* () {
    const sessions = yield* Sessions
    const clusterWheel = yield* Effect.serviceOption(PersonWheel)
    const router = new Router<Route>(
      routes(
        {
          browsing: yield* Browsing,
          person: yield* Person,
          health: yield* HostHealth,
          stateless: yield* Stateless,
          devtools: yield* DevTools,
          // A DevTools URL of an errand another host of a cluster holds is minted there (placement.ts).
          placement: Option.getOrUndefined(yield* Effect.serviceOption(Placement)),
          sessionProxy: yield* SessionProxy,
          questions: sessions,
          // P1, P2 (issue #26): the wheel routes; a cluster's PersonWheel reaches the errand's owner.
          wheel: Option.getOrElse(clusterWheel, () => sessions),
          // W1: the person's passwords, when the host keeps a vault.
          vault: Option.getOrUndefined(yield* Effect.serviceOption(Vault)),
        },
        { port: options.port },
      ),
    )
    const runtime = yield* Effect.runtime<never>()
    const log = options.log ?? (() => undefined)
    const tokenDigest = digestOf(Redacted.value(options.token))
    let closed = false

    const handle = (request: Request): Effect.Effect<Response, unknown> =>
      Effect.gen(function* () {
        if (closed) {
          return yield* new HostUnavailable({
            reason: 'shutting-down',
            message: 'The host is shutting down; try again after it restarts.',
          })
        }
        const headers = request.headers
        const refusal = admit(headers, options)
        if (refusal) return yield* refusal
        const url = new URL(request.url)
        const match = router.match(request.method, url.pathname)
        switch (match._tag) {
          case 'not-found':
            return yield* new NotFound({
              reason: 'no-route',
              message:
                `There is no endpoint ${request.method} ${url.pathname.slice(0, 200)}; see docs/host.md for ` +
                `the list.`,
            })
          case 'method-not-allowed':
            return yield* checkMethod(request.method, match.allow, url.pathname)!
          case 'bad-path':
            return yield* new BadRequest({
              reason: 'invalid-parameter',
              message: 'A path parameter is not valid percent-encoding.',
            })
        }
        const route = match.value
        const raw = route.endpoint.rawBody !== undefined
        // A raw body (a staged file) is bytes of any type: its route reads them, up to the file cap.
        const mediaRefusal = raw ? undefined : checkMediaType(headers, request.body !== null || hasBody(headers))
        if (mediaRefusal) return yield* mediaRefusal
        // Only `session` routes read the key, and for them it is set just below.
        let key = undefined as unknown as SessionKey
        let upstreamProxy: UpstreamProxy | undefined
        if (route.access === 'session') {
          key = yield* Either.match(parseSessionKey(headers.get(SESSION_HEADER)), {
            onLeft: Effect.fail,
            onRight: Effect.succeed,
          })
          const denied = options.agentTokens ? checkAgentToken(options.agentTokens, headers, key) : undefined
          if (denied) return yield* denied
          // Issue #21: checked on every call (a 400 never quotes it); the call that opens the errand uses it.
          const proxyHeader = headers.get(PROXY_HEADER)
          if (proxyHeader !== null)
            upstreamProxy = yield* Either.match(parseUpstreamProxy(proxyHeader), {
              onLeft: Effect.fail,
              onRight: Effect.succeed,
            })
        } else if (route.access === 'person') {
          const unauthorized = checkBearer(headers, tokenDigest, TOKEN_WORDS)
          if (unauthorized) return yield* unauthorized
        }
        const query = route.query
          ? yield* decodeQuery(route.query, url.searchParams)
          : url.search.length > 1
            ? yield* new BadRequest({
                reason: 'invalid-parameter',
                message: `${url.pathname.slice(0, 200)} takes no query parameters.`,
              })
            : {}
        if (raw) {
          const bytes = yield* readWebBody(
            request.body,
            options.maxRawBodyBytes ?? 25 * 1024 * 1024,
            headers.get('content-length'),
          )
          const result = yield* route.run({ key, params: match.params, body: {}, query, upstreamProxy, raw: bytes })
          return json(
            200,
            yield* Effect.orDie(Schema.encodeUnknown(route.answer as Schema.Schema<unknown, unknown>)(result)),
          )
        }
        const text = yield* readText(request)
        const body = route.body
          ? yield* decodeBody(route.body, text)
          : text.trim() === ''
            ? {}
            : yield* new BadRequest({
                reason: 'invalid-body',
                message: `${request.method} ${url.pathname.slice(0, 200)} takes no body.`,
              })
        const result = yield* route.run({ key, params: match.params, body, query, upstreamProxy })
        if (result instanceof Response) return result
        // The answer goes out through its declared Schema, so the wire is what /v1/openapi.json says.
        return json(
          200,
          yield* Effect.orDie(Schema.encodeUnknown(route.answer as Schema.Schema<unknown, unknown>)(result)),
        )
      })

    const respond = (exit: Exit.Exit<Response, unknown>, request: Request): Response => {
      if (Exit.isSuccess(exit)) return exit.value
      const failure = Cause.failureOption(exit.cause)
      if (failure._tag === 'Some') {
        const response = errorResponse(failure.value)
        if (response.status >= 500)
          log(
            `${request.method} ${new URL(request.url).pathname} → ${response.status} ` +
              `${(failure.value as { _tag?: string })._tag ?? ''}`,
          )
        return response
      }
      if (Cause.isInterruptedOnly(exit.cause)) {
        return errorResponse(
          new HostUnavailable({
            reason: 'shutting-down',
            message: 'The call was cancelled (the client left or the host is stopping).',
          }),
        )
      }
      log(`${request.method} ${new URL(request.url).pathname} → 500 defect: ${Cause.pretty(exit.cause).split('\n')[0]}`)
      return errorResponse(undefined)
    }

    const fetch = (request: Request): Promise<Response> =>
      Runtime.runPromiseExit(runtime)(handle(request), { signal: request.signal }).then((exit) =>
        respond(exit, request),
      )

    return {
      fetch,
      request: (path, init = {}) => {
        const headers = new Headers(init.headers)
        if (!headers.has('host')) headers.set('host', ownHost(options))
        return fetch(new Request(`http://${ownHost(options)}${path}`, { ...init, headers }))
      },
      close: () => {
        closed = true
      },
    }
  })
