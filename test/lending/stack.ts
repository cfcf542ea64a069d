/**
 * The whole engine on real Chromium for the lending tests: `ChromiumRuntime`, the sealed store on
 * disk, file settings, the supervisor seeded by lending, and `Lending` — with every log line
 * (Effect's and the runtime's) and every inspector event collected, so a test can scan them (L7).
 *
 * Fixture sites have real host names: the runtime gets `--host-resolver-rules` (its `extraArgs`)
 * mapping `*.example`, `*.github.io` and `github.io` to 127.0.0.1, where {@link serveNamedSites} answers.
 *
 * @example
 * const s = await startStack({ alwaysAllowed: ['shop.example'] })
 * await s.signInMain('shop.example', 'sid', '.shop.example')
 * await s.run(Effect.flatMap(Supervisor, (sup) => sup.open({ id: 't1', kind: 'task' })))
 * expect(await s.probe('t1', 'shop.example')).toEqual(['sid'])
 * await s.stop()
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Lending, Settings } from '@errands/lending'
import { MAIN_CONTEXT, Runtime } from '@errands/runtime'
import { ChromiumRuntime } from '@errands/runtime-chromium'
import { SealedStore } from '@errands/store'
import { defaultSettings, sessionsLayer, Supervisor } from '@errands/supervisor'
import { createInspector, type StatelyInspectionEvent } from '@statelyai/inspect'
import { Effect, Layer, Logger, ManagedRuntime } from 'effect'
import { serveNamedSites, type NamedSites } from './server.ts'

/** Host names the fixture sites answer on, all mapped to 127.0.0.1. */
export const RESOLVER_RULES = 'MAP *.example 127.0.0.1, MAP *.github.io 127.0.0.1, MAP github.io 127.0.0.1'

/** The services a lending test runs effects against. */
export type Services = Lending | Supervisor | Runtime | SealedStore | Settings

/** A running stack and what it said. */
export interface Stack {
  readonly server: NamedSites
  readonly chromium: ChromiumRuntime
  readonly dataDir: string
  /** Effect log lines (level + message + annotations). */
  readonly logs: Array<string>
  /** The Chromium runtime's own log lines. */
  readonly runtimeLogs: Array<string>
  /** Every event the XState inspector received. */
  readonly inspection: Array<StatelyInspectionEvent>
  readonly run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>
  /** Runs an effect that must fail and returns its error (also kept for the secrets scan). */
  readonly failure: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<E>
  readonly errors: Array<unknown>
  /** The person signs in to `host` in the main context: cookie `name` (host-only, or `Domain=domain`). */
  readonly signInMain: (host: string, name: string, domain?: string) => Promise<void>
  /** A page of `host` in the main context writes localStorage `key`. */
  readonly storeMain: (host: string, key: string) => Promise<void>
  /** The errand of `conversationId` signs in to `host` itself. */
  readonly signInErrand: (conversationId: string, host: string, name: string) => Promise<void>
  /** Names of the cookies `conversationId`'s context (or `main`) sends to `host`, on the wire. */
  readonly probe: (conversationId: string, host: string) => Promise<ReadonlyArray<string>>
  readonly stop: () => Promise<void>
}

let probes = 0

/**
 * Starts the stack with these browser settings written to `<dataDir>/settings.json`.
 *
 * @example
 * const s = await startStack({ alwaysAllowed: ['alice.github.io'], trust: 'ask' })
 */
export const startStack = async (
  settings: { readonly alwaysAllowed?: ReadonlyArray<string>; readonly trust?: 'ask' | 'auto' | 'full' } = {},
): Promise<Stack> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'errands-lending-'))
  writeFileSync(
    join(dataDir, 'settings.json'),
    JSON.stringify({ version: 1, alwaysAllowed: settings.alwaysAllowed ?? [], trust: settings.trust ?? 'ask' }),
  )

  const server = await serveNamedSites()
  const logs: string[] = []
  const runtimeLogs: string[] = []
  const inspection: StatelyInspectionEvent[] = []
  const errors: unknown[] = []
  const chromium = await Effect.runPromise(
    ChromiumRuntime.make({
      dataDir,
      extraArgs: [`--host-resolver-rules=${RESOLVER_RULES}`],
      log: (line) => runtimeLogs.push(line),
      warmSpare: false,
    }),
  )
  const inspector = createInspector({ send: (event) => void inspection.push(event) })
  const logger = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message, annotations }) => {
      const text = Array.isArray(message) ? message.map(String).join(' ') : String(message)
      logs.push(`${logLevel.label} ${text} ${JSON.stringify(Object.fromEntries(annotations))}`)
    }),
  )
  const base = Layer.mergeAll(
    Layer.succeed(Runtime, chromium),
    SealedStore.layer({ dir: join(dataDir, 'store') }),
    Settings.layer(dataDir),
  )
  const supervisor = Lending.supervisorLayer({
    settings: defaultSettings({ maxErrands: 4, dataDir }),
    inspect: inspector.inspect,
    sweep: false,
  })
  const app = Lending.layer.pipe(
    Layer.provideMerge(sessionsLayer),
    Layer.provideMerge(supervisor),
    Layer.provideMerge(base),
    Layer.provide(logger),
    Layer.orDie,
  )
  const rt = ManagedRuntime.make(app)
  const run = <A, E>(effect: Effect.Effect<A, E, Services>) => rt.runPromise(effect)
  const failure = async <A, E>(effect: Effect.Effect<A, E, Services>) => {
    const e = await rt.runPromise(Effect.flip(effect))
    errors.push(e)
    return e
  }

  /**
   * Shows `url` in the context's active tab (a new tab only when it has none: a tab's renderer
   * costs ~0.4 s here), waiting until it committed — the request has reached the server by then.
   */
  const visitIn = async (contextId: string, url: string, ready?: () => boolean) => {
    const tabs = await Effect.runPromise(chromium.tabs(contextId))
    const tab = tabs.find((t) => t.active) ?? tabs[0]
    const shown =
      tab === undefined
        ? await Effect.runPromise(chromium.openTab(contextId, url))
        : await Effect.runPromise(chromium.navigate(contextId, tab.id, url))
    if (ready) await chromium.pageOf(contextId, shown.id)?.waitForFunction(ready)
  }
  const inErrand = (conversationId: string, url: string) =>
    run(
      Effect.flatMap(Supervisor, (s) => s.use(conversationId, (b) => Effect.promise(() => visitIn(b.contextId, url)))),
    )

  return {
    server,
    chromium,
    dataDir,
    logs,
    runtimeLogs,
    inspection,
    run,
    failure,
    errors,
    signInMain: (host, name, domain) =>
      visitIn(MAIN_CONTEXT, server.url(host, `/signin?name=${name}${domain ? `&domain=${domain}` : ''}`)),
    storeMain: (host, key) =>
      visitIn(MAIN_CONTEXT, server.url(host, `/store?key=${key}`), () => document.title === 'stored:done'),
    signInErrand: (conversationId, host, name) => inErrand(conversationId, server.url(host, `/signin?name=${name}`)),
    probe: async (conversationId, host) => {
      const probe = `p${++probes}`
      const url = server.url(host, `/echo?probe=${probe}`)
      if (conversationId === MAIN_CONTEXT) await visitIn(MAIN_CONTEXT, url)
      else await inErrand(conversationId, url)
      return server.cookieNamesAt(probe)
    },
    stop: async () => {
      await rt.dispose()
      await Effect.runPromise(chromium.shutdown)
      await server.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
