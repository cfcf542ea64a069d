// biome-ignore-all lint/suspicious/noExplicitAny: type-level matching over Schemas and endpoints of any shape
/**
 * The route table (B3): each endpoint `api.ts` declares, given its one service call. The
 * declaration holds who may call it and the Schemas of its body, query, parameters and answer;
 * here a route only says what it does, typed by them — its handler gets the decoded body and must
 * return the declared answer (or the bytes a byte answer declares), so the table cannot disagree
 * with `/v1/openapi.json`.
 *
 * @example
 * const router = new Router(routes({ browsing, person, health, stateless, devtools, sessionProxy }, { port: 7777 }))
 */
import type { DevToolsShape } from '@errands/devtools'
import { parseUpstreamProxy, type UpstreamProxy } from '@errands/runtime'
import { type PersonDriving, type SessionsShape, wheelRefusal } from '@errands/sessions'
import { Effect, Either, Option, Schema } from 'effect'
import { BadRequest, HostUnavailable } from '../errors.ts'
import { mainTarget, sessionTarget, type BrowsingShape, type Target } from '../browsing/Browsing.ts'
import type { SessionProxyShape } from '../browsing/SessionProxy.ts'
import { publicHealth, type HostHealthShape } from '../health.ts'
import type { PersonShape } from '../person/Person.ts'
import { Placement, type PlacementShape } from '../placement.ts'
import { requestHelp } from '../person/help.ts'
import { PasswordId, withVault } from '../person/passwords.ts'
import type { VaultShape } from '@errands/passwords'
import { QuestionId, requestSignIn } from '../person/signIn.ts'
import type { LendTarget } from '../schemas.ts'
import { chatConversationId, conversationIdOf, parseSessionKey, type SessionKey } from '../sessionKey.ts'
import type { StatelessShape } from '../stateless/Stateless.ts'
import { FileName } from '../schemas.ts'
import { api, type pageVerbs as declaredPageVerbs, SiteParam, TabId, type WheelTarget } from './api.ts'
import type { PersonWheelShape } from '../wheel.ts'
import type { BytesAnswer, Endpoint, RouteDef } from '@errands/edge'
import { hostOpenApi } from './openapi.ts'
import { bytes } from './respond.ts'

/** Who may call a `/v1` route: a `session` key, the `person`'s token, or anyone (`open`). */
export type Access = 'session' | 'person' | 'open'

/** What a route's handler receives (after every check passed). */
export interface RouteInput<B, Q> {
  /** The session key (routes with `session` access only). */
  readonly key: SessionKey
  readonly params: Readonly<Record<string, string>>
  readonly body: B
  readonly query: Q
  /** `X-Browser-Proxy` of a `session` call, checked (issue #21): the errand opens with it. */
  readonly upstreamProxy: UpstreamProxy | undefined
  /** The bytes of a raw body (routes declared with `rawBody` only). */
  readonly raw?: Uint8Array | undefined
}

/** A route as the app runs it: its declaration and its one service call. */
export interface Route {
  readonly endpoint: Endpoint
  readonly access: Access
  /** `undefined`: no body (empty, or `{}`). */
  readonly body: Schema.Schema<unknown, unknown> | undefined
  /** `undefined`: no query parameters. */
  readonly query: Schema.Schema<unknown, unknown> | undefined
  /** The answer's Schema (the app encodes what `run` gives with it), or a byte answer's media. */
  readonly answer: Schema.Schema<unknown, unknown> | BytesAnswer
  readonly run: (input: RouteInput<unknown, unknown>) => Effect.Effect<unknown, unknown>
}

