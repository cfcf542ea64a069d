/**
 * The local Chromium runtime (R1): the person's main context in a persistent profile, and one
 * fresh context per errand in a second, non-persistent Chromium started on first use.
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const runtime = yield* Runtime
 *   const id = yield* runtime.openContext({ errandId: 'e1', label: { reason: 'task', lentSites: [] } })
 *   return yield* runtime.tabs(id)
 * }).pipe(Effect.provide(ChromiumRuntime.layer({ dataDir: '/tmp/errands' })))
 */
import { mkdirSync } from 'node:fs'
import { join, resolve as resolvePath } from 'node:path'
import { decide, defaultPolicy, formatDecision, type GuardPolicy } from '@errands/guard'
import {
  ContextNotFound, MAIN_CONTEXT, Runtime, RuntimeError,
  type ContextId, type Cookie, type OpenContextSpec, type RuntimeEvent, type RuntimeShape, type SessionLabel,
  type Snapshot, type StorageState, type TabInfo,
} from '@errands/runtime'
import { Effect, Layer, type Scope } from 'effect'
import type { BrowserContext, Page } from 'playwright-core'
import { closeMain, ErrandsBrowser, launchMain, reapOrphans, type LaunchSettings } from './browsers.ts'
import { isolateClipboard } from './clipboard.ts'
import { checkNavigation, guardContextWebSockets } from './containment.ts'
import { call, toRuntimeError, within } from './failures.ts'
import { PendingLocalStorage } from './localStorageRestore.ts'
import { goto, tabUrl } from './navigation.ts'
import { DEFAULT_DEADLINE_MS, resolveExecutable, type ChromiumRuntimeOptions } from './options.ts'
import { clearOriginsIn, readStorage, removeCookiesFrom, toPlaywrightCookies } from './storage.ts'
import { PageWork } from './pageWork.ts'
import { TabBook } from './tabs.ts'

/** One open context and what the runtime keeps about it. */
interface Entry {
  readonly id: ContextId
  readonly kind: 'main' | 'errand'
  readonly context: BrowserContext
  /** The errands' browser generation it lives in (main: 0). */
  readonly generation: number
  label: SessionLabel
  readonly tabs: TabBook<Page>
  readonly storage: PendingLocalStorage
  /** While > 0, new pages are the runtime's own (restore, helpers) and registered by it. */
  quietPages: number
  /** Page creation and storage reads of this context, one at a time (see `PageWork`). */
  readonly pageWork: PageWork
  state: 'open' | 'closing'
}

const MAIN_LABEL: SessionLabel = { reason: 'main', lentSites: [] }

/**
 * `RuntimeShape` over real Chromium. Create it with {@link ChromiumRuntime.make} (you call
 * `shutdown`) or {@link ChromiumRuntime.layer} (shut down when the layer's scope closes).
 *
 * @example
 * const runtime = await Effect.runPromise(ChromiumRuntime.make({ dataDir }))
 * const id = await Effect.runPromise(runtime.openContext({ errandId: 'e1', label: { reason: 'task', lentSites: [] } }))
 * await Effect.runPromise(runtime.shutdown)
 */
export class ChromiumRuntime implements RuntimeShape {
  readonly kind = 'chromium'
  readonly mainContext: ContextId = MAIN_CONTEXT

  private readonly entries = new Map<ContextId, Entry>()
  private readonly listeners = new Set<(event: RuntimeEvent) => void>()
  private readonly errands: ErrandsBrowser
  private readonly policy: GuardPolicy
  private readonly deadlineMs: number
  private readonly log: (line: string) => void
  private readonly profileDir: string
  private mainTmpDir: string | undefined
  private mainStarting: Promise<Entry> | undefined
  private counter = 0
  private state: 'open' | 'closing' | 'closed' = 'open'
  private closing: Promise<void> | undefined

  private constructor(private readonly settings: LaunchSettings, options: ChromiumRuntimeOptions) {
    this.policy = settings.policy
    this.deadlineMs = settings.deadlineMs
    this.log = settings.log
    this.profileDir = join(options.dataDir, 'profile')
    this.errands = new ErrandsBrowser(settings, (generation) => this.onErrandsBrowserCrash(generation))
  }

