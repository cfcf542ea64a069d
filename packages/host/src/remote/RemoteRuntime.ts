/**
 * Errand contexts in a DevTools browser elsewhere (R2): `chromium.connectOverCDP(url)` and one
 * `browser.newContext()` per errand — which is CDP `Target.createBrowserContext`, a real,
 * non-persistent browser context of that browser (verified in test/host/remote.test.ts).
 * It holds errand contexts only; the person's main context stays in our own browser (the
 * routed runtime sends `main` there).
 *
 * Kept small but real: contexts, tabs (runtime tab ids `t1`, `t2` …), storage (cookies and
 * localStorage, never IndexedDB), snapshot, events (page loads, crashes, a lost connection) and
 * the guard. Restoring storage uses Playwright's `newContext({ storageState })`: slower than our
 * own browser's restore script (STACK-NOTES "Speed"), but exact.
 *
 * @example
 * const remote = await RemoteRuntime.connect('http://10.0.0.5:9222', { policy, log, deadlineMs: 30_000 })
 * const id = await Effect.runPromise(remote.openContext({ errandId: 'e1', label: { reason: 'task', lentSites: [] } }))
 */
import type { GuardPolicy } from '@errands/guard'
import {
  ContextNotFound, MAIN_CONTEXT, RuntimeError,
  type ContextId, type Cookie, type OpenContextSpec, type RuntimeEvent, type RuntimeShape, type SessionLabel,
  type Snapshot, type StorageState, type TabInfo,
} from '@errands/runtime'
import { isolateClipboard, PageWork, TabBook, toRuntimeError } from '@errands/runtime-chromium'
import { Duration, Effect } from 'effect'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { checkRemoteNavigation, guardRemoteBrowser, guardRemoteContext, type Log } from './guard.ts'

/** How to reach and guard the remote browser. */
export interface RemoteOptions {
  readonly policy: GuardPolicy
  readonly log: Log
  readonly deadlineMs: number
}

interface Entry {
  readonly id: ContextId
  readonly context: BrowserContext
  readonly tabs: TabBook<Page>
  label: SessionLabel
  /** While > 0, new pages are the runtime's own (restore, helpers). */
  quiet: number
  /** Page creation and storage reads of this context, one at a time (see `PageWork`). */
  readonly pageWork: PageWork
  state: 'open' | 'closing'
}

const call = <A>(what: string, deadlineMs: number, run: () => Promise<A>): Effect.Effect<A, RuntimeError> =>
  Effect.tryPromise({ try: run, catch: (e) => toRuntimeError(what, e) }).pipe(
    Effect.timeoutFail({
      duration: Duration.millis(deadlineMs),
      onTimeout: () => new RuntimeError({ reason: 'timeout', message: `${what}: no answer within ${deadlineMs} ms` }),
    }),
  )

const settle = <A>(ms: number, p: Promise<A>): Promise<A | undefined> =>
  Promise.race([p.catch(() => undefined), new Promise<undefined>((r) => setTimeout(() => r(undefined), ms).unref())])

type PlaywrightCookie = Awaited<ReturnType<BrowserContext['cookies']>>[number]
const toCookie = (c: PlaywrightCookie): Cookie => ({
  name: c.name, value: c.value, domain: c.domain, path: c.path, expires: c.expires, httpOnly: c.httpOnly, secure: c.secure, sameSite: c.sameSite,
})

/**
 * `RuntimeShape` for errand contexts over a remote DevTools browser.
 *
 * @example
 * const remote = await RemoteRuntime.connect(url, options)
 */
export class RemoteRuntime implements RuntimeShape {
  readonly kind = 'cdp'
  readonly mainContext: ContextId = MAIN_CONTEXT
  private readonly entries = new Map<ContextId, Entry>()
  private readonly listeners = new Set<(event: RuntimeEvent) => void>()
  private readonly intended = new WeakMap<Page, string>()
  private counter = 0
  private closed = false

  private constructor(private browser: Browser, private readonly url: string, private readonly options: RemoteOptions) {
    this.watch(browser)
  }

