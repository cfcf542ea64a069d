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
 * own browser's restore script (STACK-NOTES "Speed"), but exact. It lives beside our own Chromium
 * (it is a runtime over Playwright); the host takes it from here and never sees a page (#24).
 * Tabs, labels, snapshots, events and what a page does (loads, crashes, popups, a WebSocket that
 * escaped routing) come from `ContextRuntime`, the same code as our own browser's; this file keeps
 * what is remote: connecting, opening and restoring contexts, storage, navigation, a lost connection.
 *
 * @example
 * const remote = await RemoteRuntime.connect('http://10.0.0.5:9222', { policy, log, deadlineMs: 30_000 })
 * const id = await Effect.runPromise(remote.openContext({ errandId: 'e1', label: { reason: 'task', lentSites: [] } }))
 */
import { makeResolver } from '@errands/egress'
import type { Decision, GuardPolicy } from '@errands/guard'
import {
  MAIN_CONTEXT,
  RuntimeError,
  type ContextId,
  type Cookie,
  type OpenContextSpec,
  type RuntimeShape,
  type StorageState,
} from '@errands/runtime'
import { isolateClipboard } from '../clipboard.ts'
import { checkNavigation, guardBrowserRequests, guardContextWebSockets, type Log } from '../containment.ts'
import { ContextRuntime, type ContextEntry } from '../contexts.ts'
import { call, within } from '../failures.ts'
import { readContextStorage, removeCookiesFrom, toPlaywrightCookies } from '../storage.ts'
import { Effect } from 'effect'
import { chromium, type Browser, type Page } from 'playwright-core'

/** How to reach and guard the remote browser. */
export interface RemoteOptions {
  readonly policy: GuardPolicy
  readonly log: Log
  readonly deadlineMs: number
}

/**
 * `RuntimeShape` for errand contexts over a remote DevTools browser.
 *
 * @example
 * const remote = await RemoteRuntime.connect(url, options)
 */
export class RemoteRuntime extends ContextRuntime<ContextEntry> implements RuntimeShape {
  readonly kind = 'cdp'
  readonly mainContext: ContextId = MAIN_CONTEXT
  private readonly intended = new WeakMap<Page, string>()
  private counter = 0
  private closed = false

  private constructor(
    private browser: Browser,
    private readonly url: string,
    private readonly options: RemoteOptions,
  ) {
    super({ deadlineMs: options.deadlineMs, policy: options.policy, log: options.log, noun: 'remote context' })
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
      await guardBrowserRequests(browser, options.policy, options.log, 'the remote')
    } catch (error) {
      await within(5_000, browser.close())
      throw error
    }
    return new RemoteRuntime(browser, url, options)
  }

  /** Whether the connection is up. @example remote.connected */
  get connected(): boolean {
    return !this.closed && this.browser.isConnected()
  }

  /** Whether this runtime holds the context. @example remote.owns(id) */
  owns(contextId: ContextId): boolean {
    return this.entryOf(contextId) !== undefined
  }

  readonly openContext = (spec: OpenContextSpec): Effect.Effect<ContextId, RuntimeError> =>
    spec.upstreamProxy !== undefined
      ? // A remote DevTools browser's connections never pass our egress: it cannot chain a proxy.
        Effect.fail(
          new RuntimeError({
            reason: 'invalid',
            message: 'a remote DevTools browser cannot chain an errand through an upstream proxy',
          }),
        )
      : call('open remote context', this.options.deadlineMs * 2, () => this.doOpen(spec))

  readonly addCookies = (contextId: ContextId, cookies: ReadonlyArray<Cookie>) =>
    this.withEntry(contextId, 'add cookies', async (e) => {
      if (cookies.length > 0) await e.context.addCookies(toPlaywrightCookies(cookies))
    })

  readonly removeCookies = (contextId: ContextId, which: (cookie: Cookie) => boolean) =>
    this.withEntry(contextId, 'remove cookies', (e) => removeCookiesFrom(e.context, which))

  readonly clearOrigins = (contextId: ContextId, which: (origin: string) => boolean) =>
    this.withEntry(contextId, 'clear origins', (e) =>
      e.pageWork.run(async () => {
        const origins = (await readContextStorage(e.context)).origins.map((o) => o.origin).filter(which)
        if (origins.length === 0) return
        const { page, done } = await this.quietPage(e)
        try {
          const cdp = await e.context.newCDPSession(page)
          for (const origin of origins)
            await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'local_storage' })
          await cdp.detach().catch(() => undefined)
        } finally {
          await done()
        }
      }),
    )

  /** Closes our contexts there and disconnects (the remote browser itself keeps running). Idempotent. */
  readonly shutdown: Effect.Effect<void> = Effect.promise(async () => {
    if (this.closed) return
    this.closed = true
    const all = this.forgetWhere(() => true)
    await Promise.all(all.map((e) => within(this.options.deadlineMs, e.context.close())))
    await within(10_000, this.browser.close())
    this.clearListeners()
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
    await guardBrowserRequests(browser, this.options.policy, this.options.log, 'the remote')
    this.browser = browser
    this.watch(browser)
  }

  // ---- internals ----

  private watch(browser: Browser): void {
    browser.on('disconnected', () => {
      if (this.browser !== browser || this.closed) return
      const lost = this.forgetWhere(() => true).map((e) => e.id)
      this.options.log(`remote browser disconnected; lost contexts: ${lost.join(', ') || 'none'}`)
      this.emit({ _tag: 'BrowserCrashed', contextIds: lost })
    })
  }

  private async doOpen(spec: OpenContextSpec): Promise<ContextId> {
    await this.crashedClosed()
    if (!this.connected) await this.reconnect()
    const storage = spec.storage
    const context = await this.browser.newContext(
      storage && (storage.cookies.length > 0 || storage.origins.length > 0)
        ? {
            storageState: {
              cookies: storage.cookies.map((c) => ({ ...c })),
              origins: storage.origins.map((o) => ({ origin: o.origin, localStorage: [...o.localStorage] })),
            },
          }
        : {},
    )
    const id = `${spec.errandId}.r${++this.counter}`
    const entry = this.track({ id, context, label: spec.label })
    try {
      // Its sessions share the remote browser's one clipboard too.
      await Promise.all([
        guardContextWebSockets(context, this.options.policy, this.options.log, id, 'remote context'),
        isolateClipboard(context, spec.errandId),
      ])
      await this.openTabs(entry, spec.tabs, spec.storage)
      return id
    } catch (error) {
      this.forget(entry)
      await within(5_000, context.close())
      throw error
    }
  }

  // ---- hooks (see ContextRuntime) ----

  // #27: the remote browser's files are not this machine's; a client may name none.
  protected override get localFiles(): boolean {
    return false
  }

  protected override checkNavigation(url: string, contextId: ContextId): Promise<Decision> {
    return checkNavigation(url, this.options.policy, this.resolveNames, this.options.log, contextId, 'remote context')
  }

  /** The remote browser's names, judged as this machine's system resolver answers for them. */
  private readonly resolveNames = makeResolver([])

  protected override async goto(page: Page, url: string): Promise<void> {
    this.intended.set(page, url)
    await page.goto(url, { waitUntil: 'commit', timeout: this.options.deadlineMs })
  }

  protected override urlOf(page: Page): string {
    const url = page.url()
    return url.startsWith('chrome-error:') ? (this.intended.get(page) ?? 'about:blank') : url
  }

  // Playwright's storageState() makes a page of its own to visit origins: never beside another
  // page being made (pageWork.ts).
  protected override readStorage(entry: ContextEntry): Promise<StorageState> {
    return entry.pageWork.run(() => readContextStorage(entry.context))
  }
}