  /**
   * Launches the main browser on `<dataDir>/profile` and returns the runtime. The errands'
   * browser starts with the first errand.
   *
   * @example
   * const runtime = yield* ChromiumRuntime.make({ dataDir: '/var/lib/errands', policy })
   */
  static make(options: ChromiumRuntimeOptions): Effect.Effect<ChromiumRuntime, RuntimeError> {
    return Effect.gen(function* () {
      if (options.headless !== undefined && options.headless !== true) {
        return yield* new RuntimeError({ reason: 'invalid', message: 'only headless Chromium is supported here' })
      }
      const log = options.log ?? (() => undefined)
      const settings: LaunchSettings = {
        executablePath: resolveExecutable(options.executablePath),
        policy: options.policy ?? defaultPolicy([]),
        log,
        deadlineMs: options.deadlineMs ?? DEFAULT_DEADLINE_MS,
        warmSpare: options.warmSpare ?? true,
        owner: resolvePath(options.dataDir),
        extraArgs: options.extraArgs ?? [],
      }
      if (options.mode === 'your-chrome') {
        // R3/L6: nothing is read from the person's own Chrome; errands run in our browser, signed in nowhere.
        log('mode your-chrome: errands run in our own Chromium, signed in nowhere; no cookie is copied from your Chrome')
      }
      const runtime = new ChromiumRuntime(settings, options)
      const reaped = reapOrphans(settings.owner, runtime.profileDir)
      if (reaped > 0) log(`stopped ${reaped} Chromium processes an earlier run on this data dir left behind`)
      yield* call('launch main browser', settings.deadlineMs + 5_000, () => runtime.startMain())
      return runtime
    })
  }

  /**
   * The runtime as a scoped resource: shut down when the scope closes.
   *
   * @example
   * Effect.scoped(Effect.gen(function* () { const rt = yield* ChromiumRuntime.scoped({ dataDir }) }))
   */
  static scoped(options: ChromiumRuntimeOptions): Effect.Effect<ChromiumRuntime, RuntimeError, Scope.Scope> {
    return Effect.acquireRelease(ChromiumRuntime.make(options), (runtime) => runtime.shutdown)
  }

  /**
   * The `Runtime` service backed by Chromium.
   *
   * @example
   * program.pipe(Effect.provide(ChromiumRuntime.layer({ dataDir })))
   */
  static layer(options: ChromiumRuntimeOptions): Layer.Layer<Runtime, RuntimeError> {
    return Layer.scoped(Runtime, ChromiumRuntime.scoped(options))
  }

  // ---- extras beyond RuntimeShape (tests, adapters) ----

  /** The errands' browser pid while it runs. @example process.kill(runtime.errandsBrowserPid()!, 'SIGKILL') */
  errandsBrowserPid(): number | undefined {
    return this.errands.pid()
  }

  /** Whether a warm spare context waits in the errands' browser (tests). @example runtime.hasWarmSpare() */
  hasWarmSpare(): boolean {
    return this.errands.spareReady()
  }

  /** The Playwright page behind a tab (tests and adapters only). @example runtime.pageOf(id, 't1')?.evaluate(...) */
  pageOf(contextId: ContextId, tabId: string): Page | undefined {
    return this.entries.get(contextId)?.tabs.get(tabId)
  }

  /** The Playwright context behind an id (tests and adapters only). @example runtime.browserContextOf('main') */
  browserContextOf(contextId: ContextId): BrowserContext | undefined {
    return this.entries.get(contextId)?.context
  }

  // ---- RuntimeShape ----

  readonly openContext = (spec: OpenContextSpec): Effect.Effect<ContextId, RuntimeError> =>
    Effect.suspend(() =>
      this.state !== 'open'
        ? Effect.fail(new RuntimeError({ reason: 'unavailable', message: 'the runtime is shut down' }))
        : call('open context', this.deadlineMs * 2, () => this.doOpenContext(spec)),
    )

  readonly closeContext = (contextId: ContextId): Effect.Effect<void> =>
    Effect.promise(async () => {
      const entry = this.entries.get(contextId)
      // Idempotent: unknown, already closing, crashed (forgotten) or main — nothing to do.
      // The main context lives as long as the runtime; only `shutdown` closes it.
      if (!entry || entry.kind === 'main' || entry.state === 'closing') return
      entry.state = 'closing'
      this.entries.delete(contextId)
      await within(this.deadlineMs, entry.context.close())
    })

  readonly isOpen = (contextId: ContextId): Effect.Effect<boolean> =>
    Effect.sync(() => this.entries.get(contextId)?.state === 'open')

