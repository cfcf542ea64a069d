// biome-ignore-all lint/suspicious/noExplicitAny: type-level matching over Schemas and endpoints of any shape
/**
 * The live view's JSON API, served (V1, V3, E2, P1–P4, W1): each route `endpoints.ts` declares, given its one
 * call, and the one order every call goes through once the gate (`gate.ts`: Host, Origin, media type) let
 * it in — the route and method (404, 405 with `Allow`), the sign-in (401, X4), the body read up to the
 * route's limit (413) and decoded by the edge's one decoder with its words (400), the path parameters
 * decoded with their Schemas (400), the call, and its answer encoded with the declared Schema. Every
 * refusal and failure is an `@errands/edge` error, answered by its renderer.
 *
 * @example
 * const api = makeLiveApi({ sessions, runtime, auth, options, run, readState, pushState, log })
 * await api(req, res, '/live/api/conversations/session%3Ak1/park')
 */
import {
  BadRequest,
  checkMethod,
  decodeBody,
  decodeParams,
  type Endpoint,
  NotFound,
  readNodeBody,
  type RouteDef,
  Router,
  sendError,
  sendJson,
  Unauthorized,
  utf8,
} from '@errands/edge'
import type { PageInput, RuntimeShape } from '@errands/runtime'
import type { SessionsShape } from '@errands/sessions'
import { Effect, Either, Schema } from 'effect'
import type * as http from 'node:http'
import { type LiveAuth, liveIdOf } from './auth.ts'
import { liveApi } from './endpoints.ts'
import { signInRefusal } from './gate.ts'
import { MAX_IMPORT_BODY, shown, shownReport } from './passwords.ts'
import type { LiveState } from './protocol.ts'
import type { LiveViewOptions } from './server.ts'
import { applyWheelInput } from './wheel.ts'

/** The largest body the live view reads (bytes). */
export const MAX_LIVE_BODY = 16 * 1024

/** What the API works with. */
export interface LiveApiDeps {
  readonly sessions: SessionsShape
  readonly runtime: RuntimeShape
  readonly auth: LiveAuth
  readonly options: Pick<
    LiveViewOptions,
    'inspector' | 'release' | 'ownBrowser' | 'park' | 'resume' | 'wheel' | 'passwords'
  >
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly readState: Effect.Effect<LiveState>
  readonly pushState: () => void
  readonly log: (line: string) => void
}

/** What a route's call receives, decoded. */
export interface LiveRouteInput<B, P> {
  readonly params: P
  readonly body: B
  readonly headers: http.IncomingHttpHeaders
}

/** A route as the API runs it: its declaration, the body it reads at most, and its one call. */
export interface LiveRoute {
  readonly endpoint: Endpoint
  readonly limit: number
  readonly run: (input: LiveRouteInput<any, any>) => Effect.Effect<unknown, unknown>
}

type Decoded<S> = S extends Schema.Schema<infer A, any, any> ? A : Record<string, never>
type Params<E extends Endpoint> = { readonly [K in keyof E['params']]: Decoded<E['params'][K]> }

/** Gives a declared endpoint its call, typed by its Schemas. */
const implement = <E extends Endpoint<string, any, any, Schema.Schema<any, any, never>>>(
  endpoint: E,
  run: (input: LiveRouteInput<Decoded<E['body']>, Params<E>>) => Effect.Effect<Decoded<E['answer']>, unknown>,
  limit = MAX_LIVE_BODY,
): RouteDef<LiveRoute> => ({
  method: endpoint.method,
  path: endpoint.path,
  value: { endpoint: endpoint as Endpoint, limit, run },
})

const noSwitch = () => new NotFound({ reason: 'no-route', message: 'This host has no inspector switch.' })
const noVault = () =>
  new NotFound({ reason: 'no-route', message: 'This host keeps no passwords (no vault is wired in).' })

/**
 * The live view's route table: every endpoint of {@link liveApi}, each with its call.
 *
 * @example
 * new Router(liveRoutes(deps)).match('POST', '/live/api/conversations/c1/park')
 */