/** The services the routes call. */
export interface RouteServices {
  readonly browsing: BrowsingShape
  readonly person: PersonShape
  readonly health: HostHealthShape
  readonly stateless: StatelessShape
  readonly devtools: DevToolsShape
  /** Where errands are held (a cluster's other hosts); absent, everything is here. */
  readonly placement?: PlacementShape | undefined
  readonly sessionProxy: SessionProxyShape
  /** What errands ask the person (P4): the boundary's one book of questions. */
  readonly questions: Pick<SessionsShape, 'question' | 'questions' | 'answerQuestion'>
  /** The wheel (P1, P2, issue #26): the host's sessions; absent, the wheel routes answer 501. */
  readonly wheel?: PersonWheelShape | undefined
  /** The person's passwords (W1); absent, the password routes answer 501. */
  readonly vault?: VaultShape | undefined
}

type Decoded<S> = S extends Schema.Schema<infer A, any, any> ? A : Record<string, never>
type Answered<A> = A extends BytesAnswer ? Response : A extends Schema.Schema<infer T, any, any> ? T : never

/** Gives a declared endpoint its service call, typed by its Schemas. */
const implement = <
  P extends string,
  B extends Endpoint['body'],
  Q extends Endpoint['query'],
  A extends Endpoint['answer'],
>(
  endpoint: Endpoint<P, B, Q, A>,
  run: (input: RouteInput<Decoded<B>, Decoded<Q>>) => Effect.Effect<Answered<A>, unknown>,
): RouteDef<Route> => ({
  method: endpoint.method,
  path: endpoint.path,
  value: {
    endpoint: endpoint as Endpoint,
    access: endpoint.access as Access,
    body: endpoint.body as Route['body'],
    query: endpoint.query as Route['query'],
    answer: endpoint.answer as Route['answer'],
    run: run as Route['run'],
  },
})

/** A path parameter decoded with `schema`, or a 400 naming it. */
const param = <A>(
  schema: Schema.Schema<A, string>,
  name: string,
  value: string | undefined,
): Effect.Effect<A, BadRequest> =>
  Schema.decodeUnknown(schema)(value).pipe(
    Effect.mapError(
      () => new BadRequest({ reason: 'invalid-parameter', message: `The path parameter ${name} is not valid.` }),
    ),
  )

const chatParam = (value: string | undefined) =>
  Effect.mapError(
    Effect.flatMap(param(Schema.String, 'chat', value), (raw) => parseSessionKey(raw)),
    () =>
      new BadRequest({ reason: 'invalid-parameter', message: 'A chat id is 1–128 characters of A–Z a–z 0–9 . _ : -.' }),
  )

const frameResponse = (frame: { data: Uint8Array; mime: string; seq: number; at: number; source: string }) =>
  bytes(frame.data, frame.mime, {
    'x-frame-seq': String(frame.seq),
    'x-frame-at': String(Math.round(frame.at)),
    'x-frame-source': frame.source,
  })

