/**
 * The per-context half of a `RuntimeShape` over Playwright browser contexts, written once for
 * every runtime that holds such contexts (our own Chromium and the host's remote DevTools
 * browser): the open contexts and their tabs, the tab operations, labels, snapshots, events, and
 * what happens to a page — loads, renderer crashes, popups, and a WebSocket that escaped routing.
 * Playwright-style, the abstract class owns the entries' lifecycle and a runtime fills in hooks
 * for what really differs (how it navigates, the URL a tab reports, how storage is read); opening
 * and restoring contexts, storage writes and shutdown stay the runtime's own.
 *
 * @example
 * class MyRuntime extends ContextRuntime<ContextEntry> implements RuntimeShape {
 *   // kind, mainContext, openContext (with `track` + `register`), cookies, clearOrigins, shutdown,
 *   // and the hooks checkNavigation, goto, urlOf, readStorage
 * }
 */
import { DevToolsClients } from './clients.ts'
import { Dialogs, type PendingDialog } from './dialogs.ts'
import { decide, formatDecision, type Decision, type GuardPolicy } from '@errands/guard'
import {
  ContextNotFound, RuntimeError,
  type ContextId, type DevToolsTarget, type RuntimeEvent, type SessionLabel, type Snapshot, type StorageState, type TabInfo, type TabSpec,
} from '@errands/runtime'
import { Effect, Option } from 'effect'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { openCdpChannel } from './cdpChannel.ts'
import { ErrandFiles } from './errandFiles.ts'
import { call, closeWithin, toRuntimeError, within } from './failures.ts'
import { putBackScript, storageDrift } from './restoreDrift.ts'
import { originOf, toPlaywrightCookies, type QuietPage } from './storage.ts'
import { PageWork } from './pageWork.ts'
import { TabBook } from './tabs.ts'

/**
 * What a runtime keeps about each open context; a runtime may add fields of its own.
 *
 * @example
 * interface Entry extends ContextEntry { readonly generation: number }
 */
export interface ContextEntry {
  readonly id: ContextId
  readonly context: BrowserContext
  label: SessionLabel
  readonly tabs: TabBook<Page>
  /** While > 0, new pages are the runtime's own (restore, helpers) and registered by it. */
  quietPages: number
  /** Page creation and storage reads of this context, one at a time (see `PageWork`). */
  readonly pageWork: PageWork
  state: 'open' | 'closing'
}

/** The fields {@link ContextRuntime.track} fills in itself. */
type Kept = 'tabs' | 'quietPages' | 'pageWork' | 'state'

/**
 * What every runtime over Playwright contexts is told at construction.
 *
 * @example
 * super({ deadlineMs: 30_000, policy, log: console.error, noun: 'remote context' })
 */
export interface ContextSettings {
  /** The deadline of every browser call. */
  readonly deadlineMs: number
  readonly policy: GuardPolicy
  readonly log: (line: string) => void
  /** How log lines name one of these contexts: `context`, `remote context`. */
  readonly noun: string
}

/**
 * A label as the runtime keeps it: lent sites sorted (labels are compared and shown as is).
 *
 * @example
 * keptLabel({ reason: 'task', lentSites: ['b.example', 'a.example'] }).lentSites // ['a.example', 'b.example']
 */
const keptLabel = (label: SessionLabel): SessionLabel => ({ reason: label.reason, lentSites: [...label.lentSites].sort() })

/**
 * The open contexts of one runtime and every per-context operation of `RuntimeShape` that does
 * not depend on how the runtime opens contexts or keeps their storage. Subclasses implement the
 * rest of `RuntimeShape` and the hooks.
 *
 * @example
 * export class RemoteRuntime extends ContextRuntime<ContextEntry> implements RuntimeShape { … }
 */
export abstract class ContextRuntime<E extends ContextEntry> {
  protected readonly deadlineMs: number
  protected readonly policy: GuardPolicy
  protected readonly log: (line: string) => void
  private readonly noun: string
  private readonly entries = new Map<ContextId, E>()
  private readonly listeners = new Set<(event: RuntimeEvent) => void>()

