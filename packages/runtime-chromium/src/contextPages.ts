/**
 * What a runtime over Playwright browser contexts does with a context's pages, below the
 * per-context `RuntimeShape` operations (`ContextRuntime`, contexts.ts): it makes them tabs and
 * follows them — loads, renderer crashes (a crashed context's last words), popups, and a WebSocket
 * that escaped routing —, reopens a context's tabs (`reopenTabs.ts`), and makes quiet pages of its
 * own for its work. The hooks a runtime fills in for what really differs (how it navigates, the URL
 * a tab reports, how storage is read) are declared here, where the pages first need them.
 *
 * @example
 * export abstract class ContextRuntime<E extends ContextEntry> extends ContextPages<E> { … }
 */
import { decide, formatDecision, type Decision } from '@errands/guard'
import type { ContextId, Snapshot, StorageState, TabSpec } from '@errands/runtime'
import type { Page } from 'playwright-core'
import { ContextBook } from './contextBook.ts'
import type { ContextEntry } from './contextEntry.ts'
import { CrashedContexts } from './crashedContexts.ts'
import type { Downloads } from './downloads.ts'
import { within } from './failures.ts'
import { openTabs, type ReopenHooks } from './reopenTabs.ts'
import { FrozenContexts } from './lifecycle.ts'
import type { QuietPage } from './storage.ts'

/**
 * The pages of a runtime's contexts: tabs, followed; quiet pages of its own; a crashed context's
 * last words. `ContextRuntime` (contexts.ts) builds the per-context operations on it.
 *
 * @example
 * export abstract class ContextRuntime<E extends ContextEntry> extends ContextPages<E> { … }
 */
export abstract class ContextPages<E extends ContextEntry> extends ContextBook<E> {
  // ---- hooks ----

  /** Decides a navigation the runtime is asked to start; logs it when blocked. */
  protected abstract checkNavigation(url: string, contextId: ContextId): Promise<Decision>

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

  /**
   * The errand's own IndexedDB, every origin it used, and what was left out of it (E7); none in a
   * runtime that does not read it. Never part of {@link readStorage}: lending never moves it (L4).
   */
  protected async readIndexedDb(_entry: E): Promise<Pick<Snapshot, 'indexedDB' | 'leftOut'>> {
    return {}
  }

  /**
   * Whether the context lives as long as the runtime (the person's main context): `closeContext`
   * leaves it open, and a renderer crash closes only the crashed tab instead of the context.
   */
  protected isLifelong(_entry: E): boolean {
    return false
  }

  /** Listens to more of a page once it is a tab. */
  protected watchPage(_entry: E, _page: Page): void {}

  /** Downloads into the errands' folders (`downloads.ts`): every tab's are watched. */
  protected abstract readonly downloads: Downloads

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
  /** The contexts whose pages are frozen (`lifecycle.ts`); a page registered in one is frozen too. */
  protected readonly frozenContexts = new FrozenContexts()

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
      if (entry.tabs.idOf(page) === tabId && this.holds(entry))
        this.emit({ _tag: 'PageLoaded', contextId: entry.id, tabId })
    })
    page.on('crash', () => this.onPageCrash(entry, page))
    // Always a listener: without one Playwright dismisses every dialog at once (#22).
    this.dialogs.watch(entry.id, () => entry.tabs.idOf(page), page)
    this.pageLogs.watch(page)
    this.downloads.watch(entry.id, page)
    page.on('close', () => {
      entry.tabs.remove(tabId)
    })
    page.on('websocket', (ws) => {
      // Routed sockets that the guard blocks never open; one that shows up here anyway escaped
      // routing (a worker's — Playwright routes WebSockets with a script workers do not get): its
      // tab is closed (G1).
      const decision = decide(ws.url(), this.policy)
      if (!decision.allow) {
        this.log(
          formatDecision(
            ws.url(),
            decision,
            `websocket in ${this.noun} ${entry.id} (escaped routing: tab ${tabId} closed)`,
          ),
        )
        entry.tabs.remove(tabId)
        void within(5_000, page.close())
      }
    })
    this.watchPage(entry, page)
    this.frozenContexts.adopt(entry.context, page)
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
  protected openTabs(
    entry: E,
    tabs: ReadonlyArray<TabSpec> | undefined,
    sealed?: StorageState,
    ready: ReadonlyArray<Page> = [],
  ): Promise<void> {
    return openTabs(entry, tabs, sealed, ready, this.reopenHooks)
  }

  /** What reopening tabs uses of this runtime. */
  private get reopenHooks(): ReopenHooks<E> {
    return {
      deadlineMs: this.deadlineMs,
      log: this.log,
      noun: this.noun,
      register: (entry, page, activate, id) => this.register(entry, page, activate, id),
      checkNavigation: (url, contextId) => this.checkNavigation(url, contextId),
      goto: (page, url) => this.goto(page, url),
      readStorage: (entry) => this.readStorage(entry),
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

  /** The tabs as a snapshot keeps them: id, URL, active, in order. */
  protected tabSpecsOf(entry: E): Array<TabSpec> {
    return entry.tabs.list().map((t) => ({ id: t.id, url: this.urlOf(t.handle), active: t.active }))
  }

  /** Crashed contexts' last words, and their closing (see `crashedContexts.ts`). */
  protected readonly crashed = new CrashedContexts({ deadlineMs: this.deadlineMs, log: this.log, noun: this.noun })

  /**
   * Waits until the crashed contexts being read are closed, so a new context never stands beside
   * them: the open contexts stay within the cap (C1; the 30-minute soak saw one over it while a
   * crashed context's storage was read and a freed slot was already taken).
   *
   * @example
   * await this.crashedClosed()
   */
  protected async crashedClosed(): Promise<void> {
    await this.crashed.closed()
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
      // debounced snapshot; found by the soak, issue #15). Its files folder is set aside for the heal.
      this.forget(entry, 'crashed')
      const tabs = this.tabSpecsOf(entry)
      const read = this.readStorage(entry)
      // IndexedDB lives in the browser, not in the dead renderer: read with the storage (E7).
      this.crashed.hold(entry, tabs, read, this.readIndexedDb(entry))
    }
    this.emit({ _tag: 'ContextCrashed', contextId: entry.id })
  }
}
