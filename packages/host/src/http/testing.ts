/**
 * The app in-process on fakes, for router tests (and for embedders testing their client): no
 * port, no browser. Every service call is recorded, so a test can prove that a refused request
 * reached nothing.
 *
 * @example
 * const t = testApp()
 * const res = await t.app.request('/v1/url', { headers: { 'x-browser-session': 'k1' } })
 * expect(t.calls).toHaveLength(1)
 */
import { randomBytes } from 'node:crypto'
import { DevTools } from '@errands/devtools'
import { makeVault, memoryStorage, Vault } from '@errands/passwords'
import { QuestionBook, Sessions } from '@errands/sessions'
import { deviceKey } from '@errands/store'
import { Effect, Layer, Redacted } from 'effect'
import { Browsing, type BrowsingShape, type RecordedCall } from '../browsing/Browsing.ts'
import { SessionProxy } from '../browsing/SessionProxy.ts'
import { HostHealth } from '../health.ts'
import { Person, type PersonShape } from '../person/Person.ts'
import { Stateless } from '../stateless/Stateless.ts'
import { PersonWheel } from '../wheel.ts'
import { makeApp, type App } from './app.ts'

/** A test token (64 hex characters). @example headers: { authorization: `Bearer ${TEST_TOKEN}` } */
export const TEST_TOKEN = 'ab'.repeat(32)

/** What {@link testApp} returns. */
export interface TestApp {
  readonly app: App
  /** Every call that reached a service (browsing, person, stateless). */
  readonly calls: Array<RecordedCall | { readonly method: string; readonly args: ReadonlyArray<unknown> }>
}

/**
 * The app on recording fakes, as the host on `port` (default 7777).
 *
 * @example
 * const { app, calls } = testApp({ browsing: { url: () => Effect.fail(AllBusy.of(2)) } })
 */