  readonly storageState = (contextId: ContextId): Effect.Effect<StorageState, RuntimeError | ContextNotFound> =>
    this.withEntry(contextId, 'read storage', (entry) => entry.pageWork.run(() => readStorage(entry.context, entry.storage)))

  readonly addCookies = (contextId: ContextId, cookies: ReadonlyArray<Cookie>) =>
    this.withEntry(contextId, 'add cookies', async (entry) => {
      if (cookies.length > 0) await entry.context.addCookies(toPlaywrightCookies(cookies))
    })

  readonly removeCookies = (contextId: ContextId, which: (cookie: Cookie) => boolean) =>
    this.withEntry(contextId, 'remove cookies', (entry) => removeCookiesFrom(entry.context, which))

  readonly clearOrigins = (contextId: ContextId, which: (origin: string) => boolean) =>
    this.withEntry(contextId, 'clear origins', (entry) =>
      entry.pageWork.run(() => clearOriginsIn(entry.context, entry.storage, which, () => this.quietPage(entry))),
    )

  readonly tabs = (contextId: ContextId) =>
    this.withEntry(contextId, 'list tabs', (entry) =>
      Promise.all(entry.tabs.list().map((t) => this.tabInfo(entry, t.id, t.handle))),
    )

  readonly openTab = (contextId: ContextId, url: string) =>
    this.withEntry(contextId, 'open tab', async (entry) => {
      this.assertAllowed(entry, url)
      const page = await entry.pageWork.run(() => entry.context.newPage())
      const tabId = entry.tabs.idOf(page) ?? this.register(entry, page, true)
      entry.tabs.activate(tabId)
      if (url !== 'about:blank') await goto(page, this.deadlineMs, url)
      return this.tabInfo(entry, tabId, page)
    })

  readonly activateTab = (contextId: ContextId, tabId: string) =>
    this.withEntry(contextId, 'activate tab', async (entry) => {
      const page = this.pageIn(entry, tabId)
      entry.tabs.activate(tabId)
      await page.bringToFront()
    })

  readonly closeTab = (contextId: ContextId, tabId: string) =>
    this.withEntry(contextId, 'close tab', async (entry) => {
      const page = entry.tabs.get(tabId)
      if (!page) return // idempotent: an unknown or closed tab is closed
      entry.tabs.remove(tabId)
      await page.close()
    })

  readonly navigate = (contextId: ContextId, tabId: string, url: string) =>
    this.withEntry(contextId, 'navigate', async (entry) => {
      const page = this.pageIn(entry, tabId)
      this.assertAllowed(entry, url)
      await goto(page, this.deadlineMs, url)
      return this.tabInfo(entry, tabId, page)
    })

  readonly setLabel = (contextId: ContextId, label: SessionLabel) =>
    this.withEntry(contextId, 'set label', async (entry) => {
      entry.label = { reason: label.reason, lentSites: [...label.lentSites].sort() }
    })

  readonly snapshot = (contextId: ContextId) =>
    this.withEntry(contextId, 'snapshot', async (entry): Promise<Omit<Snapshot, 'takenAt'>> => {
      const tabs = entry.tabs.list().map((t) => ({ url: tabUrl(t.handle), active: t.active }))
      return { storage: await entry.pageWork.run(() => readStorage(entry.context, entry.storage)), tabs }
    })

  readonly subscribe = (listener: (event: RuntimeEvent) => void): Effect.Effect<() => void> =>
    Effect.sync(() => {
      this.listeners.add(listener)
      return () => {
        this.listeners.delete(listener)
      }
    })

  readonly shutdown: Effect.Effect<void> = Effect.promise(() => (this.closing ??= this.doShutdown()))

  // ---- internals ----

  private withEntry<A>(
    contextId: ContextId,
    what: string,
    run: (entry: Entry) => Promise<A>,
  ): Effect.Effect<A, RuntimeError | ContextNotFound> {
    return Effect.suspend((): Effect.Effect<A, RuntimeError | ContextNotFound> => {
      if (contextId === MAIN_CONTEXT && this.state === 'open' && !this.entries.has(MAIN_CONTEXT)) {
        // The main browser died: it comes back on next use (H2 for the person's context).
        return call('relaunch main browser', this.deadlineMs + 5_000, () => this.startMain()).pipe(
          Effect.flatMap((entry) => call(what, this.deadlineMs, () => run(entry))),
        )
      }
      const entry = this.entries.get(contextId)
      if (!entry || entry.state !== 'open') {
        return Effect.fail(
          new ContextNotFound({ reason: 'unknown-context', contextId, message: `no open context ${contextId}` }),
        )
      }
      return call(what, this.deadlineMs, () => run(entry))
    })
  }