  /** DevTools clients attached per context (the proxy counts itself in; dialogs ask it). */
  readonly devtoolsClients = new DevToolsClients()

  /** Each errand's own files folder (A1, #27), removed with its context. */
  protected readonly errandFiles = new ErrandFiles()

  /** Every page's JavaScript dialogs: the attached client's, or held for the verbs (#22). */
  readonly dialogs: Dialogs

  protected constructor(settings: ContextSettings) {
    this.dialogs = new Dialogs({ deadlineMs: settings.deadlineMs, clients: this.devtoolsClients, log: settings.log })
    this.deadlineMs = settings.deadlineMs
    this.policy = settings.policy
    this.log = settings.log
    this.noun = settings.noun
  }

  // ---- hooks ----

  /** Decides a navigation the runtime is asked to start; logs it when blocked. */
  protected abstract checkNavigation(url: string, contextId: ContextId): Decision

  /** Navigates a tab until its new document commits. */
  protected abstract goto(page: Page, url: string): Promise<void>

  /** The URL a tab reports (and a snapshot reopens). */
  protected abstract urlOf(page: Page): string

  /**
   * The context's cookies and localStorage. Called outside its `pageWork`: a runtime runs only
   * the page making that must not interleave with others' through it, so a read never holds up
   * an agent's new tab.
   */
  protected abstract readStorage(entry: E): Promise<StorageState>

  /** A DevTools client of `entry` attached or left (it may have changed storage out of sight). */
  protected devtoolsClientChanged(_entry: E): void {}

  /**
   * Whether the context lives as long as the runtime (the person's main context): `closeContext`
   * leaves it open, and a renderer crash closes only the crashed tab instead of the context.
   */
  protected isLifelong(_entry: E): boolean {
    return false
  }

  /** Listens to more of a page once it is a tab. */
  protected watchPage(_entry: E, _page: Page): void {}

  /**
   * The browser a DevTools client of `entry` reaches through a channel of the engine's own
   * connection (A1, ADR 0016), or undefined when this runtime has none to offer.
   */
  protected devtoolsBrowser(entry: E): Browser | undefined {
    return entry.context.browser() ?? undefined
  }

  /** For an id with no entry: how to bring the context back, or undefined (ContextNotFound). */
  protected revive(_contextId: ContextId): Effect.Effect<E, RuntimeError> | undefined {
    return undefined
  }

  /**
   * Pages the runtime made for its own work (a storage read's visits, a clear with no tab open):
   * never tabs, closed when that work ends. They are pages of the context while they live, so
   * whoever lists a context's pages (tests, adapters) tells them apart with this.
   *
   * @example
   * context.pages().filter((p) => !runtime.isOwnPage(p))
   */
  isOwnPage(page: Page): boolean {
    return this.ownPages.has(page)
  }

  /** See {@link isOwnPage}; a runtime adds the pages it makes for itself. */
  protected readonly ownPages = new WeakSet<Page>()

  /** The Playwright page behind a tab (tests and adapters only). @example runtime.pageOf(id, 't1')?.evaluate(...) */
  pageOf(contextId: ContextId, tabId: string): Page | undefined {
    return this.entries.get(contextId)?.tabs.get(tabId)
  }

  /** The oldest dialog waiting for the verbs in a context (#22). @example runtime.pendingDialog(id)?.message */
  pendingDialog(contextId: ContextId): PendingDialog | undefined {
    return this.dialogs.pending(contextId)
  }

  /** Answers that dialog; undefined when none waits. @example await runtime.answerDialog(id, { accept: true }) */
  answerDialog(contextId: ContextId, how: { readonly accept: boolean; readonly promptText?: string | undefined }): Promise<PendingDialog | undefined> {
    return this.dialogs.answer(contextId, how)
  }

  /** The Playwright context behind an id (tests and adapters only). @example runtime.browserContextOf('main') */
  browserContextOf(contextId: ContextId): BrowserContext | undefined {
    return this.entries.get(contextId)?.context
  }

  // ---- the entries ----