/** The page verbs declared under a prefix, each on the target the access names. */
const pageRoutes = (
  verbs: ReturnType<typeof declaredPageVerbs>,
  access: 'session' | 'person',
  b: BrowsingShape,
): Array<RouteDef<Route>> => {
  const t = (key: SessionKey, proxy: UpstreamProxy | undefined): Target =>
    access === 'session' ? sessionTarget(key, proxy) : mainTarget
  const tab = (params: Readonly<Record<string, string>>) => param(TabId, 'id', params.id)
  return [
    implement(verbs.navigate, ({ key, upstreamProxy, body }) => b.navigate(t(key, upstreamProxy), body.url)),
    implement(verbs.url, ({ key, upstreamProxy }) => b.url(t(key, upstreamProxy))),
    implement(verbs.text, ({ key, upstreamProxy }) => b.text(t(key, upstreamProxy))),
    implement(verbs.html, ({ key, upstreamProxy }) => b.html(t(key, upstreamProxy))),
    implement(verbs.screenshot, ({ key, upstreamProxy, query }) =>
      Effect.map(b.screenshot(t(key, upstreamProxy), { fullPage: query.fullPage === 'true' }), (png) =>
        bytes(png, 'image/png'),
      ),
    ),
    implement(verbs.click, ({ key, upstreamProxy, body }) => b.click(t(key, upstreamProxy), body)),
    implement(verbs.fill, ({ key, upstreamProxy, body }) => b.fill(t(key, upstreamProxy), body)),
    implement(verbs.scroll, ({ key, upstreamProxy, body }) => b.scroll(t(key, upstreamProxy), body)),
    implement(verbs.back, ({ key, upstreamProxy }) => b.back(t(key, upstreamProxy))),
    implement(verbs.forward, ({ key, upstreamProxy }) => b.forward(t(key, upstreamProxy))),
    implement(verbs.reload, ({ key, upstreamProxy }) => b.reload(t(key, upstreamProxy))),
    implement(verbs.frame, ({ key, upstreamProxy }) => Effect.map(b.frame(t(key, upstreamProxy)), frameResponse)),
    implement(verbs.state, ({ key, upstreamProxy }) => b.state(t(key, upstreamProxy))),
    implement(verbs.dialog, ({ key, upstreamProxy, body }) => b.dialog(t(key, upstreamProxy), body)),
    implement(verbs.input, ({ key, upstreamProxy, body }) => b.input(t(key, upstreamProxy), body.events)),
    implement(verbs.viewport, ({ key, upstreamProxy, body }) =>
      Effect.map(b.viewport(t(key, upstreamProxy), body), (viewport) => ({ viewport })),
    ),
    implement(verbs.tabs, ({ key, upstreamProxy }) => Effect.map(b.tabs(t(key, upstreamProxy)), (tabs) => ({ tabs }))),
    implement(verbs.openTab, ({ key, upstreamProxy, body }) =>
      Effect.map(b.openTab(t(key, upstreamProxy), body.url), (opened) => ({ tab: opened })),
    ),
    implement(verbs.activateTab, ({ key, upstreamProxy, params }) =>
      Effect.flatMap(tab(params), (id) => Effect.map(b.activateTab(t(key, upstreamProxy), id), (tabs) => ({ tabs }))),
    ),
    implement(verbs.closeTab, ({ key, upstreamProxy, params }) =>
      Effect.flatMap(tab(params), (id) => Effect.map(b.closeTab(t(key, upstreamProxy), id), (tabs) => ({ tabs }))),
    ),
    implement(verbs.evaluate, ({ key, upstreamProxy, body }) => b.evaluate(t(key, upstreamProxy), body)),
    implement(verbs.console, ({ key, upstreamProxy }) => b.console(t(key, upstreamProxy))),
    implement(verbs.network, ({ key, upstreamProxy }) => b.network(t(key, upstreamProxy))),
    implement(verbs.fillForm, ({ key, upstreamProxy, body }) => b.fillForm(t(key, upstreamProxy), body)),
    implement(verbs.drag, ({ key, upstreamProxy, body }) => b.drag(t(key, upstreamProxy), body)),
    implement(verbs.upload, ({ key, upstreamProxy, body }) => b.upload(t(key, upstreamProxy), body)),
  ]
}

/** The lend (or wheel) target's conversation id. */
const lendConversation = (
  target: typeof LendTarget.Type | typeof WheelTarget.Type,
): Effect.Effect<string, BadRequest> =>
  'session' in target
    ? Effect.map(
        Effect.mapError(
          parseSessionKey(target.session),
          (e) => new BadRequest({ reason: 'invalid-body', message: e.message }),
        ),
        conversationIdOf,
      )
    : Effect.succeed(target.conversationId)

const withWheel = (wheel: PersonWheelShape | undefined): Effect.Effect<PersonWheelShape, HostUnavailable> =>
  wheel === undefined
    ? Effect.fail(
        new HostUnavailable({
          reason: 'not-wired',
          message: 'Taking the wheel is not available in this host (no sessions are wired in).',
        }),
      )
    : Effect.succeed(wheel)

/**
 * Every route of the host: each endpoint of `api.ts` once. `port` is the host's, for the
 * document's `servers`.
 *
 * @example
 * new Router(routes(services, { port: 7777 }))
 */