  private startMain(): Promise<Entry> {
    return (this.mainStarting ??= (async () => {
      try {
        mkdirSync(this.profileDir, { recursive: true })
        const { context, tmpDir } = await launchMain(this.settings, this.profileDir)
        this.mainTmpDir = tmpDir
        const entry = this.track(MAIN_CONTEXT, 'main', context, 0, MAIN_LABEL, [])
        await guardContextWebSockets(context, this.policy, this.log, MAIN_CONTEXT)
        for (const page of context.pages()) this.register(entry, page, true)
        context.on('close', () => {
          if (this.entries.get(MAIN_CONTEXT) !== entry || this.state !== 'open') return
          this.entries.delete(MAIN_CONTEXT)
          void closeMain(undefined, tmpDir, undefined)
          this.log('main browser closed unexpectedly; it is relaunched on next use')
          this.emit({ _tag: 'BrowserCrashed', contextIds: [MAIN_CONTEXT] })
        })
        return entry
      } finally {
        this.mainStarting = undefined
      }
    })())
  }

  private track(
    id: ContextId, kind: Entry['kind'], context: BrowserContext, generation: number, label: SessionLabel,
    origins: StorageState['origins'],
  ): Entry {
    const entry: Entry = {
      id, kind, context, generation, label, tabs: new TabBook<Page>(),
      storage: new PendingLocalStorage(context, origins), quietPages: 0, pageWork: new PageWork(), state: 'open',
    }
    this.entries.set(id, entry)
    // Pages the page itself opens (popups, target=_blank) become tabs, active like in a browser.
    context.on('page', (page) => {
      if (entry.quietPages === 0 && entry.tabs.idOf(page) === undefined) this.register(entry, page, true)
    })
    return entry
  }

  private async doOpenContext(spec: OpenContextSpec): Promise<ContextId> {
    const { context, generation } = await this.errands.newContext()
    const warmPages = context.pages()
    const id = `${spec.errandId}.${++this.counter}`
    const label = { reason: spec.label.reason, lentSites: [...spec.label.lentSites].sort() }
    const entry = this.track(id, 'errand', context, generation, label, spec.storage?.origins ?? [])
    try {
      const tabSpecs = spec.tabs && spec.tabs.length > 0 ? spec.tabs : [{ url: 'about:blank', active: true }]
      const activeIndex = Math.max(0, tabSpecs.findIndex((t) => t.active))
      entry.quietPages++
      let pages: Array<Page>
      try {
        // Storage first (before any page runs), pages in parallel, registered in the given order.
        await Promise.all([
          guardContextWebSockets(context, this.policy, this.log, id),
          isolateClipboard(context),
          spec.storage && spec.storage.cookies.length > 0
            ? context.addCookies(toPlaywrightCookies(spec.storage.cookies))
            : Promise.resolve(),
          entry.storage.install(),
        ])
        pages = [
          ...warmPages.slice(0, tabSpecs.length),
          ...(await Promise.all(tabSpecs.slice(warmPages.length).map(() => context.newPage()))),
        ]
      } finally {
        entry.quietPages--
      }
      pages.forEach((page, i) => this.register(entry, page, i === activeIndex))
      await Promise.all(
        tabSpecs.map(async (tab, i) => {
          const page = pages[i]!
          if (tab.url === 'about:blank' || !checkNavigation(tab.url, this.policy, this.log, id).allow) return
          // A tab whose site is down still exists (it shows Chromium's error page).
          await goto(page, this.deadlineMs, tab.url).catch((e: unknown) => {
            const failure = toRuntimeError('restore tab', e)
            if (failure.reason === 'crashed' || failure.reason === 'target-closed') throw failure
          })
        }),
      )
      if (pages.length > 1) await pages[activeIndex]!.bringToFront()
      if (entry.state !== 'open' || this.entries.get(id) !== entry) {
        throw new RuntimeError({ reason: 'crashed', message: `context ${id} died while it was opened` })
      }
      this.errands.prepareSpareSoon()
      return id
    } catch (error) {
      this.entries.delete(id)
      await within(5_000, context.close())
      throw error
    }
  }

