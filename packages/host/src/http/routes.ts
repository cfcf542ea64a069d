/**
 * The route table (B3): every endpoint, who may call it (`session` key, the `person`'s token,
 * or `open`), the schema of its body and query, and the one service call it makes. The page
 * verbs are defined once and mounted twice: under `/v1` for sessions and under
 * `/v1/person/main` for the person's main context (signing in).
 *
 * @example
 * const router = new Router(routes({ browsing, person, health, stateless }))
 */
import type { DevToolsShape } from '@errands/devtools'
import { parseUpstreamProxy, type UpstreamProxy } from '@errands/runtime'
import { Effect, Either, Schema } from 'effect'
import { BadRequest } from '../errors.ts'
import { mainTarget, sessionTarget, type BrowsingShape, type Target } from '../browsing/Browsing.ts'
import type { SessionProxyShape } from '../browsing/SessionProxy.ts'
import { publicHealth, type HostHealthShape } from '../health.ts'
import type { PersonShape } from '../person/Person.ts'
import {
  ClickBody, DialogBody, EmptyBody, FillBody, InputBody, InspectorBody, LendTarget, NavigateBody, OwnBrowserBody, ProxyBody, ScreenshotQuery, ScrollBody,
  SiteBody, TaskBody, TrustBody, ViewportBody,
} from '../schemas.ts'
import { chatConversationId, conversationIdOf, parseSessionKey, SessionKey } from '../sessionKey.ts'
import type { StatelessShape } from '../stateless/Stateless.ts'
import { bytes } from './respond.ts'
import type { RouteDef } from './router.ts'

/** Who may call a route. */
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
}

/** A route as the app runs it. */
export interface Route {
  readonly access: Access
  /** `undefined`: no body (empty, or `{}`). */
  readonly body: Schema.Schema<unknown, unknown> | undefined
  /** `undefined`: no query parameters. */
  readonly query: Schema.Schema<unknown, unknown> | undefined
  readonly run: (input: RouteInput<unknown, unknown>) => Effect.Effect<Response | object, unknown>
}

/** The services the routes call. */
export interface RouteServices {
  readonly browsing: BrowsingShape
  readonly person: PersonShape
  readonly health: HostHealthShape
  readonly stateless: StatelessShape
  readonly devtools: DevToolsShape
  readonly sessionProxy: SessionProxyShape
}

const def = <B = Record<string, never>, Q = Record<string, never>>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  access: Access,
  spec: {
    readonly body?: Schema.Schema<B, any> | undefined
    readonly query?: Schema.Schema<Q, any> | undefined
    readonly run: (input: RouteInput<B, Q>) => Effect.Effect<Response | object, unknown>
  },
): RouteDef<Route> => ({
  method,
  path,
  value: {
    access,
    body: spec.body as Schema.Schema<unknown, unknown> | undefined,
    query: spec.query as Schema.Schema<unknown, unknown> | undefined,
    run: spec.run as Route['run'],
  },
})

const TabId = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/))

/** A path parameter decoded with `schema`, or a 400 naming it. */
const param = <A>(schema: Schema.Schema<A, string>, name: string, value: string | undefined): Effect.Effect<A, BadRequest> =>
  Schema.decodeUnknown(schema)(value).pipe(
    Effect.mapError(() => new BadRequest({ reason: 'invalid-parameter', message: `The path parameter ${name} is not valid.` })),
  )

const chatParam = (value: string | undefined) =>
  Effect.mapError(
    Effect.flatMap(param(Schema.String, 'chat', value), (raw) => parseSessionKey(raw)),
    () => new BadRequest({ reason: 'invalid-parameter', message: 'A chat id is 1–128 characters of A–Z a–z 0–9 . _ : -.' }),
  )

const frameResponse = (frame: { data: Uint8Array; mime: string; seq: number; at: number; source: string }) =>
  bytes(frame.data, frame.mime, {
    'x-frame-seq': String(frame.seq),
    'x-frame-at': String(Math.round(frame.at)),
    'x-frame-source': frame.source,
  })