  /**
   * Starts keeping a context (its label sorted) and makes the pages it opens itself (popups,
   * `target=_blank`) tabs, active like in a browser — unless the runtime is making quiet pages.
   *
   * @example
   * const entry = this.track({ id, context, label })
   */
  protected track(fields: Omit<E, Kept>): E {
    const entry = { ...fields, label: keptLabel(fields.label), tabs: new TabBook<Page>(), quietPages: 0, pageWork: new PageWork(), state: 'open' } as E
    this.entries.set(entry.id, entry)
    entry.context.on('page', (page) => {
      if (entry.quietPages === 0 && entry.tabs.idOf(page) === undefined) this.register(entry, page, true)
    })
    return entry
  }

  /** The entry of an id, open or closing. @example this.entryOf('main') */
  protected entryOf(contextId: ContextId): E | undefined {
    return this.entries.get(contextId)
  }

  /** Whether `entry` is still the one kept under its id. @example if (!this.holds(entry)) return */
  protected holds(entry: E): boolean {
    return this.entries.get(entry.id) === entry
  }

  /**
   * Stops keeping the entries `which` accepts (they are marked closing); returns them. Their
   * browser contexts are the caller's to close.
   *
   * @example
   * const lost = this.forgetWhere((e) => e.generation === generation)
   */
  protected forgetWhere(which: (entry: E) => boolean): Array<E> {
    const gone = [...this.entries.values()].filter(which)
    for (const entry of gone) this.forget(entry)
    return gone
  }

  /** Stops keeping one entry (marked closing). @example this.forget(entry) */
  protected forget(entry: E): void {
    entry.state = 'closing'
    if (this.holds(entry)) this.entries.delete(entry.id)
    // The errand's files go with it (#27: dropped, not sealed, on park too).
    this.errandFiles.drop(entry.id)
  }

  /**
   * Runs `run` on the open entry of `contextId` with the runtime's deadline; ContextNotFound for an
   * unknown or closing one (unless `revive` brings it back).
   *
   * @example
   * this.withEntry(id, 'add cookies', (entry) => entry.context.addCookies(cookies))
   */
  protected withEntry<A>(contextId: ContextId, what: string, run: (entry: E) => Promise<A>): Effect.Effect<A, RuntimeError | ContextNotFound> {
    return Effect.suspend((): Effect.Effect<A, RuntimeError | ContextNotFound> => {
      const entry = this.entries.get(contextId)
      const revived = entry ? undefined : this.revive(contextId)
      if (revived) return revived.pipe(Effect.flatMap((e) => call(what, this.deadlineMs, () => run(e))))
      if (!entry || entry.state !== 'open') {
        return Effect.fail(new ContextNotFound({ reason: 'unknown-context', contextId, message: `no open context ${contextId}` }))
      }
      return call(what, this.deadlineMs, () => run(entry))
    })
  }

  // ---- RuntimeShape, per context ----

  /**
   * Forgets and closes a context. Idempotent: unknown, already closing or crashed (forgotten) —
   * nothing to do; a lifelong one closes only with the runtime.
   *
   * @example
   * await Effect.runPromise(runtime.closeContext(id))
   */
  readonly closeContext = (contextId: ContextId): Effect.Effect<void> =>
    Effect.promise(async () => {
      const entry = this.entries.get(contextId)
      if (!entry || entry.state === 'closing' || this.isLifelong(entry)) return
      this.forget(entry)
      await closeWithin(this.deadlineMs, entry.context, this.log, `${this.noun} ${entry.id}`)
    })

  /** @example yield* runtime.isOpen(id) */
  readonly isOpen = (contextId: ContextId): Effect.Effect<boolean> =>
    Effect.sync(() => this.entries.get(contextId)?.state === 'open')

  /** @example yield* runtime.storageState(id) */
  readonly storageState = (contextId: ContextId): Effect.Effect<StorageState, RuntimeError | ContextNotFound> =>
    this.withEntry(contextId, 'read storage', (entry) => this.readStorage(entry))

  /** @example yield* runtime.tabs(id) */
  readonly tabs = (contextId: ContextId) =>
    this.withEntry(contextId, 'list tabs', (entry) => Promise.all(entry.tabs.list().map((t) => this.tabInfo(entry, t.id, t.handle))))