export const liveRoutes = (deps: LiveApiDeps): ReadonlyArray<RouteDef<LiveRoute>> => {
  // `deps` is read at each call, never here: the table is built (and its declaration read) before anything runs.
  // An action answers the state after it, and pushes it to every open page.
  const action = (effect: Effect.Effect<unknown, unknown>) =>
    Effect.map(Effect.zipRight(effect, deps.readState), (state) => {
      deps.pushState()
      return { state }
    })
  const wheel = () => deps.options.wheel ?? deps.sessions
  const vault = <A>(f: (passwords: NonNullable<LiveViewOptions['passwords']>) => Effect.Effect<A, unknown>) =>
    deps.options.passwords === undefined ? Effect.fail(noVault()) : f(deps.options.passwords)
  return [
    implement(liveApi.signIn, ({ body }) => {
      const token = body.token
      const id = typeof token === 'string' ? deps.auth.signIn(token.trim()) : undefined
      // X4: the id goes to the page's script, which holds it in memory; no cookie is set.
      if (id !== undefined) return Effect.succeed({ signedIn: true as const, id })
      return Effect.fail(
        new Unauthorized({
          reason: typeof token === 'string' && token !== '' ? 'wrong-token' : 'missing-token',
          message: "That is not this host's token; copy it from the host-token file in the data directory.",
        }),
      )
    }),
    implement(liveApi.signOut, ({ headers }) =>
      Effect.sync(() => {
        deps.auth.signOut(liveIdOf(headers))
        return { signedIn: false as const }
      }),
    ),
    implement(liveApi.state, () => deps.readState),
    implement(liveApi.inspector, ({ body }) =>
      deps.options.inspector ? action(deps.options.inspector.set(body.on)) : Effect.fail(noSwitch()),
    ),
    // P4: the same answer as the person's POST /v1/person/questions/:id, to the boundary's one book.
    implement(liveApi.question, ({ params, body }) => action(deps.sessions.answerQuestion(params.id, body.answer))),
    implement(liveApi.park, ({ params }) => action((deps.options.park ?? deps.sessions.park)(params.id))),
    implement(liveApi.resume, ({ params }) => action((deps.options.resume ?? deps.sessions.resume)(params.id))),
    implement(liveApi.close, ({ params }) => action(deps.options.release(params.id))),
    implement(liveApi.ownBrowser, ({ params, body }) => action(deps.options.ownBrowser(params.id, body.on))),
    // P1, P2: take the wheel, hand back, and the person's input while they drive — where the errand is (K4).
    implement(liveApi.takeWheel, ({ params }) => action(wheel().takeWheel(params.id))),
    implement(liveApi.handBack, ({ params, body }) => {
      const note = typeof body.note === 'string' && body.note.trim() !== '' ? body.note.trim() : undefined
      return action(wheel().handBack(params.id, note))
    }),
    implement(liveApi.input, ({ params, body }) => {
      const events = body.events as ReadonlyArray<PageInput>
      return deps.options.wheel?.input
        ? deps.options.wheel.input(params.id, events)
        : applyWheelInput({ sessions: deps.sessions, runtime: deps.runtime }, params.id, events)
    }),
    // W1: the person's saved sign-ins; the import reads its own, larger limit.
    implement(liveApi.passwords, () => vault((p) => Effect.map(p.list, (list) => ({ passwords: list.map(shown) })))),
    implement(liveApi.addPassword, ({ body }) => vault((p) => Effect.map(p.add(body), shown))),
    implement(
      liveApi.importPasswords,
      ({ body }) => vault((p) => Effect.map(p.importCsv(body.csv), shownReport)),
      MAX_IMPORT_BODY,
    ),
    implement(liveApi.updatePassword, ({ params, body }) => vault((p) => Effect.map(p.update(params.id, body), shown))),
    implement(liveApi.removePassword, ({ params }) =>
      vault((p) => Effect.as(p.remove(params.id), { deleted: true as const })),
    ),
  ]
}

/**
 * The API handler for the live view's declared paths (`/live/sign-in`, `/live/sign-out`, `/live/api/…`).
 *
 * @example
 * await makeLiveApi(deps)(req, res, '/live/api/state')
 */
export const makeLiveApi = (deps: LiveApiDeps) => {
  const router = new Router<LiveRoute>(liveRoutes(deps))

  const answer = (req: http.IncomingMessage, path: string): Effect.Effect<unknown, unknown> =>
    Effect.gen(function* () {
      const method = req.method ?? 'GET'
      const match = router.match(method, path)
      switch (match._tag) {
        case 'not-found':
          return yield* new NotFound({
            reason: 'no-route',
            message: `There is no live-view endpoint ${path.slice(0, 200)}.`,
          })
        case 'method-not-allowed':
          return yield* checkMethod(method, match.allow, path)!
        case 'bad-path':
          return yield* new BadRequest({
            reason: 'invalid-parameter',
            message: 'A path parameter is not valid percent-encoding.',
          })
      }
      const { endpoint, limit, run } = match.value
      if (endpoint.access === 'live') {
        const unsigned = signInRefusal(deps.auth, liveIdOf(req.headers))
        if (unsigned) return yield* unsigned
      }
      const text = utf8(yield* readNodeBody(req, limit))
      const body = endpoint.body
        ? yield* decodeBody(endpoint.body, text)
        : text.trim() === ''
          ? {}
          : yield* new BadRequest({ reason: 'invalid-body', message: `${method} ${path.slice(0, 200)} takes no body.` })
      const params = yield* decodeParams(endpoint.params, match.params)
      const result = yield* run({ params, body, headers: req.headers })
      // The answer goes out through its declared Schema, so the wire is what /v1/openapi.json says.
      return yield* Effect.orDie(Schema.encodeUnknown(endpoint.answer as Schema.Schema<unknown, unknown>)(result))
    })

  return async (req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<void> => {
    const outcome = await deps.run(Effect.either(answer(req, path)))
    if (Either.isRight(outcome)) return sendJson(res, 200, outcome.right)
    const f = sendError(res, outcome.left)
    if (f.status >= 500) deps.log(`live view: ${req.method ?? 'GET'} ${path.slice(0, 100)} failed with ${f.code}`)
  }
}