export const routes = (
  {
    browsing,
    person,
    health,
    stateless,
    devtools,
    placement = Placement.here,
    sessionProxy,
    questions,
    wheel,
    vault,
  }: RouteServices,
  options: { readonly port: number },
): ReadonlyArray<RouteDef<Route>> => {
  const p = api.person
  const passwords = withVault(Option.fromNullable(vault))
  let document: Readonly<Record<string, unknown>> | undefined
  // P1, P2: the agent's task ending or parking, its release and its proxy change act on the errand
  // (acting.ts) like its page verbs: 409 while a person drives. The person's own park and release
  // (the live view, /v1/person/...) are not these routes.
  const agentsCall = <A, E>(key: SessionKey, call: string, params: Record<string, unknown>, run: Effect.Effect<A, E>) =>
    Effect.suspend(
      (): Effect.Effect<A, E | PersonDriving> =>
        wheelRefusal(person.personDriving, conversationIdOf(key), 'v1', call, params) ?? run,
    )
  return [
    // X1: the open door answers liveness and counts; the whole report is the person's.
    implement(api.health, () => Effect.map(health.report, publicHealth)),
    // Built on first ask: the declaration does not change while the host runs.
    implement(api.openapi, () => Effect.sync(() => (document ??= hostOpenApi({ port: options.port })))),
    implement(api.fetch, ({ body }) => stateless.fetch(body.url)),
    implement(api.localhosts, () => Effect.map(stateless.localhosts, (services) => ({ services }))),

    ...pageRoutes(api, 'session', browsing),
    implement(api.task, ({ key, body }) =>
      agentsCall(key, 'task', { status: body.status }, browsing.task(key, body.status)),
    ),
    implement(api.release, ({ key }) =>
      agentsCall(key, 'release', {}, Effect.as(browsing.release(key), { released: true as const })),
    ),
    // A1: brought up like every verb (opened, resumed or healed), then a fresh URL into it — minted by the host that
    // holds the errand (placement.ts): a client's WebSocket must reach the Chromium that holds its context.
    implement(api.devtools, ({ key, upstreamProxy }) =>
      Effect.zipRight(
        browsing.tabs(sessionTarget(key, upstreamProxy)),
        Effect.suspend(() => placement.devtools(key) ?? devtools.endpoint(conversationIdOf(key))),
      ),
    ),
    // Issue #21: the session's upstream proxy from now on; `null` for none (the host's default).
    implement(api.proxy, ({ key, body }) =>
      agentsCall(
        key,
        'proxy',
        {},
        Effect.flatMap(
          body.url === null
            ? Effect.succeed(undefined)
            : Either.match(parseUpstreamProxy(body.url), { onLeft: Effect.fail, onRight: Effect.succeed }),
          (proxy) => sessionProxy.set(key, proxy),
        ),
      ),
    ),
    // Issue #25: the errand's own files folder (docs/files.md).
    implement(api.downloads, ({ key, upstreamProxy }) =>
      Effect.map(browsing.downloads(sessionTarget(key, upstreamProxy)), (downloads) => ({ downloads })),
    ),
    implement(api.download, ({ key, upstreamProxy, params }) =>
      Effect.flatMap(param(FileName, 'name', params.name), (name) =>
        Effect.map(browsing.download(sessionTarget(key, upstreamProxy), name), (file) =>
          bytes(file.bytes, file.type, {
            'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
          }),
        ),
      ),
    ),
    implement(api.stageFile, ({ key, upstreamProxy, query, raw }) =>
      browsing.stageFile(sessionTarget(key, upstreamProxy), query.name, raw ?? new Uint8Array(0)),
    ),
    // P4 (issue #26): asks the person in the live view, waiting at most the body's timeoutMs.
    implement(api.signIn, ({ key, upstreamProxy, body }) =>
      requestSignIn({ browsing, person, questions })(key, body, upstreamProxy),
    ),
    // P3 (issue #26): waits for a person's hand-back from the live view.
    implement(api.help, ({ key, upstreamProxy, body }) => requestHelp({ browsing, person })(key, body, upstreamProxy)),

    // W1–W3 (docs/passwords.md): the vault's agent side; filling acts (acting.ts), so not while a person drives.
    implement(api.passwords, () => Effect.flatMap(passwords, (v) => Effect.map(v.signIns, (signIns) => ({ signIns })))),
    implement(api.fillPassword, ({ key, upstreamProxy, body }) =>
      browsing.fillPassword(sessionTarget(key, upstreamProxy), body),
    ),
    implement(p.passwords, () => Effect.flatMap(passwords, (v) => Effect.map(v.list, (list) => ({ passwords: list })))),
    implement(p.addPassword, ({ body }) => Effect.flatMap(passwords, (v) => v.add(body))),
    implement(p.changePassword, ({ params, body }) =>
      Effect.flatMap(param(PasswordId, 'id', params.id), (id) => Effect.flatMap(passwords, (v) => v.update(id, body))),
    ),
    implement(p.removePassword, ({ params }) =>
      Effect.flatMap(param(PasswordId, 'id', params.id), (id) =>
        Effect.flatMap(passwords, (v) => Effect.as(v.remove(id), { deleted: true as const })),
      ),
    ),
    implement(p.importPasswords, ({ body }) => Effect.flatMap(passwords, (v) => v.importCsv(body.csv))),
    implement(p.health, () => health.report),
    implement(p.settings, () => person.settings),
    implement(p.allowAlways, ({ body }) => person.allowAlways(body.site)),
    implement(p.revoke, ({ params }) => Effect.flatMap(param(SiteParam, 'site', params.site), person.revoke)),
    implement(p.setTrust, ({ body }) => person.setTrust(body.mode)),
    implement(p.signOutEverywhere, () => person.signOutEverywhere),
    implement(p.permission, ({ body }) => Effect.flatMap(lendConversation(body), (id) => person.ask(id, body.site))),
    implement(p.lend, ({ body }) => Effect.flatMap(lendConversation(body), (id) => person.allow(id, body.site))),
    implement(p.ownBrowser, ({ params, body }) =>
      Effect.flatMap(chatParam(params.chat), (chat) => person.ownBrowser(chatConversationId(chat), body.on)),
    ),
    implement(p.deleteChat, ({ params }) =>
      Effect.flatMap(chatParam(params.chat), (chat) =>
        Effect.as(person.deleteChat(chatConversationId(chat)), { deleted: true as const }),
      ),
    ),
    implement(p.sessions, () => Effect.map(person.sessions, (sessions) => ({ sessions }))),
    // The host's own release: it also drops the session's host-side state (frames, viewport).
    implement(p.releaseSession, ({ params }) =>
      Effect.flatMap(chatParam(params.key), (key) => Effect.as(browsing.release(key), { released: true as const })),
    ),
    implement(p.questions, () => Effect.map(questions.questions, (qs) => ({ questions: qs }))),
    implement(p.answerQuestion, ({ params, body }) =>
      Effect.flatMap(param(QuestionId, 'id', params.id), (id) =>
        Effect.map(questions.answerQuestion(id, body.answer), (question) => ({ question, answer: body.answer })),
      ),
    ),
    ...pageRoutes(p.main, 'person', browsing),
    // The XState inspector (V3, docs/inspector.md): its status and its switch.
    implement(p.inspector, () => person.inspector),
    implement(p.setInspector, ({ body }) => person.setInspector(body.on)),
    // P1, P2 (issue #26): the live view's wheel buttons as routes; the note is the agent's only (P5).
    implement(p.takeWheel, ({ body }) =>
      Effect.flatMap(withWheel(wheel), (w) => Effect.flatMap(lendConversation(body), w.takeWheel)),
    ),
    implement(p.handBack, ({ body }) =>
      Effect.flatMap(withWheel(wheel), (w) =>
        Effect.flatMap(lendConversation(body), (id) =>
          Effect.as(w.handBack(id, body.note?.trim() || undefined), { conversationId: id, handedBack: true as const }),
        ),
      ),
    ),
  ]
}