/** The page verbs, under `prefix`, each on the target the access names. */
const pageVerbs = (prefix: string, access: 'session' | 'person', b: BrowsingShape): Array<RouteDef<Route>> => {
  const t = (key: SessionKey, proxy: UpstreamProxy | undefined): Target => (access === 'session' ? sessionTarget(key, proxy) : mainTarget)
  const tab = (params: Readonly<Record<string, string>>) => param(TabId, 'id', params['id'])
  return [
    def('POST', `${prefix}/navigate`, access, { body: NavigateBody, run: ({ key, upstreamProxy, body }) => b.navigate(t(key, upstreamProxy), body.url) }),
    def('GET', `${prefix}/url`, access, { run: ({ key, upstreamProxy }) => b.url(t(key, upstreamProxy)) }),
    def('GET', `${prefix}/text`, access, { run: ({ key, upstreamProxy }) => b.text(t(key, upstreamProxy)) }),
    def('GET', `${prefix}/html`, access, { run: ({ key, upstreamProxy }) => b.html(t(key, upstreamProxy)) }),
    def('GET', `${prefix}/screenshot`, access, {
      query: ScreenshotQuery,
      run: ({ key, upstreamProxy, query }) => Effect.map(b.screenshot(t(key, upstreamProxy), { fullPage: query.fullPage === 'true' }), (png) => bytes(png, 'image/png')),
    }),
    def('POST', `${prefix}/click`, access, { body: ClickBody, run: ({ key, upstreamProxy, body }) => b.click(t(key, upstreamProxy), body) }),
    def('POST', `${prefix}/fill`, access, { body: FillBody, run: ({ key, upstreamProxy, body }) => b.fill(t(key, upstreamProxy), body) }),
    def('POST', `${prefix}/scroll`, access, { body: ScrollBody, run: ({ key, upstreamProxy, body }) => b.scroll(t(key, upstreamProxy), body) }),
    def('POST', `${prefix}/back`, access, { body: EmptyBody, run: ({ key, upstreamProxy }) => b.back(t(key, upstreamProxy)) }),
    def('POST', `${prefix}/forward`, access, { body: EmptyBody, run: ({ key, upstreamProxy }) => b.forward(t(key, upstreamProxy)) }),
    def('POST', `${prefix}/reload`, access, { body: EmptyBody, run: ({ key, upstreamProxy }) => b.reload(t(key, upstreamProxy)) }),
    def('GET', `${prefix}/frame`, access, { run: ({ key, upstreamProxy }) => Effect.map(b.frame(t(key, upstreamProxy)), frameResponse) }),
    def('GET', `${prefix}/state`, access, { run: ({ key, upstreamProxy }) => b.state(t(key, upstreamProxy)) }),
    def('POST', `${prefix}/dialog`, access, { body: DialogBody, run: ({ key, upstreamProxy, body }) => b.dialog(t(key, upstreamProxy), body) }),
    def('POST', `${prefix}/input`, access, { body: InputBody, run: ({ key, upstreamProxy, body }) => b.input(t(key, upstreamProxy), body.events) }),
    def('POST', `${prefix}/viewport`, access, { body: ViewportBody, run: ({ key, upstreamProxy, body }) => Effect.map(b.viewport(t(key, upstreamProxy), body), (viewport) => ({ viewport })) }),
    def('GET', `${prefix}/tabs`, access, { run: ({ key, upstreamProxy }) => Effect.map(b.tabs(t(key, upstreamProxy)), (tabs) => ({ tabs })) }),
    def('POST', `${prefix}/tabs`, access, { body: NavigateBody, run: ({ key, upstreamProxy, body }) => Effect.map(b.openTab(t(key, upstreamProxy), body.url), (opened) => ({ tab: opened })) }),
    def('POST', `${prefix}/tabs/:id/activate`, access, {
      body: EmptyBody,
      run: ({ key, upstreamProxy, params }) => Effect.flatMap(tab(params), (id) => Effect.map(b.activateTab(t(key, upstreamProxy), id), (tabs) => ({ tabs }))),
    }),
    def('DELETE', `${prefix}/tabs/:id`, access, {
      run: ({ key, upstreamProxy, params }) => Effect.flatMap(tab(params), (id) => Effect.map(b.closeTab(t(key, upstreamProxy), id), (tabs) => ({ tabs }))),
    }),
  ]
}

/** The lend target's conversation id. */
const lendConversation = (target: typeof LendTarget.Type): Effect.Effect<string, BadRequest> =>
  'session' in target
    ? Effect.map(
        Effect.mapError(parseSessionKey(target.session), (e) => new BadRequest({ reason: 'invalid-body', message: e.message })),
        conversationIdOf,
      )
    : Effect.succeed(target.conversationId)

