/**
 * The per-context half of a `RuntimeShape` over Playwright browser contexts, written once for
 * every runtime that holds such contexts (our own Chromium and the host's remote DevTools
 * browser): the open contexts and their tabs, the tab operations, labels, snapshots, events, and
 * (in `contextPages.ts`, which it extends) what happens to a page — loads, renderer crashes,
 * popups, and a WebSocket that escaped routing. Playwright-style, the abstract class owns the
 * entries' lifecycle and a runtime fills in hooks for what really differs (how it navigates, the
 * URL a tab reports, how storage is read); opening and restoring contexts, storage writes and
 * shutdown stay the runtime's own. Beside it: the book of entries and listeners under the pages
 * (`contextBook.ts`), reopening tabs (`reopenTabs.ts`) and crashed contexts' last words
 * (`crashedContexts.ts`).
 *
 * @example
 * class MyRuntime extends ContextRuntime<ContextEntry> implements RuntimeShape {
 *   // kind, mainContext, openContext (with `track` + `register`), cookies, clearOrigins, shutdown,
 *   // and the hooks checkNavigation, goto, urlOf, readStorage
 * }
 */
import {
  PageOwner,
  RuntimeError,
  type ContextId,
  type ContextNotFound,
  type DevToolsTarget,
  type OriginStorage,
  type PageVerbs,
  type ScreencastOptions,
  type SessionLabel,
  type Snapshot,
  type StorageState,
  type TabInfo,
} from '@errands/runtime'
import { describeTarget } from '@errands/guard'
import { Effect, Option } from 'effect'
import type { Browser, Page } from 'playwright-core'
import { BrowserContextIds } from './browserContextIds.ts'
import { openCdpChannel } from './cdpChannel.ts'
import { keptLabel, type ContextEntry } from './contextEntry.ts'
import { ContextPages } from './contextPages.ts'
import { Downloads } from './downloads.ts'
import { closeWithin, within } from './failures.ts'
import { parsed } from './navigation.ts'
import { chromiumPages, closedTab } from './pageVerbs.ts'
import { tabScreencast } from './tabScreencast.ts'

export type { ContextEntry, ContextSettings } from './contextEntry.ts'

/**
 * The open contexts of one runtime and every per-context operation of `RuntimeShape` that does
 * not depend on how the runtime opens contexts or keeps their storage. Subclasses implement the
 * rest of `RuntimeShape` and the hooks.
 *
 * @example
 * export class RemoteRuntime extends ContextRuntime<ContextEntry> implements RuntimeShape { … }
 */
export abstract class ContextRuntime<E extends ContextEntry> extends ContextPages<E> {
  // ---- hooks ----

  /** A tab's sessionStorage for the origin it shows (E7); none in a runtime that does not read it. */
  protected async readSessionStorage(_entry: E, _page: Page): Promise<OriginStorage | undefined> {
    return undefined
  }

  /** A DevTools client of `entry` attached or left (it may have changed storage out of sight). */
  protected devtoolsClientChanged(_entry: E): void {}

