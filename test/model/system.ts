/**
 * The real system of the model-based suite: the whole engine (`engineLayer`: Chromium runtime,
 * sealed store on disk, settings, supervisor seeded by lending, lending) on a temp data dir,
 * restartable on the same dir, with fixture sites on real host names, plus the ways to read what
 * Chromium really holds.
 *
 * @example
 * const server = await serveNamedSites()
 * const sys = await ModelSystem.start(server, { cap: 2 })
 * await sys.run(Effect.flatMap(Supervisor, (s) => s.open({ id: 't0', kind: 'task' })))
 * await sys.stop()
 */
import { Chromium, engineLayer, type EngineServices } from '@errands/engine'
import { MAIN_CONTEXT, type ContextId, type Snapshot, type StorageState } from '@errands/runtime'
import { pidsWithEnv, type ChromiumRuntime } from '@errands/runtime-chromium'
import { SealedStore, type ParkedRecord } from '@errands/store'
import { defaultSettings, Supervisor, type SupervisorShape } from '@errands/supervisor'
import { Lending, type LendingShape } from '@errands/lending'
import { Effect, Layer, Logger, ManagedRuntime, Option } from 'effect'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { RESOLVER_RULES } from '../lending/stack.ts'
import type { NamedSites } from '../lending/server.ts'
import type { BySite, Held, Reach } from './model.ts'
import { ALWAYS, SIGNED_IN } from './steps.ts'

/**
 * A deliberately injected fault, to prove the invariants catch it (never used by the real run):
 * - `leak-cookie`: after an errand sets a cookie, the same cookie is copied into another open
 *   errand's context — what a shared cookie jar would do.
 * - `skip-revoke-parked`: a revocation leaves one parked errand's sealed record as it was.
 *
 * @example
 * ModelSystem.start(server, { cap: 2, fault: 'leak-cookie' })
 */
export type Fault = 'leak-cookie' | 'skip-revoke-parked'

/** How to build the system. @example const o: SystemOptions = { cap: 2 } */
export interface SystemOptions {
  readonly cap: number
  readonly fault?: Fault | undefined
}

type Managed = ManagedRuntime.ManagedRuntime<EngineServices, unknown>

/**
 * A failure of the real system that the model did not allow. @example throw new SystemFailure('errand t0 has no tab
 * showing about:blank')
 */
export class SystemFailure extends Error {
  override readonly name: string = 'SystemFailure'
}

/**
 * Cookies by site (a cookie's domain without its leading dot: every fixture host is its own site). @example
 * cookiesBySite(await ctx.cookies())
 */
export const cookiesBySite = (
  cookies: ReadonlyArray<{ readonly name: string; readonly value: string; readonly domain: string }>,
): BySite => {
  const out: BySite = {}
  for (const c of cookies) {
    const site = c.domain.replace(/^\./, '')
    out[site] = { ...out[site], [c.name]: c.value }
  }
  return out
}

/** localStorage by site, from a storage state's origins. @example originsBySite(state.origins) */
export const originsBySite = (origins: StorageState['origins']): BySite => {
  const out: BySite = {}
  for (const o of origins) {
    if (o.localStorage.length === 0) continue
    const site = new URL(o.origin).hostname
    out[site] = { ...out[site], ...Object.fromEntries(o.localStorage.map((i) => [i.name, i.value])) }
  }
  return out
}

/** What a snapshot or a sealed record holds, in the model's terms. @example heldIn(record.snapshot) */
export const heldIn = (snapshot: Pick<Snapshot, 'storage' | 'tabs'> | undefined): Held => ({
  cookies: cookiesBySite(snapshot?.storage.cookies ?? []),
  storage: originsBySite(snapshot?.storage.origins ?? []),
  tabs: (snapshot?.tabs ?? []).map((t) => t.url),
})

/**
 * The host of a fixture URL, or undefined for `about:blank` and the like. @example
 * fixtureHost('http://shop.example:8080/page') // 'shop.example'
 */