/**
 * Every route of the host.
 *
 * @example
 * new Router(routes(services))
 */
export const routes = ({ browsing, person, health, stateless, devtools, sessionProxy }: RouteServices): ReadonlyArray<RouteDef<Route>> => [
  // X1: the open door answers liveness and counts; the whole report is the person's.
  def('GET', '/health', 'open', { run: () => Effect.map(health.report, publicHealth) }),
  def('GET', '/v1/person/health', 'person', { run: () => health.report }),
  def('POST', '/v1/fetch', 'open', { body: NavigateBody, run: ({ body }) => stateless.fetch(body.url) }),
  def('GET', '/v1/localhosts', 'open', { run: () => Effect.map(stateless.localhosts, (services) => ({ services })) }),

  ...pageVerbs('/v1', 'session', browsing),
  def('POST', '/v1/session/task', 'session', { body: TaskBody, run: ({ key, body }) => browsing.task(key, body.status) }),
  def('DELETE', '/v1/session', 'session', { run: ({ key }) => Effect.as(browsing.release(key), { released: true }) }),
  // A1: brought up like every verb (opened, resumed or healed), then a fresh URL into it.
  def('GET', '/v1/session/devtools', 'session', {
    run: ({ key, upstreamProxy }) => Effect.zipRight(browsing.tabs(sessionTarget(key, upstreamProxy)), devtools.endpoint(conversationIdOf(key))),
  }),
  // Issue #21: the session's upstream proxy from now on; `null` for none (the host's default).
  def('PUT', '/v1/session/proxy', 'session', {
    body: ProxyBody,
    run: ({ key, body }) =>
      Effect.flatMap(
        body.url === null ? Effect.succeed(undefined) : Either.match(parseUpstreamProxy(body.url), { onLeft: Effect.fail, onRight: Effect.succeed }),
        (proxy) => sessionProxy.set(key, proxy),
      ),
  }),

  def('GET', '/v1/person/settings', 'person', { run: () => person.settings }),
  def('POST', '/v1/person/settings/always-allowed', 'person', { body: SiteBody, run: ({ body }) => person.allowAlways(body.site) }),
  def('DELETE', '/v1/person/settings/always-allowed/:site', 'person', {
    run: ({ params }) => Effect.flatMap(param(Schema.String.pipe(Schema.maxLength(253)), 'site', params['site']), person.revoke),
  }),
  def('PUT', '/v1/person/settings/trust', 'person', { body: TrustBody, run: ({ body }) => person.setTrust(body.mode) }),
  def('POST', '/v1/person/sign-out-everywhere', 'person', { body: EmptyBody, run: () => person.signOutEverywhere }),
  def('POST', '/v1/person/permission', 'person', {
    body: LendTarget,
    run: ({ body }) => Effect.flatMap(lendConversation(body), (id) => person.ask(id, body.site)),
  }),
  def('POST', '/v1/person/lend', 'person', {
    body: LendTarget,
    run: ({ body }) => Effect.flatMap(lendConversation(body), (id) => person.allow(id, body.site)),
  }),
  def('POST', '/v1/person/chats/:chat/own-browser', 'person', {
    body: OwnBrowserBody,
    run: ({ params, body }) => Effect.flatMap(chatParam(params['chat']), (chat) => person.ownBrowser(chatConversationId(chat), body.on)),
  }),
  def('DELETE', '/v1/person/chats/:chat', 'person', {
    run: ({ params }) => Effect.flatMap(chatParam(params['chat']), (chat) => Effect.as(person.deleteChat(chatConversationId(chat)), { deleted: true })),
  }),
  def('GET', '/v1/person/sessions', 'person', { run: () => Effect.map(person.sessions, (sessions) => ({ sessions })) }),
  def('DELETE', '/v1/person/sessions/:key', 'person', {
    run: ({ params }) =>
      // The host's own release: it also drops the session's host-side state (frames, viewport).
      Effect.flatMap(chatParam(params['key']), (key) => Effect.as(browsing.release(key), { released: true })),
  }),
  ...pageVerbs('/v1/person/main', 'person', browsing),
  // The XState inspector (V3, docs/inspector.md): its status and its switch.
  def('GET', '/v1/person/inspector', 'person', { run: () => person.inspector }),
  def('PUT', '/v1/person/inspector', 'person', { body: InspectorBody, run: ({ body }) => person.setInspector(body.on) }),
]