  private register(entry: Entry, page: Page, activate: boolean): string {
    const tabId = entry.tabs.add(page, { activate })
    page.on('load', () => {
      if (entry.tabs.idOf(page) === tabId && this.entries.get(entry.id) === entry) {
        this.emit({ _tag: 'PageLoaded', contextId: entry.id, tabId })
      }
    })
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) entry.storage.markVisited(frame.url())
    })
    page.on('crash', () => this.onPageCrash(entry, page))
    page.on('close', () => {
      entry.tabs.remove(tabId)
    })
    page.on('websocket', (ws) => {
      // Routed sockets that the guard blocks never open; one that shows up here anyway escaped
      // routing (a worker's): its tab is closed.
      const decision = decide(ws.url(), this.policy)
      if (!decision.allow) {
        this.log(formatDecision(ws.url(), decision, `websocket in context ${entry.id} (escaped routing: tab ${tabId} closed)`))
        entry.tabs.remove(tabId)
        void within(5_000, page.close())
      }
    })
    return tabId
  }

  private async quietPage(entry: Entry): Promise<{ readonly page: Page; readonly done: () => Promise<void> }> {
    const existing = entry.tabs.list()[0]?.handle
    if (existing) return { page: existing, done: async () => undefined }
    entry.quietPages++
    try {
      const page = await entry.context.newPage()
      return { page, done: () => page.close() }
    } finally {
      entry.quietPages--
    }
  }

  private pageIn(entry: Entry, tabId: string): Page {
    const page = entry.tabs.get(tabId)
    if (!page) throw new RuntimeError({ reason: 'invalid', message: `no tab ${tabId} in context ${entry.id}` })
    return page
  }

  private assertAllowed(entry: Entry, url: string): void {
    const decision = checkNavigation(url, this.policy, this.log, entry.id)
    if (!decision.allow) {
      throw new RuntimeError({ reason: 'invalid', message: `blocked by policy (rule ${decision.rule}): ${decision.detail}` })
    }
  }

  private async tabInfo(entry: Entry, id: string, page: Page): Promise<TabInfo> {
    const title = await within(this.deadlineMs, page.title())
    return { id, url: tabUrl(page), title: title ?? '', active: entry.tabs.active() === id, session: entry.label }
  }

  private onPageCrash(entry: Entry, page: Page): void {
    if (this.entries.get(entry.id) !== entry) return
    this.log(`renderer crashed in context ${entry.id}`)
    if (entry.kind === 'main') {
      // The person's context stays; only the crashed tab goes.
      const tabId = entry.tabs.idOf(page)
      if (tabId) entry.tabs.remove(tabId)
      void within(5_000, page.close())
    } else {
      // A crashed errand context is forgotten at once; the supervisor heals it from its snapshot.
      this.entries.delete(entry.id)
      entry.state = 'closing'
      void within(this.deadlineMs, entry.context.close())
    }
    this.emit({ _tag: 'ContextCrashed', contextId: entry.id })
  }

  private onErrandsBrowserCrash(generation: number): void {
    const dead = [...this.entries.values()].filter((e) => e.kind === 'errand' && e.generation === generation)
    for (const entry of dead) {
      entry.state = 'closing'
      this.entries.delete(entry.id)
    }
    if (this.state !== 'open') return
    this.log(`errands browser crashed; lost contexts: ${dead.map((e) => e.id).join(', ') || 'none'}`)
    this.emit({ _tag: 'BrowserCrashed', contextIds: dead.map((e) => e.id) })
  }

  private emit(event: RuntimeEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event)
      } catch (error) {
        this.log(`runtime event listener failed: ${toRuntimeError('listener', error).message}`)
      }
    }
  }

  private async doShutdown(): Promise<void> {
    this.state = 'closing'
    await this.mainStarting?.catch(() => undefined)
    const errands = [...this.entries.values()].filter((e) => e.kind === 'errand')
    for (const entry of errands) {
      entry.state = 'closing'
      this.entries.delete(entry.id)
    }
    await Promise.all(errands.map((e) => within(this.deadlineMs, e.context.close())))
    await this.errands.close()
    const main = this.entries.get(MAIN_CONTEXT)
    this.entries.delete(MAIN_CONTEXT)
    await closeMain(main?.context, this.mainTmpDir, this.profileDir)
    this.listeners.clear()
    this.state = 'closed'
  }
}