  /**
   * The browser a DevTools client of `entry` reaches through a channel of the engine's own
   * connection (A1, ADR 0016), or undefined when this runtime has none to offer.
   */
  protected devtoolsBrowser(entry: E): Browser | undefined {
    return entry.context.browser() ?? undefined
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
      const entry = this.entryOf(contextId)
      if (!entry || entry.state === 'closing' || this.isLifelong(entry)) return
      this.forget(entry)
      await closeWithin(this.deadlineMs, entry.context, this.log, `${this.noun} ${entry.id}`)
    })

  /** @example yield* runtime.isOpen(id) */
  readonly isOpen = (contextId: ContextId): Effect.Effect<boolean> =>
    Effect.sync(() => this.entryOf(contextId)?.state === 'open')

  /** @example yield* runtime.storageState(id) */
  readonly storageState = (contextId: ContextId): Effect.Effect<StorageState, RuntimeError | ContextNotFound> =>
    this.withEntry(contextId, 'read storage', (entry) => this.readStorage(entry))

  /** @example yield* runtime.tabs(id) */
  readonly tabs = (contextId: ContextId) =>
    this.withEntry(contextId, 'list tabs', (entry) =>
      Promise.all(entry.tabs.list().map((t) => this.tabInfo(entry, t.id, t.handle))),
    )

  /** @example yield* runtime.openTab(id, 'https://shop.example/') */
  readonly openTab = (contextId: ContextId, url: string) =>
    this.withEntry(contextId, 'open tab', async (entry) => {
      await this.assertAllowed(entry, url)
      const page = await entry.pageWork.run(() => entry.context.newPage())
      // Usually the context's `page` event has made it a tab already.
      const tabId = entry.tabs.idOf(page) ?? this.register(entry, page, true)
      entry.tabs.activate(tabId)
      if (url !== 'about:blank') await this.goto(page, url).then(() => parsed(page))
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
      await this.assertAllowed(entry, url)
      await this.goto(page, url).then(() => parsed(page))
      return this.tabInfo(entry, tabId, page)
    })

  /**
   * A tab's screencast (`tabScreencast.ts`). @example const cast = yield* runtime.screencast(id, 't1', { ack: 'auto',
   * onFrame: keep })
   */
  readonly screencast = (contextId: ContextId, tabId: string, options: ScreencastOptions) =>
    tabScreencast(options, (cast) =>
      this.withEntry(contextId, 'start screencast', (entry) => cast.start(entry.context, this.pageIn(entry, tabId))),
    )

  /** The tab verbs (`pageVerbs.ts`); a tab that is gone is `target-closed`. */
  private readonly tabPages = chromiumPages(
    this.deadlineMs,
    (contextId, tabId, what, deadlineMs, run) =>
      this.withEntry(
        contextId,
        what,
        (entry, signal) => run(entry.tabs.get(tabId) ?? closedTab(tabId), signal),
        deadlineMs,
      ),
    this.contextSide((id) => this.filesDir(id)),
  )

  /** Each context's page state: the driven tab, its viewport, its input lock, its cast (`pageOwner.ts`). */
  private readonly pageOwner = new PageOwner(this.tabPages, {
    tabs: (id) => this.tabs(id),
    openTab: (id, url) => this.openTab(id, url),
    navigate: (id, tabId, url) => this.navigate(id, tabId, url),
    screencast: (id, tabId, options) => this.screencast(id, tabId, options),
    freeze: (id) => this.withEntry(id, 'freeze', (entry) => this.frozenContexts.set(entry.context, 'frozen')),
    thaw: (id) => this.withEntry(id, 'thaw', (entry) => this.frozenContexts.set(entry.context, 'active')),
  })

  /**
   * The page verbs: the tab verbs and the whole-verb calls of the page the runtime owns, each counted while it works
   * on a page (a freeze waits for them). @example yield* runtime.pages.go(id, 'https://shop.example/', 30_000)
   */
  readonly pages: PageVerbs = { ...this.pageOwner.tabVerbs, ...this.pageOwner.verbs }

  /** A context's page state goes with it. */
  protected override forget(entry: E, crashed?: 'crashed'): void {
    super.forget(entry, crashed)
    this.pageOwner.forget(entry.id)
  }

  /**
   * Freezes every page of the context and those it opens later (`lifecycle.ts`), once none of its page verbs is in
   * flight (`pageOwner.ts`). @example yield* runtime.freeze(id)
   */
  readonly freeze = (contextId: ContextId) => this.pageOwner.freeze(contextId)

  /** Sets the context's pages active again (`lifecycle.ts`). @example yield* runtime.thaw(id) */
  readonly thaw = (contextId: ContextId) => this.pageOwner.thaw(contextId)

  /** @example yield* runtime.setLabel(id, { reason: 'task', lentSites: [] }) */
  readonly setLabel = (contextId: ContextId, label: SessionLabel) =>
    this.withEntry(contextId, 'set label', async (entry) => {
      entry.label = keptLabel(label)
    })

  /** @example yield* runtime.lastWords(crashedId) */
  readonly lastWords = (contextId: ContextId): Effect.Effect<Option.Option<Omit<Snapshot, 'takenAt'>>> =>
    Effect.promise(async () => Option.fromNullable(await this.crashed.take(contextId)))
  /** @example yield* runtime.snapshot(id) */
  readonly snapshot = (contextId: ContextId) =>
    this.withEntry(contextId, 'snapshot', async (entry): Promise<Omit<Snapshot, 'takenAt'>> => {
      const handles = entry.tabs.list().map((t) => t.handle)
      const tabs = await Promise.all(
        this.tabSpecsOf(entry).map(async (spec, i) => {
          const sessionStorage = await this.readSessionStorage(entry, handles[i]!)
          return sessionStorage === undefined ? spec : { ...spec, sessionStorage }
        }),
      )
      const storage = await this.readStorage(entry)
      return { storage, tabs, ...(await this.readIndexedDb(entry)) }
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
        download: this.localFiles ? (guid: string) => this.downloads.savedAs(guid) : undefined,
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
      if (this.isLifelong(entry) || !this.localFiles)
        throw new RuntimeError({ reason: 'invalid', message: `context ${contextId} has no files folder` })
      return this.errandFiles.dirFor(contextId)
    })

  /** Downloads into the errands' folders, and the file verbs (`downloads.ts`, #25). */
  protected readonly downloads = new Downloads(
    this.errandFiles,
    (id) => this.filesDir(id),
    this.deadlineMs,
    this.log,
    this.filesCaps,
  )
  readonly files = this.downloads.verbs

  /** Whether the browser shares this machine's files (a remote DevTools browser does not). */
  protected get localFiles(): boolean {
    return true
  }

  /** Each context's CDP id (see `browserContextIds.ts`). */
  private readonly contextIds = new BrowserContextIds()

  private browserContextIdOf(entry: E): Promise<string> {
    return this.contextIds.of(entry, () => this.quietPage(entry))
  }

  /**
   * The errand context of this runtime whose CDP browser context is `browserContextId` (the person's
   * main context is never one); undefined when none is. @example await this.contextOfBrowserContext(id)
   */
  protected async contextOfBrowserContext(browserContextId: string): Promise<ContextId | undefined> {
    const errands = this.kept().filter((e) => e.state === 'open' && !this.isLifelong(e))
    const known = errands.find((e) => this.contextIds.known(e) === browserContextId)
    if (known !== undefined) return known.id
    // Read only where unknown, through a tab it has (the download came from one): never a page of our own opened.
    for (const entry of errands) {
      if (this.contextIds.known(entry) !== undefined || entry.tabs.list().length === 0) continue
      if ((await this.browserContextIdOf(entry).catch(() => undefined)) === browserContextId) return entry.id
    }
    return undefined
  }

  private pageIn(entry: E, tabId: string): Page {
    const page = entry.tabs.get(tabId)
    if (!page) throw new RuntimeError({ reason: 'invalid', message: `no tab ${tabId} in context ${entry.id}` })
    return page
  }

  private async assertAllowed(entry: E, url: string): Promise<void> {
    const decision = await this.checkNavigation(url, entry.id)
    if (!decision.allow) {
      throw new RuntimeError({
        reason: 'invalid',
        rule: decision.rule,
        message:
          `The containment policy refuses ${describeTarget(url)} (rule ${decision.rule}: ${decision.detail}); use ` +
          'another address.',
      })
    }
  }

  private async tabInfo(entry: E, id: string, page: Page): Promise<TabInfo> {
    // A held dialog blocks the page's scripts: its title would wait for the answer. So does a
    // frozen page's, until the thaw: the browser says it instead (lifecycle.ts).
    const title = this.dialogs.blocks(page)
      ? ''
      : ((await this.frozenContexts.title(page)) ?? (await within(this.deadlineMs, page.title())))
    return { id, url: this.urlOf(page), title: title ?? '', active: entry.tabs.active() === id, session: entry.label }
  }
}