  /**
   * Connects to the DevTools endpoint (`ws://…/devtools/browser/…` or `http://host:port`) and
   * installs the guard.
   *
   * @example
   * const remote = await RemoteRuntime.connect('ws://127.0.0.1:9222/devtools/browser/abc', options)
   */
  static async connect(url: string, options: RemoteOptions): Promise<RemoteRuntime> {
    const browser = await chromium.connectOverCDP(url, { timeout: options.deadlineMs })
    try {
      await guardRemoteBrowser(browser, options.policy, options.log)
    } catch (error) {
      await settle(5_000, browser.close())
      throw error
    }
    return new RemoteRuntime(browser, url, options)
  }

  /** Whether the connection is up. @example remote.connected */
  get connected(): boolean {
    return !this.closed && this.browser.isConnected()
  }

  /** The Playwright page behind a tab. @example remote.pageOf(id, 't1') */
  pageOf(contextId: ContextId, tabId: string): Page | undefined {
    return this.entries.get(contextId)?.tabs.get(tabId)
  }

  /** The Playwright context behind an id. @example remote.browserContextOf(id) */
  browserContextOf(contextId: ContextId): BrowserContext | undefined {
    return this.entries.get(contextId)?.context
  }

  /** Whether this runtime holds the context. @example remote.owns(id) */
  owns(contextId: ContextId): boolean {
    return this.entries.has(contextId)
  }

  readonly openContext = (spec: OpenContextSpec): Effect.Effect<ContextId, RuntimeError> =>
    call('open remote context', this.options.deadlineMs * 2, () => this.doOpen(spec))

  readonly closeContext = (contextId: ContextId): Effect.Effect<void> =>
    Effect.promise(async () => {
      const entry = this.entries.get(contextId)
      // Idempotent: unknown or already closing — nothing to do.
      if (!entry || entry.state === 'closing') return
      entry.state = 'closing'
      this.entries.delete(contextId)
      await settle(this.options.deadlineMs, entry.context.close())
    })

  readonly isOpen = (contextId: ContextId): Effect.Effect<boolean> => Effect.sync(() => this.entries.get(contextId)?.state === 'open')

  readonly storageState = (contextId: ContextId) => this.withEntry(contextId, 'read storage', (e) => e.pageWork.run(() => this.readStorage(e)))

  readonly addCookies = (contextId: ContextId, cookies: ReadonlyArray<Cookie>) =>
    this.withEntry(contextId, 'add cookies', async (e) => {
      if (cookies.length > 0) await e.context.addCookies(cookies.map((c) => ({ ...c })))
    })

  readonly removeCookies = (contextId: ContextId, which: (cookie: Cookie) => boolean) =>
    this.withEntry(contextId, 'remove cookies', async (e) => {
      const doomed = (await e.context.cookies()).map(toCookie).filter(which)
      await Promise.all(doomed.map((c) => e.context.clearCookies({ name: c.name, domain: c.domain, path: c.path })))
      return doomed.length
    })