  /** @example yield* runtime.openTab(id, 'https://shop.example/') */
  readonly openTab = (contextId: ContextId, url: string) =>
    this.withEntry(contextId, 'open tab', async (entry) => {
      this.assertAllowed(entry, url)
      const page = await entry.pageWork.run(() => entry.context.newPage())
      // Usually the context's `page` event has made it a tab already.
      const tabId = entry.tabs.idOf(page) ?? this.register(entry, page, true)
      entry.tabs.activate(tabId)
      if (url !== 'about:blank') await this.goto(page, url)
      return this.tabInfo(entry, tabId, page)
    })

  /** @example yield* runtime.activateTab(id, 't2') */
  readonly activateTab = (contextId: ContextId, tabId: string) =>
    this.withEntry(contextId, 'activate tab', async (entry) => {
      const page = this.pageIn(entry, tabId)
      entry.tabs.activate(tabId)
      await page.bringToFront()
    })

  /** @example yield* runtime.closeTab(id, 't2') */
  readonly closeTab = (contextId: ContextId, tabId: string) =>
    this.withEntry(contextId, 'close tab', async (entry) => {
      const page = entry.tabs.get(tabId)
      if (!page) return // idempotent: an unknown or closed tab is closed
      entry.tabs.remove(tabId)
      await page.close()
    })

  /** @example yield* runtime.navigate(id, 't1', 'https://shop.example/') */
  readonly navigate = (contextId: ContextId, tabId: string, url: string) =>
    this.withEntry(contextId, 'navigate', async (entry) => {
      const page = this.pageIn(entry, tabId)
      this.assertAllowed(entry, url)
      await this.goto(page, url)
      return this.tabInfo(entry, tabId, page)
    })

  /** @example yield* runtime.setLabel(id, { reason: 'task', lentSites: [] }) */
  readonly setLabel = (contextId: ContextId, label: SessionLabel) =>
    this.withEntry(contextId, 'set label', async (entry) => {
      entry.label = keptLabel(label)
    })

  private readonly lastWordsOf = new Map<ContextId, Promise<Omit<Snapshot, 'takenAt'> | undefined>>()
  /** Crashed contexts still open while their last words are read, until they are closed. */
  private readonly closingCrashed = new Set<Promise<unknown>>()

  /**
   * Waits until the crashed contexts being read are closed, so a new context never stands beside
   * them: the open contexts stay within the cap (C1; the 30-minute soak saw one over it while a
   * crashed context's storage was read and a freed slot was already taken).
   *
   * @example
   * await this.crashedClosed()
   */
  protected async crashedClosed(): Promise<void> {
    await Promise.all([...this.closingCrashed])
  }

  /** @example yield* runtime.lastWords(crashedId) */
  readonly lastWords = (contextId: ContextId): Effect.Effect<Option.Option<Omit<Snapshot, 'takenAt'>>> =>
    Effect.promise(async () => {
      const words = this.lastWordsOf.get(contextId)
      this.lastWordsOf.delete(contextId)
      return Option.fromNullable(await words)
    })

  /** @example yield* runtime.snapshot(id) */
  readonly snapshot = (contextId: ContextId) =>
    this.withEntry(contextId, 'snapshot', async (entry): Promise<Omit<Snapshot, 'takenAt'>> => {
      const tabs = this.tabSpecsOf(entry)
      return { storage: await this.readStorage(entry), tabs }
    })

  /**
   * A channel into the context's browser over the engine's own connection, the context's
   * browser context id, and the count of attached clients, for the DevTools proxy (A1, A4). The
   * person's main context has none: no CDP client is ever let into it.
   *
   * @example
   * const { connect, browserContextId, attach } = yield* runtime.devtools(id)
   */
  readonly devtools = (contextId: ContextId): Effect.Effect<DevToolsTarget, RuntimeError | ContextNotFound> =>
    this.withEntry(contextId, 'devtools endpoint', async (entry) => {
      const browser = this.isLifelong(entry) ? undefined : this.devtoolsBrowser(entry)
      if (browser === undefined) {
        throw new RuntimeError({ reason: 'invalid', message: `context ${contextId} has no DevTools endpoint` })
      }
      return {
        browserContextId: await this.browserContextIdOf(entry),
        connect: () => openCdpChannel(browser),
        attach: () => {
          this.devtoolsClientChanged(entry)
          const release = this.devtoolsClients.attach(contextId)
          return () => {
            release()
            this.devtoolsClientChanged(entry)
          }
        },
        filesDir: this.localFiles ? this.errandFiles.dirFor(contextId) : undefined,
      }
    })