export const fixtureHost = (url: string): string | undefined => {
  try {
    const u = new URL(url)
    return u.protocol === 'http:' ? u.hostname : undefined
  } catch {
    return undefined
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Whether `work` settles (either way) within `ms`; the timer never outlives the wait. */
const settledWithin = async (work: Promise<unknown>, ms: number): Promise<boolean> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<false>((done) => (timer = setTimeout(() => done(false), ms)))
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Polls `check` until it holds or `timeoutMs` passes.
 *
 * @example
 * await until(() => supervisor.contextOf('t0') === undefined, 10_000, 'the crash to be noticed')
 */
export const until = async (
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> => {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new SystemFailure(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(50)
  }
}

/**
 * The engine under test, restartable on its data dir.
 *
 * @example
 * const sys = await ModelSystem.start(server, { cap: 2 })
 */
export class ModelSystem {
  /** Effect log lines and runtime log lines of every engine this system ran (for failure reports). */
  readonly logs: string[] = []
  /** Snapshots taken before a take-back (revoke, sign-out): what a heal from them must not bring back. */
  private readonly stale = new WeakMap<Snapshot, Reach>()
  private managed!: Managed
  supervisor!: SupervisorShape
  lending!: LendingShape
  chromium!: ChromiumRuntime
  private errandsBrowser: Browser | undefined
  private engines = 0

  private constructor(
    readonly server: NamedSites,
    readonly options: SystemOptions,
    readonly dataDir: string,
  ) {}

  /**
   * A fresh data dir (settings: `ALWAYS` always allowed, trust `ask`), the engine on it, and the
   * person signed in to `SIGNED_IN` in the main context (the sign-in cookies are the server's
   * fresh secrets).
   *
   * @example
   * const sys = await ModelSystem.start(server, { cap: 2 })
   */
  static async start(
    server: NamedSites,
    options: SystemOptions,
    track?: (sys: ModelSystem) => void,
  ): Promise<ModelSystem> {
    const dataDir = mkdtempSync(join(tmpdir(), 'errands-model-'))
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ version: 1, alwaysAllowed: ALWAYS, trust: 'ask' }))
    const sys = new ModelSystem(server, options, dataDir)
    // Handed out before it starts, so a start that hangs past the deadline can still be stopped.
    track?.(sys)
    try {
      await sys.boot()
      for (const [i, site] of SIGNED_IN.entries()) {
        // One host-only cookie, the others with a Domain attribute: both kinds are lent and revoked.
        await sys.inMain(server.url(site, `/signin?name=sid${i === 1 ? '' : `&domain=.${site}`}`))
      }
    } catch (error) {
      await sys.stop()
      throw error
    }
    return sys
  }

  private async boot(): Promise<void> {
    const n = ++this.engines
    const logger = Logger.replace(
      Logger.defaultLogger,
      Logger.make(({ logLevel, message }) => {
        const text = Array.isArray(message) ? message.map(String).join(' ') : String(message)
        this.logs.push(`[engine ${n}] ${logLevel.label} ${text}`)
      }),
    )
    const layer = engineLayer({
      settings: defaultSettings({ dataDir: this.dataDir, maxErrands: this.options.cap, snapshotDebounceMs: 300 }),
      // No warm spare: then every context of the errands' browser is an errand's, and the cap
      // check counts Chromium's contexts exactly.
      chromium: {
        extraArgs: [`--host-resolver-rules=${RESOLVER_RULES}`],
        warmSpare: false,
        log: (line) => this.logs.push(`[engine ${n}] chromium ${line}`),
      },
      // The idle sweep would park errands by the wall clock, which the model does not follow.
      supervisor: { sweep: false, healBackoffMs: 100 },
    }).pipe(Layer.provide(logger))
    this.managed = ManagedRuntime.make(layer)
    const services = await this.managed.runPromise(
      Effect.all({ supervisor: Supervisor, lending: Lending, chromium: Chromium }),
    )
    this.supervisor = services.supervisor
    this.lending = services.lending
    this.chromium = services.chromium
    this.errandsBrowser = undefined
  }

  /** Runs an effect against the engine's services. @example await sys.run(Effect.flatMap(Supervisor, (s) => s.list)) */
  run<A, E>(effect: Effect.Effect<A, E, EngineServices>): Promise<A> {
    return this.managed.runPromise(effect)
  }

  /**
   * Waits until no errand is opening, parking, healing or snapshotting and lending's background take-backs are done.
   */
  async settle(): Promise<void> {
    await this.run(this.supervisor.settle)
    await this.run(this.lending.settle)
    await this.run(this.supervisor.settle)
  }

  /** The person visits `url` in the main context (a tab opened and closed again). */
  async inMain(url: string): Promise<void> {
    const tab = await this.run(this.chromium.openTab(MAIN_CONTEXT, url))
    await this.run(this.chromium.closeTab(MAIN_CONTEXT, tab.id))
  }

  /** The person's main context as Chromium holds it. @example await sys.mainContext().cookies() */
  mainContext(): BrowserContext {
    const context = this.chromium.browserContextOf(MAIN_CONTEXT)
    if (context === undefined) throw new SystemFailure('the main context is not open')
    return context
  }

  /** The Playwright context of an open errand (located through the supervisor; judged by what it holds). */
  contextOf(id: string): { readonly contextId: ContextId; readonly context: BrowserContext } | undefined {
    const contextId = this.supervisor.contextOf(id)
    const context = contextId === undefined ? undefined : this.chromium.browserContextOf(contextId)
    if (contextId === undefined || context === undefined) return undefined
    // Remember the errands' browser, to count its contexts even when no errand is open.
    const browser = context.browser()
    if (browser !== null) this.errandsBrowser = browser
    return { contextId, context }
  }

  /** How many contexts the errands' Chromium holds right now (0 when it does not run). */
  errandContextCount(): number {
    const browser = this.errandsBrowser
    return browser === undefined || !browser.isConnected() ? 0 : browser.contexts().length
  }

  /** The sealed record of a conversation, as stored on disk (unsealed). */
  record(id: string): Promise<Option.Option<ParkedRecord>> {
    return this.run(Effect.flatMap(SealedStore, (store) => store.get(id)))
  }

  /** Conversation ids with a sealed record. */
  async recordIds(): Promise<string[]> {
    const entries = await this.run(Effect.flatMap(SealedStore, (store) => store.list()))
    return entries.map((e) => e.errandId).sort()
  }

  /**
   * Runs `action` on the tab of `id`'s errand that shows `fromUrl`, after navigating it to `url`
   * — through `supervisor.use`, the way an agent's step drives its errand (resuming or healing
   * it first, through admission).
   */
  async inTab(id: string, fromUrl: string, url: string, action: (page: Page) => Promise<void>): Promise<void> {
    await this.run(
      this.supervisor.use(id, (binding) =>
        Effect.gen(this, function* () {
          const tabs = yield* this.chromium.tabs(binding.contextId)
          const tab = tabs.find((t) => t.url === fromUrl)
          if (tab === undefined) {
            return yield* Effect.fail(
              new SystemFailure(
                `errand ${id} has no tab showing ${fromUrl} (it has ${tabs.map((t) => t.url).join(', ')})`,
              ),
            )
          }
          yield* this.chromium.navigate(binding.contextId, tab.id, url)
          const page = this.chromium.pageOf(binding.contextId, tab.id)
          if (page === undefined)
            return yield* Effect.fail(new SystemFailure(`tab ${tab.id} of errand ${id} has no page`))
          yield* Effect.tryPromise({
            try: () => action(page),
            catch: (e) => new SystemFailure(`in errand ${id}'s tab: ${String(e)}`),
          })
          if (this.options.fault === 'leak-cookie') yield* Effect.promise(() => this.leakCookies(id, binding.contextId))
        }),
      ),
    )
  }

  /** Opens a tab on `url` in `id`'s errand. */
  async openTab(id: string, url: string): Promise<void> {
    await this.run(this.supervisor.use(id, (binding) => this.chromium.openTab(binding.contextId, url)))
  }

  /** Closes the tab of `id`'s errand that shows `url`. */
  async closeTab(id: string, url: string): Promise<void> {
    await this.run(
      this.supervisor.use(id, (binding) =>
        Effect.gen(this, function* () {
          const tab = (yield* this.chromium.tabs(binding.contextId)).find((t) => t.url === url)
          if (tab === undefined) return yield* Effect.fail(new SystemFailure(`errand ${id} has no tab showing ${url}`))
          yield* this.chromium.closeTab(binding.contextId, tab.id)
        }),
      ),
    )
  }

  /**
   * Takes `reach` back (revoke or sign-out) and remembers which in-memory snapshots predate it:
   * the one each errand had before the call, and the one it has after (taken during the call).
   */
  async takeBack<A>(
    ids: ReadonlyArray<string>,
    reach: Reach,
    call: Effect.Effect<A, unknown, EngineServices>,
  ): Promise<A> {
    const before = ids.map((id) => this.supervisor.lastSnapshot(id))
    const restore = this.options.fault === 'skip-revoke-parked' ? await this.firstParkedRecord(ids) : undefined
    const result = await this.run(call)
    if (restore !== undefined) await this.run(Effect.flatMap(SealedStore, (store) => store.put(restore)))
    await this.settle()
    const after = ids.map((id) => this.supervisor.lastSnapshot(id))
    for (const snapshot of [...before, ...after]) {
      if (snapshot === undefined) continue
      const known = this.stale.get(snapshot)
      this.stale.set(
        snapshot,
        known === undefined ? reach : known === 'all' || reach === 'all' ? 'all' : new Set([...known, ...reach]),
      )
    }
    return result
  }

  /** Sites taken back after this snapshot was taken, if any. */
  staleReach(snapshot: Snapshot | undefined): Reach | undefined {
    return snapshot === undefined ? undefined : this.stale.get(snapshot)
  }

  /**
   * SIGKILLs the errands' Chromium (T4) and waits until every errand that was open has noticed
   * (healing, waiting for its next use — or parked, when it has healed too often in a row).
   * Returns the ids that were open, or `[]` when the browser did not run.
   */
  async crash(openIds: ReadonlyArray<string>): Promise<ReadonlyArray<string>> {
    await this.settle()
    const pid = this.chromium.errandsBrowserPid()
    if (pid === undefined) return []
    process.kill(pid, 'SIGKILL')
    await until(
      () =>
        this.chromium.errandsBrowserPid() !== pid && openIds.every((id) => this.supervisor.contextOf(id) === undefined),
      20_000,
      `the SIGKILL of pid ${pid} to be noticed`,
    )
    await until(
      async () => {
        const views = await this.run(this.supervisor.list)
        return openIds.every((id) => {
          const v = views.find((x) => x.conversationId === id)
          return v !== undefined && (v.detail === 'healing.waiting' || v.state === 'parked')
        })
      },
      20_000,
      'the crashed errands to wait for their next use',
    )
    await this.settle()
    return openIds
  }

  /** Disposes the engine (parks every open errand, E5) and starts it again on the same data dir. */
  async restart(): Promise<void> {
    await this.settle()
    await this.managed.dispose()
    await this.boot()
  }

  /**
   * Stops the engine and removes the data dir. Idempotent enough for a `finally`. A stop that
   * takes longer than `deadlineMs` (a hung step left the engine stuck, or its shutdown hangs)
   * SIGKILLs the Chromium processes started for this data dir — and only those — and rejects
   * with a {@link SystemFailure} saying so.
   */
  async stop(deadlineMs = 60_000): Promise<void> {
    try {
      // `managed` is unset when the start hung before the engine was built.
      if (this.managed === undefined) return
      const disposed = this.managed.dispose()
      if (await settledWithin(disposed, deadlineMs)) return
      const killed = this.killChromium()
      const after = (await settledWithin(disposed, 10_000)) ? 'then it finished' : 'it still did not finish'
      throw new SystemFailure(
        `stopping engine ${this.engines} did not finish within ${deadlineMs} ms; killed its ${killed} Chromium ` +
          `processes, ${after}`,
      )
    } finally {
      this.killChromium()
      rmSync(this.dataDir, { recursive: true, force: true })
    }
  }

  /** SIGKILLs the Chromium processes started for this data dir (they carry its owner mark); returns how many. */
  private killChromium(): number {
    const pids = pidsWithEnv(`ERRANDS_OWNER=${resolve(this.dataDir)}`)
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    return pids.length
  }

  // ---- injected faults (see `Fault`) ----

  private async leakCookies(from: string, contextId: ContextId): Promise<void> {
    const source = this.chromium.browserContextOf(contextId)
    if (source === undefined) return
    const cookies = await source.cookies()
    for (const view of await this.run(this.supervisor.list)) {
      const target = view.conversationId === from ? undefined : this.contextOf(view.conversationId)
      if (target !== undefined) await target.context.addCookies(cookies)
    }
  }

  private async firstParkedRecord(ids: ReadonlyArray<string>): Promise<ParkedRecord | undefined> {
    for (const id of ids) {
      const record = await this.record(id)
      if (Option.isSome(record)) return record.value
    }
    return undefined
  }
}