  readonly clearOrigins = (contextId: ContextId, which: (origin: string) => boolean) =>
    this.withEntry(contextId, 'clear origins', (e) =>
      e.pageWork.run(async () => {
        const origins = (await this.readStorage(e)).origins.map((o) => o.origin).filter(which)
        if (origins.length === 0) return
        e.quiet++
        const existing = e.tabs.list()[0]?.handle
        const page = existing ?? (await e.context.newPage())
        e.quiet--
        try {
          const cdp = await e.context.newCDPSession(page)
          for (const origin of origins) await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'local_storage' })
          await cdp.detach().catch(() => undefined)
        } finally {
          if (!existing) await page.close()
        }
      }))

  readonly tabs = (contextId: ContextId) =>
    this.withEntry(contextId, 'list tabs', (e) => Promise.all(e.tabs.list().map((t) => this.tabInfo(e, t.id, t.handle))))

  readonly openTab = (contextId: ContextId, url: string) =>
    this.withEntry(contextId, 'open tab', async (e) => {
      this.assertAllowed(e, url)
      e.quiet++
      const page = await e.pageWork.run(() => e.context.newPage()).finally(() => e.quiet--)
      const tabId = this.register(e, page, true)
      if (url !== 'about:blank') await this.goto(page, url)
      return this.tabInfo(e, tabId, page)
    })

  readonly activateTab = (contextId: ContextId, tabId: string) =>
    this.withEntry(contextId, 'activate tab', async (e) => {
      const page = this.pageIn(e, tabId)
      e.tabs.activate(tabId)
      await page.bringToFront()
    })

  readonly closeTab = (contextId: ContextId, tabId: string) =>
    this.withEntry(contextId, 'close tab', async (e) => {
      const page = e.tabs.get(tabId)
      if (!page) return // idempotent
      e.tabs.remove(tabId)
      await page.close()
    })

  readonly navigate = (contextId: ContextId, tabId: string, url: string) =>
    this.withEntry(contextId, 'navigate', async (e) => {
      const page = this.pageIn(e, tabId)
      this.assertAllowed(e, url)
      await this.goto(page, url)
      return this.tabInfo(e, tabId, page)
    })

  readonly setLabel = (contextId: ContextId, label: SessionLabel) =>
    this.withEntry(contextId, 'set label', async (e) => {
      e.label = { reason: label.reason, lentSites: [...label.lentSites].sort() }
    })

  readonly snapshot = (contextId: ContextId) =>
    this.withEntry(contextId, 'snapshot', async (e): Promise<Omit<Snapshot, 'takenAt'>> => ({
      storage: await e.pageWork.run(() => this.readStorage(e)),
      tabs: e.tabs.list().map((t) => ({ url: this.urlOf(t.handle), active: t.active })),
    }))

  readonly subscribe = (listener: (event: RuntimeEvent) => void): Effect.Effect<() => void> =>
    Effect.sync(() => {
      this.listeners.add(listener)
      return () => void this.listeners.delete(listener)
    })

  /** Closes our contexts there and disconnects (the remote browser itself keeps running). Idempotent. */
  readonly shutdown: Effect.Effect<void> = Effect.promise(async () => {
    if (this.closed) return
    this.closed = true
    const all = [...this.entries.values()]
    this.entries.clear()
    await Promise.all(all.map((e) => settle(this.options.deadlineMs, e.context.close())))
    await settle(10_000, this.browser.close())
    this.listeners.clear()
  })

  /**
   * Reconnects after the connection was lost (contexts made before are gone with it).
   *
   * @example
   * if (!remote.connected) await remote.reconnect()
   */
  async reconnect(): Promise<void> {
    if (this.closed) throw new RuntimeError({ reason: 'unavailable', message: 'the remote runtime is shut down' })
    const browser = await chromium.connectOverCDP(this.url, { timeout: this.options.deadlineMs })
    await guardRemoteBrowser(browser, this.options.policy, this.options.log)
    this.browser = browser
    this.watch(browser)
  }

  // ---- internals ----

  private watch(browser: Browser): void {
    browser.on('disconnected', () => {
      if (this.browser !== browser || this.closed) return
      const lost = [...this.entries.keys()]
      for (const e of this.entries.values()) e.state = 'closing'
      this.entries.clear()
      this.options.log(`remote browser disconnected; lost contexts: ${lost.join(', ') || 'none'}`)
      this.emit({ _tag: 'BrowserCrashed', contextIds: lost })
    })
  }

  private withEntry<A>(contextId: ContextId, what: string, run: (e: Entry) => Promise<A>): Effect.Effect<A, RuntimeError | ContextNotFound> {
    return Effect.suspend((): Effect.Effect<A, RuntimeError | ContextNotFound> => {
      const entry = this.entries.get(contextId)
      if (!entry || entry.state !== 'open') {
        return Effect.fail(new ContextNotFound({ reason: 'unknown-context', contextId, message: `no open context ${contextId}` }))
      }
      return call(what, this.options.deadlineMs, () => run(entry))
    })
  }

  private async doOpen(spec: OpenContextSpec): Promise<ContextId> {
    if (!this.connected) await this.reconnect()
    const storage = spec.storage
    const context = await this.browser.newContext(
      storage && (storage.cookies.length > 0 || storage.origins.length > 0)
        ? { storageState: { cookies: storage.cookies.map((c) => ({ ...c })), origins: storage.origins.map((o) => ({ origin: o.origin, localStorage: [...o.localStorage] })) } }
        : {},
    )
    const id = `${spec.errandId}.r${++this.counter}`
    const entry: Entry = { id, context, tabs: new TabBook<Page>(), label: { reason: spec.label.reason, lentSites: [...spec.label.lentSites].sort() }, quiet: 0, pageWork: new PageWork(), state: 'open' }
    this.entries.set(id, entry)
    context.on('page', (page) => {
      if (entry.quiet === 0 && entry.tabs.idOf(page) === undefined) this.register(entry, page, true)
    })
    try {
      // Its sessions share the remote browser's one clipboard too.
      await Promise.all([guardRemoteContext(context, this.options.policy, this.options.log, id), isolateClipboard(context)])
      const specs = spec.tabs && spec.tabs.length > 0 ? spec.tabs : [{ url: 'about:blank', active: true }]
      const activeIndex = Math.max(0, specs.findIndex((t) => t.active))
      entry.quiet++
      const pages = await Promise.all(specs.map(() => context.newPage())).finally(() => entry.quiet--)
      pages.forEach((page, i) => this.register(entry, page, i === activeIndex))
      await Promise.all(specs.map(async (tab, i) => {
        if (tab.url === 'about:blank' || !checkRemoteNavigation(tab.url, this.options.policy, this.options.log, id).allow) return
        // A tab whose site is down still exists (it shows Chromium's error page).
        await this.goto(pages[i]!, tab.url).catch(() => undefined)
      }))
      if (pages.length > 1) await pages[activeIndex]!.bringToFront()
      return id
    } catch (error) {
      this.entries.delete(id)
      await settle(5_000, context.close())
      throw error
    }
  }

  private register(entry: Entry, page: Page, activate: boolean): string {
    const tabId = entry.tabs.add(page, { activate })
    page.on('load', () => {
      if (entry.tabs.idOf(page) === tabId && this.entries.get(entry.id) === entry) this.emit({ _tag: 'PageLoaded', contextId: entry.id, tabId })
    })
    page.on('crash', () => {
      if (this.entries.get(entry.id) !== entry) return
      this.entries.delete(entry.id)
      entry.state = 'closing'
      void settle(this.options.deadlineMs, entry.context.close())
      this.emit({ _tag: 'ContextCrashed', contextId: entry.id })
    })
    page.on('close', () => void entry.tabs.remove(tabId))
    return tabId
  }

  private pageIn(entry: Entry, tabId: string): Page {
    const page = entry.tabs.get(tabId)
    if (!page) throw new RuntimeError({ reason: 'invalid', message: `no tab ${tabId} in context ${entry.id}` })
    return page
  }

  private assertAllowed(entry: Entry, url: string): void {
    const decision = checkRemoteNavigation(url, this.options.policy, this.options.log, entry.id)
    if (!decision.allow) throw new RuntimeError({ reason: 'invalid', message: `blocked by policy (rule ${decision.rule}): ${decision.detail}` })
  }

  private async goto(page: Page, url: string): Promise<void> {
    this.intended.set(page, url)
    await page.goto(url, { waitUntil: 'commit', timeout: this.options.deadlineMs })
  }

  private urlOf(page: Page): string {
    const url = page.url()
    return url.startsWith('chrome-error:') ? (this.intended.get(page) ?? 'about:blank') : url
  }

  private async tabInfo(entry: Entry, id: string, page: Page): Promise<TabInfo> {
    const title = await settle(this.options.deadlineMs, page.title())
    return { id, url: this.urlOf(page), title: title ?? '', active: entry.tabs.active() === id, session: entry.label }
  }

  private async readStorage(entry: Entry): Promise<StorageState> {
    const state = await entry.context.storageState({ indexedDB: false })
    return {
      cookies: state.cookies.map(toCookie),
      origins: state.origins
        .filter((o) => o.localStorage.length > 0)
        .map((o) => ({ origin: o.origin, localStorage: o.localStorage.map((i) => ({ name: i.name, value: i.value })) })),
    }
  }

  private emit(event: RuntimeEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event)
      } catch {
        // a listener's failure is its own
      }
    }
  }
}