export const testApp = (
  overrides: {
    readonly browsing?: Partial<BrowsingShape>
    readonly person?: Partial<PersonShape>
    readonly port?: number
    readonly maxRawBodyBytes?: number
  } = {},
): TestApp => {
  const calls: TestApp['calls'] = []
  const record =
    (method: string) =>
    (...args: ReadonlyArray<unknown>) => {
      calls.push({ method, args })
    }
  let inspecting = false
  const inspectorStatus = () => ({
    on: inspecting,
    url: inspecting ? 'http://127.0.0.1:7778/' : null,
    events: inspecting ? 'ws://127.0.0.1:7778/' : null,
    viewer: 'https://stately.ai/inspect',
    actors: 0,
    how: '',
    network: '',
    error: null,
  })
  const person: PersonShape = {
    settings: Effect.sync(
      () => (record('settings')(), { version: 1 as const, alwaysAllowed: [], trust: 'ask' as const }),
    ),
    allowAlways: (site) =>
      Effect.sync(
        () => (record('allowAlways')(site), { version: 1 as const, alwaysAllowed: [site], trust: 'ask' as const }),
      ),
    revoke: (site) => Effect.sync(() => (record('revoke')(site), { sites: [site], errands: [], dropped: [] })),
    setTrust: (mode) =>
      Effect.sync(() => (record('setTrust')(mode), { version: 1 as const, alwaysAllowed: [], trust: mode })),
    signOutEverywhere: Effect.sync(
      () => (record('signOutEverywhere')(), { sites: 'all' as const, errands: [], dropped: [] }),
    ),
    ask: (id, site) =>
      Effect.sync(() => (record('ask')(id, site), { site, lendsSignIn: true, decision: 'ask' as const })),
    allow: (id, site) =>
      Effect.sync(
        () => (
          record('allow')(id, site), { site, conversationId: id, where: 'open' as const, cookies: [], origins: [] }
        ),
      ),
    ownBrowser: (id, on) =>
      Effect.sync(
        () => (
          record('ownBrowser')(id, on),
          {
            conversationId: id,
            kind: 'chat' as const,
            reason: on ? ('own-browser' as const) : ('main' as const),
            state: on ? 'active' : 'main',
            detail: '',
            driven: false,
            watched: false,
            lastUsedAt: 0,
            parkedAt: null,
            lentSites: [],
            contextId: null,
            lastError: null,
          }
        ),
      ),
    deleteChat: (id) => Effect.sync(() => record('deleteChat')(id)),
    sessions: Effect.sync(() => (record('sessions')(), [])),
    release: (id) => Effect.sync(() => record('release')(id)),
    inspector: Effect.sync(() => (record('inspector')(), inspectorStatus())),
    setInspector: (on) => Effect.sync(() => (record('setInspector')(on), (inspecting = on), inspectorStatus())),
    askForHelp: (id, reason, timeoutMs) =>
      Effect.sync(() => (record('askForHelp')(id, reason, timeoutMs), { handedBack: true as const, note: null })),
    personDriving: () => false,
    view: (id) =>
      Effect.sync(
        () => (
          record('view')(id),
          {
            conversationId: id,
            kind: 'task' as const,
            reason: 'task' as const,
            state: 'active',
            detail: '',
            driven: false,
            watched: false,
            lastUsedAt: 0,
            parkedAt: null,
            lentSites: [],
            contextId: null,
            lastError: null,
          }
        ),
      ),
    asked: (id, ask) => Effect.sync(() => record('asked')(id, ask)),
    answered: (id, askId, outcome) => Effect.sync(() => record('answered')(id, askId, outcome)),
    ...overrides.person,
  }
  const view = (id: string, personDriving: boolean) => ({
    conversationId: id,
    kind: 'task' as const,
    reason: 'task' as const,
    state: 'active',
    detail: 'active',
    driven: false,
    watched: false,
    lastUsedAt: 0,
    parkedAt: null,
    lentSites: [],
    contextId: 'fake',
    lastError: null,
    ...(personDriving ? { personDriving: true as const } : {}),
  })
  const layer = Layer.mergeAll(
    // P1, P2 (issue #26): the wheel routes' service.
    Layer.succeed(PersonWheel, {
      takeWheel: (id) => Effect.sync(() => (record('takeWheel')(id), view(id, true))),
      handBack: (id, note) => Effect.sync(() => record('handBack')(id, note)),
    }),
    Browsing.layerRecording(calls as Array<RecordedCall>, overrides.browsing),
    // W1: a real vault, kept in memory under a fresh key.
    Layer.effect(Vault, makeVault(memoryStorage(), deviceKey(randomBytes(32)))),
    Layer.succeed(Person, person),
    // P4: the boundary's book of questions; every other verb of the boundary dies loudly (the routes use Browsing).
    Layer.unwrapEffect(
      Effect.sync(() => {
        const book = new QuestionBook()
        return Sessions.layerTest({
          question: (id, about, timeoutMs) => book.ask(id, about, timeoutMs),
          questions: book.pending,
          answerQuestion: (id, answer) => book.answer(id, answer),
          onQuestions: (listener) => book.onChange(listener),
        })
      }),
    ),
    HostHealth.layerTest({
      ok: true,
      runtime: { kind: 'memory', where: 'local' },
      open: 0,
      parked: 0,
      frozen: 0,
      cap: 2,
      sessions: 0,
      personDriving: 0,
      waitingForPerson: 0,
      messages: [],
    }),
    Stateless.layerTest({
      fetch: (url) =>
        Effect.sync(
          () => (
            record('fetch')(url),
            { url, status: 200, headers: {}, body: '', encoding: 'utf-8' as const, truncated: false, redirects: 0 }
          ),
        ),
      localhosts: Effect.sync(() => (record('localhosts')(), [])),
    }),
    SessionProxy.layerTest({
      set: (key, proxy) =>
        Effect.sync(
          () => (
            record('sessionProxy')(key, proxy),
            { upstreamProxy: proxy === undefined ? ('none' as const) : ('set' as const) }
          ),
        ),
    }),
    DevTools.layerTest({
      endpoint: (id) => Effect.sync(() => (record('devtools')(id), { url: 'ws://127.0.0.1:7777/devtools/test-token' })),
    }),
  )
  const app = Effect.runSync(
    makeApp({
      port: overrides.port ?? 7777,
      token: Redacted.make(TEST_TOKEN),
      maxRawBodyBytes: overrides.maxRawBodyBytes,
    }).pipe(Effect.provide(layer)),
  )
  return { app, calls }
}