  /**
   * The errand's own files folder (A1, #27): the only place a DevTools client may name files of
   * this machine, and where the file verbs read and write. Made on first use, removed with the
   * context. The person's main context has none.
   *
   * @example
   * const dir = yield* runtime.filesDir(id)
   */
  readonly filesDir = (contextId: ContextId): Effect.Effect<string, RuntimeError | ContextNotFound> =>
    this.withEntry(contextId, 'files folder', async (entry) => {
      if (this.isLifelong(entry) || !this.localFiles) throw new RuntimeError({ reason: 'invalid', message: `context ${contextId} has no files folder` })
      return this.errandFiles.dirFor(contextId)
    })

  /** Whether the browser shares this machine's files (a remote DevTools browser does not). */
  protected get localFiles(): boolean {
    return true
  }

  /** @example const stop = yield* runtime.subscribe(console.log) */
  readonly subscribe = (listener: (event: RuntimeEvent) => void): Effect.Effect<() => void> =>
    Effect.sync(() => {
      this.listeners.add(listener)
      return () => {
        this.listeners.delete(listener)
      }
    })

  /**
   * Tells every listener; a listener's failure is logged and stays its own.
   *
   * @example
   * this.emit({ _tag: 'BrowserCrashed', contextIds: lost })
   */
  protected emit(event: RuntimeEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event)
      } catch (error) {
        this.log(`runtime event listener failed: ${toRuntimeError('listener', error).message}`)
      }
    }
  }

  /** Drops every listener (at shutdown). @example this.clearListeners() */
  protected clearListeners(): void {
    this.errandFiles.close()
    this.listeners.clear()
  }

  // ---- pages ----

  /**
   * Makes `page` a tab of `entry` and follows it: loads become `PageLoaded`, a renderer crash
   * `ContextCrashed`, a closed page leaves the tabs, and a WebSocket the guard blocks closes it.
   *
   * @example
   * const tabId = this.register(entry, page, true)
   */
  protected register(entry: E, page: Page, activate: boolean, id?: string): string {
    const tabId = entry.tabs.add(page, { activate, ...(id === undefined ? {} : { id }) })
    page.on('load', () => {
      if (entry.tabs.idOf(page) === tabId && this.holds(entry)) this.emit({ _tag: 'PageLoaded', contextId: entry.id, tabId })
    })
    page.on('crash', () => this.onPageCrash(entry, page))
    // Always a listener: without one Playwright dismisses every dialog at once (#22).
    this.dialogs.watch(entry.id, () => entry.tabs.idOf(page), page)
    page.on('close', () => {
      entry.tabs.remove(tabId)
    })
    page.on('websocket', (ws) => {
      // Routed sockets that the guard blocks never open; one that shows up here anyway escaped
      // routing (a worker's — Playwright routes WebSockets with a script workers do not get): its
      // tab is closed (G1).
      const decision = decide(ws.url(), this.policy)
      if (!decision.allow) {
        this.log(formatDecision(ws.url(), decision, `websocket in ${this.noun} ${entry.id} (escaped routing: tab ${tabId} closed)`))
        entry.tabs.remove(tabId)
        void within(5_000, page.close())
      }
    })
    this.watchPage(entry, page)
    return tabId
  }

  /**
   * Opens a context's tabs as `tabs` lists them (one blank tab when none): pages made in
   * parallel (reusing `ready` ones, e.g. a warm spare's), registered in the given order, loaded
   * in parallel through the guard, the active one in front. A tab whose site is down still
   * exists (it shows Chromium's error page); a crash while loading fails the open.
   *
   * With `sealed` (the storage the context was opened with), the reloads' own writes are put
   * back once the tabs have loaded (see `restoreDrift.ts`).
   *
   * @example
   * await this.openTabs(entry, spec.tabs, spec.storage, context.pages())
   */
  protected async openTabs(entry: E, tabs: ReadonlyArray<TabSpec> | undefined, sealed?: StorageState, ready: ReadonlyArray<Page> = []): Promise<void> {
    const specs = tabs && tabs.length > 0 ? tabs : [{ url: 'about:blank', active: true }]
    const activeIndex = Math.max(0, specs.findIndex((t) => t.active))
    entry.quietPages++
    let pages: Array<Page>
    try {
      pages = [...ready.slice(0, specs.length), ...(await Promise.all(specs.slice(ready.length).map(() => entry.context.newPage())))]
    } finally {
      entry.quietPages--
    }
    pages.forEach((page, i) => this.register(entry, page, i === activeIndex, specs[i]!.id))
    await Promise.all(specs.map(async (tab, i) => {
      if (tab.url === 'about:blank' || !this.checkNavigation(tab.url, entry.id).allow) return
      await this.goto(pages[i]!, tab.url).catch((e: unknown) => {
        const failure = toRuntimeError('restore tab', e)
        if (failure.reason === 'crashed' || failure.reason === 'target-closed') throw failure
      })
    }))
    if (pages.length > 1) await pages[activeIndex]!.bringToFront()
    if (sealed && specs.some((t) => t.url !== 'about:blank')) await this.putBackStorage(entry, sealed, pages)
  }

  /**
   * After reopened tabs have loaded (their documents parsed, bounded), puts back what their
   * reloads changed in the context's storage: cookies as the record held them, localStorage of
   * each changed origin through a tab of that origin. Best effort: a failure is logged, never
   * fails the open.
   *
   * @example
   * await this.putBackStorage(entry, spec.storage, pages)
   */
  private async putBackStorage(entry: E, sealed: StorageState, pages: ReadonlyArray<Page>): Promise<void> {
    const settleMs = Math.min(5_000, this.deadlineMs)
    try {
      await Promise.all(pages.map((p) => p.waitForLoadState('domcontentloaded', { timeout: settleMs }).catch(() => undefined)))
      const drift = storageDrift(sealed, await this.readStorage(entry), Date.now() / 1000)
      if (drift.clean) return
      await Promise.all(drift.cookiesToRemove.map((c) => entry.context.clearCookies({ name: c.name, domain: c.domain, path: c.path })))
      if (drift.cookiesToAdd.length > 0) await entry.context.addCookies(toPlaywrightCookies(drift.cookiesToAdd))
      for (const o of drift.originsToReset) {
        const page = pages.find((p) => !p.isClosed() && originOf(p.url()) === o.origin)
        if (page === undefined) {
          this.log(`${this.noun} ${entry.id}: localStorage of ${o.origin} changed while its tabs reopened, and no tab of it is left to put it back`)
          continue
        }
        await within(settleMs, page.evaluate(putBackScript(o.localStorage)))
      }
      this.log(`${this.noun} ${entry.id}: put back what reopening its tabs changed (${drift.cookiesToAdd.length + drift.cookiesToRemove.length} cookies, ${drift.originsToReset.length} origins)`)
    } catch (e) {
      this.log(`${this.noun} ${entry.id}: could not put back what reopening its tabs changed (${e instanceof Error ? e.message : String(e)})`)
    }
  }

  /**
   * A page of the context for the runtime's own work: its first tab, or a new page that never
   * becomes a tab (closed by `done`).
   *
   * @example
   * const { page, done } = await this.quietPage(entry)
   */
  protected async quietPage(entry: E): Promise<QuietPage> {
    const existing = entry.tabs.list()[0]?.handle
    return existing ? { page: existing, done: async () => undefined } : this.newQuietPage(entry)
  }

  /**
   * A new page of the context for the runtime's own work: never a tab, one of its own pages
   * ({@link isOwnPage}), closed by `done`. Make it inside the entry's `pageWork`.
   *
   * @example
   * const { page, done } = await entry.pageWork.run(() => this.newQuietPage(entry))
   */
  protected async newQuietPage(entry: E): Promise<QuietPage> {
    entry.quietPages++
    try {
      const page = await entry.context.newPage()
      this.ownPages.add(page)
      return { page, done: () => page.close() }
    } finally {
      entry.quietPages--
    }
  }

  // Playwright does not expose a context's CDP id; a page's target info carries it. Cached: a
  // context keeps its id for life.
  private readonly contextIds = new WeakMap<BrowserContext, string>()

  private async browserContextIdOf(entry: E): Promise<string> {
    const known = this.contextIds.get(entry.context)
    if (known !== undefined) return known
    const { page, done } = await entry.pageWork.run(() => this.quietPage(entry))
    try {
      const session = await entry.context.newCDPSession(page)
      const { targetInfo } = await session.send('Target.getTargetInfo')
      await session.detach().catch(() => undefined)
      const id = targetInfo.browserContextId
      if (id === undefined) throw new RuntimeError({ reason: 'unavailable', message: `context ${entry.id} reports no browser context id` })
      this.contextIds.set(entry.context, id)
      return id
    } finally {
      await done()
    }
  }

  /** The tabs as a snapshot keeps them: id, URL, active, in order. */
  private tabSpecsOf(entry: E): Array<TabSpec> {
    return entry.tabs.list().map((t) => ({ id: t.id, url: this.urlOf(t.handle), active: t.active }))
  }

  private pageIn(entry: E, tabId: string): Page {
    const page = entry.tabs.get(tabId)
    if (!page) throw new RuntimeError({ reason: 'invalid', message: `no tab ${tabId} in context ${entry.id}` })
    return page
  }

  private assertAllowed(entry: E, url: string): void {
    const decision = this.checkNavigation(url, entry.id)
    if (!decision.allow) {
      throw new RuntimeError({ reason: 'invalid', message: `blocked by policy (rule ${decision.rule}): ${decision.detail}` })
    }
  }

  private async tabInfo(entry: E, id: string, page: Page): Promise<TabInfo> {
    // A held dialog blocks the page's scripts: its title would wait for the answer.
    const title = this.dialogs.blocks(page) ? '' : await within(this.deadlineMs, page.title())
    return { id, url: this.urlOf(page), title: title ?? '', active: entry.tabs.active() === id, session: entry.label }
  }

  private onPageCrash(entry: E, page: Page): void {
    if (!this.holds(entry)) return
    this.log(`renderer crashed in ${this.noun} ${entry.id}`)
    if (this.isLifelong(entry)) {
      const tabId = entry.tabs.idOf(page)
      if (tabId) entry.tabs.remove(tabId)
      void within(5_000, page.close())
    } else {
      // A crashed context is forgotten at once (calls see it gone) and the supervisor heals it.
      // Its storage lives in the browser, not in the dead renderer: it is read, with the tabs'
      // URLs, before the context closes — the heal's last words (lossless, not the last
      // debounced snapshot; found by the soak, issue #15).
      this.forget(entry)
      const tabs = this.tabSpecsOf(entry)
      const read = this.readStorage(entry)
      read.catch((e: unknown) => this.log(`${this.noun} ${entry.id}: its storage could not be read after the crash (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); it heals from its last snapshot`))
      const words = within(Math.min(10_000, this.deadlineMs), read)
        .then((storage) => (storage === undefined ? undefined : { storage, tabs }))
      this.lastWordsOf.set(entry.id, words)
      const closed = words.finally(() => closeWithin(this.deadlineMs, entry.context, this.log, `crashed ${this.noun} ${entry.id}`))
      this.closingCrashed.add(closed)
      void closed.finally(() => this.closingCrashed.delete(closed))
      // Never read (the errand ended meanwhile): not kept for good.
      setTimeout(() => this.lastWordsOf.get(entry.id) === words && this.lastWordsOf.delete(entry.id), 60_000).unref()
    }
    this.emit({ _tag: 'ContextCrashed', contextId: entry.id })
  }
}
