import { Context, Effect, Layer, Option } from 'effect'
import { ContextNotFound, RuntimeError } from './errors.ts'
import { MemoryPages } from './memoryPages.ts'
import { MemoryFiles } from './memoryFiles.ts'
import { MemoryScreencasts, type MemoryPaint } from './memoryScreencast.ts'
import { Runtime, type RuntimeShape } from './Runtime.ts'
import { originOf } from './origins.ts'
import type { ScreencastOptions } from './screencast.ts'
import type { UpstreamProxy } from './upstream.ts'
import {
  MAIN_CONTEXT,
  tabIdFor,
  type ContextId,
  type Cookie,
  type IndexedDbDatabase,
  type IndexedDbLeftOut,
  type OpenContextSpec,
  type OriginIndexedDb,
  type RuntimeEvent,
  type SessionLabel,
  type Snapshot,
  type StorageState,
  type TabInfo,
  type TabSpec,
} from './types.ts'

interface MemoryTab {
  readonly id: string
  url: string
}

interface MemoryContext {
  label: SessionLabel
  cookies: Cookie[]
  readonly origins: Map<string, Map<string, string>>
  tabs: MemoryTab[]
  activeTab: string | undefined
  nextTab: number
  /** The errand's own IndexedDB by origin (E7), and the origins a read would leave out. */
  readonly indexedDB: Map<string, ReadonlyArray<IndexedDbDatabase>>
  readonly leftOut: Map<string, IndexedDbLeftOut['reason']>
}

/** What a simulated site does to a context when a tab visits it (see {@link MemoryRuntime.visit}). */
export interface VisitEffects {
  readonly setCookies?: ReadonlyArray<Cookie>
  readonly clearCookies?: ReadonlyArray<string>
  readonly localStorage?: Readonly<Record<string, string>>
  /** The origin's IndexedDB databases from now on (E7). */
  readonly indexedDB?: ReadonlyArray<IndexedDbDatabase>
  /** A snapshot would leave the origin's IndexedDB out, for this reason (E7: over the errand's cap …). */
  readonly indexedDbLeftOut?: IndexedDbLeftOut['reason']
}

const cookieKey = (c: Pick<Cookie, 'name' | 'domain' | 'path'>) => `${c.name}\u0000${c.domain}\u0000${c.path}`

/**
 * A deterministic, in-memory browser: per-context cookies, localStorage and tabs, ids from
 * counters, events delivered synchronously, crashes injected on demand. It is the runtime of
 * the supervisor's unit tests and of journal replay, so it never reads a clock or randomness.
 *
 * @example
 * const memory = MemoryRuntime.make()
 * const id = Effect.runSync(memory.openContext({ errandId: 'e1', label: { reason: 'task', lentSites: [] } }))
 * memory.visit(id, 'http://shop.test/', { setCookies: [cookie('basket', 'apple', 'shop.test')] })
 * memory.paint(id) // every screencast of its active tab that may take a frame gets one
 * memory.crashBrowser() // every errand context is gone; subscribers hear BrowserCrashed
 */
export class MemoryRuntime implements RuntimeShape {
  readonly kind = 'memory'
  readonly mainContext = MAIN_CONTEXT
  private readonly contexts = new Map<ContextId, MemoryContext>()
  private readonly lastWordsOf = new Map<ContextId, Omit<Snapshot, 'takenAt'>>()
  private readonly listeners = new Set<(event: RuntimeEvent) => void>()
  private nextContext = 1
  private failOpens: Array<RuntimeError['reason']> = []
  /** How many contexts were ever opened (for tests that count effects). */
  opened = 0
  /** Each open context's upstream proxy, as the egress would chain it (tests of issue #21). */
  readonly upstreamProxies = new Map<ContextId, UpstreamProxy | undefined>()
  /** The running screencasts (`memoryScreencast.ts`); `running()` counts them. */
  readonly screencasts = new MemoryScreencasts()
  /** The page verbs, faked (`memoryPages.ts`): tests set a page's text and read what was done to it. */
  readonly pages = new MemoryPages(
    (contextId, tabId) => this.withTab(contextId, tabId, (_ctx, tab) => ({ url: tab.url, title: tab.url })),
    (contextId) => this.withContext(contextId, (ctx) => ctx.activeTab),
    {
      tabs: (contextId) => this.tabs(contextId),
      openTab: (contextId, url) => this.openTab(contextId, url),
      navigate: (contextId, tabId, url) => this.navigate(contextId, tabId, url),
      screencast: (contextId, tabId, options) => this.screencast(contextId, tabId, options),
      freeze: (contextId) => this.withContext(contextId, () => void this.frozen.add(contextId)),
      thaw: (contextId) => this.withContext(contextId, () => void this.frozen.delete(contextId)),
    },
  )
  /** The files folders, faked (`memoryFiles.ts`): `download` stands in for a page's download. */
  readonly files = new MemoryFiles(
    (contextId) =>
      contextId === MAIN_CONTEXT
        ? Effect.fail(new RuntimeError({ reason: 'invalid', message: 'the main context has no files folder' }))
        : this.withContext(contextId, () => undefined),
    (contextId, name) => this.pages.putFile(contextId, name),
  )

  static make(): MemoryRuntime {
    return new MemoryRuntime()
  }

  constructor() {
    this.contexts.set(MAIN_CONTEXT, this.blank({ reason: 'main', lentSites: [] }))
  }

  // ---- RuntimeShape ------------------------------------------------------------------------

  readonly openContext = (spec: OpenContextSpec): Effect.Effect<ContextId, RuntimeError> =>
    Effect.suspend(() => {
      const failure = this.failOpens.shift()
      if (failure !== undefined) {
        return Effect.fail(
          new RuntimeError({ reason: failure, message: `injected ${failure} while opening a context` }),
        )
      }
      const id = `ctx-${this.nextContext++}`
      const ctx = this.blank(spec.label)
      this.restoreInto(ctx, spec.storage, spec.tabs)
      for (const o of spec.indexedDB ?? []) ctx.indexedDB.set(o.origin, o.databases)
      this.contexts.set(id, ctx)
      this.files.belongsTo(id, spec.errandId)
      this.upstreamProxies.set(id, spec.upstreamProxy)
      this.opened++
      return Effect.succeed(id)
    })

  readonly closeContext = (contextId: ContextId): Effect.Effect<void> =>
    // Closing is idempotent: an unknown or already-closed context is simply not there any more.
    Effect.sync(() => {
      if (contextId !== MAIN_CONTEXT) this.dropContext(contextId)
      this.upstreamProxies.delete(contextId)
    })

  readonly setUpstreamProxy = (contextId: ContextId, proxy: UpstreamProxy | undefined) =>
    this.withContext(contextId, () => void this.upstreamProxies.set(contextId, proxy))

  readonly isOpen = (contextId: ContextId) => Effect.sync(() => this.contexts.has(contextId))

  readonly storageState = (contextId: ContextId) => this.withContext(contextId, (ctx) => this.storageOf(ctx))

  readonly addCookies = (contextId: ContextId, cookies: ReadonlyArray<Cookie>) =>
    this.withContext(contextId, (ctx) => this.putCookies(ctx, cookies))

  readonly removeCookies = (contextId: ContextId, which: (cookie: Cookie) => boolean) =>
    this.withContext(contextId, (ctx) => {
      const before = ctx.cookies.length
      ctx.cookies = ctx.cookies.filter((c) => !which(c))
      return before - ctx.cookies.length
    })

  readonly clearOrigins = (contextId: ContextId, which: (origin: string) => boolean) =>
    this.withContext(contextId, (ctx) => {
      for (const origin of [...ctx.origins.keys()]) if (which(origin)) ctx.origins.delete(origin)
    })

  readonly tabs = (contextId: ContextId) => this.withContext(contextId, (ctx) => this.tabsOf(ctx))

  readonly openTab = (contextId: ContextId, url: string) =>
    this.withContext(contextId, (ctx) => {
      const tab = { id: `t${ctx.nextTab++}`, url }
      ctx.tabs.push(tab)
      ctx.activeTab = tab.id
      return this.tabInfo(ctx, tab)
    })

  readonly activateTab = (contextId: ContextId, tabId: string) =>
    this.withTab(contextId, tabId, (ctx) => {
      ctx.activeTab = tabId
    })

  readonly closeTab = (contextId: ContextId, tabId: string) =>
    this.withTab(contextId, tabId, (ctx) => {
      const index = ctx.tabs.findIndex((t) => t.id === tabId)
      ctx.tabs.splice(index, 1)
      this.screencasts.stopWhere((key) => key === `${contextId}/${tabId}`)
      this.pages.forget((key) => key === `${contextId}/${tabId}`)
      if (ctx.activeTab === tabId) ctx.activeTab = (ctx.tabs[index] ?? ctx.tabs[index - 1])?.id
    })

  readonly navigate = (contextId: ContextId, tabId: string, url: string) =>
    this.withTab(contextId, tabId, (ctx, tab) => {
      tab.url = url
      return this.tabInfo(ctx, tab)
    })

  readonly setLabel = (contextId: ContextId, label: SessionLabel) =>
    this.withContext(contextId, (ctx) => {
      ctx.label = label
    })

  readonly snapshot = (contextId: ContextId) => this.withContext(contextId, (ctx) => this.snapshotOf(ctx))

  readonly lastWords = (contextId: ContextId) =>
    Effect.sync(() => {
      const words = this.lastWordsOf.get(contextId)
      this.lastWordsOf.delete(contextId)
      return Option.fromNullable(words)
    })

  /** The errand contexts frozen now (docs/parking.md): tests read it, a frozen context's pages are not painted. */
  readonly frozen = new Set<ContextId>()

  /** Once none of the context's page verbs is in flight (`verbGate.ts`). */
  readonly freeze = (contextId: ContextId) => this.pages.freeze(contextId)

  readonly thaw = (contextId: ContextId) => this.pages.thaw(contextId)

  readonly screencast = (contextId: ContextId, tabId: string, options: ScreencastOptions) =>
    this.withTab(contextId, tabId, () => this.screencasts.start(`${contextId}/${tabId}`, options))

  readonly subscribe = (listener: (event: RuntimeEvent) => void) =>
    Effect.sync(() => {
      this.listeners.add(listener)
      return () => void this.listeners.delete(listener)
    })

  readonly shutdown = Effect.sync(() => {
    for (const id of [...this.contexts.keys()]) if (id !== MAIN_CONTEXT) this.dropContext(id)
  })

  // ---- simulation and fault injection (tests and replay) -----------------------------------

  /**
   * A tab of `contextId` loads `url` and the site applies `effects` (cookies it sets, localStorage
   * it writes); subscribers hear `PageLoaded`. Opens a tab when the context has none.
   */
  visit(contextId: ContextId, url: string, effects: VisitEffects = {}, tabId?: string): TabInfo {
    const ctx = this.contexts.get(contextId)
    if (ctx === undefined) throw new Error(`visit: no context ${contextId}`)
    let tab = ctx.tabs.find((t) => t.id === (tabId ?? ctx.activeTab))
    if (tab === undefined) {
      tab = { id: `t${ctx.nextTab++}`, url }
      ctx.tabs.push(tab)
      ctx.activeTab = tab.id
    }
    tab.url = url
    this.putCookies(ctx, effects.setCookies ?? [])
    if (effects.clearCookies) ctx.cookies = ctx.cookies.filter((c) => !effects.clearCookies!.includes(c.name))
    const origin = originOf(url)
    if (origin !== undefined && effects.localStorage) {
      const items = ctx.origins.get(origin) ?? new Map<string, string>()
      for (const [k, v] of Object.entries(effects.localStorage)) items.set(k, v)
      ctx.origins.set(origin, items)
    }
    if (origin !== undefined && effects.indexedDB) ctx.indexedDB.set(origin, effects.indexedDB)
    if (origin !== undefined && effects.indexedDbLeftOut) ctx.leftOut.set(origin, effects.indexedDbLeftOut)
    this.emit({ _tag: 'PageLoaded', contextId, tabId: tab.id })
    this.paint(contextId, tab.id)
    return this.tabInfo(ctx, tab)
  }

  /**
   * A tab of `contextId` (the active one by default) repaints: each of its screencasts gets a
   * frame, unless it waits for acks (see `memoryScreencast.ts`). Returns how many got one.
   *
   * @example
   * memory.paint(id, 't1', { width: 800, height: 600 }) // 1
   */
  paint(contextId: ContextId, tabId?: string, paint?: MemoryPaint): number {
    if (this.frozen.has(contextId)) return 0
    const tab = tabId ?? this.contexts.get(contextId)?.activeTab
    return tab === undefined ? 0 : this.screencasts.paint(`${contextId}/${tab}`, paint)
  }

  /**
   * The context's renderer dies: the context is gone and subscribers hear `ContextCrashed`. With
   * `lastWords`, what it held is kept for `lastWords` (what Chromium's runtime reads after a
   * renderer crash); without, nothing is (a crash nothing could be read from).
   */
  crashContext(contextId: ContextId, lastWords = false): void {
    const ctx = this.contexts.get(contextId)
    if (contextId === MAIN_CONTEXT || ctx === undefined) return
    if (lastWords) this.lastWordsOf.set(contextId, this.snapshotOf(ctx))
    this.files.setAside(contextId) // kept for the heal, as Chromium's runtime keeps it (K3)
    this.dropContext(contextId)
    this.emit({ _tag: 'ContextCrashed', contextId })
  }

  /** The errands' browser dies (SIGKILL): every errand context is gone; the main context stays. */
  crashBrowser(): void {
    const contextIds = [...this.contexts.keys()].filter((id) => id !== MAIN_CONTEXT)
    for (const id of contextIds) {
      this.files.setAside(id)
      this.dropContext(id)
    }
    this.emit({ _tag: 'BrowserCrashed', contextIds })
  }

  /** The next `openContext` calls fail with these reasons, in order. */
  failNextOpens(...reasons: Array<RuntimeError['reason']>): void {
    this.failOpens.push(...reasons)
  }

  /** Ids of the open contexts, main included. */
  openContexts(): ReadonlyArray<ContextId> {
    return [...this.contexts.keys()]
  }

  // ---- internals ---------------------------------------------------------------------------

  /** A context goes, and the screencasts of its tabs stop with it. */
  private dropContext(contextId: ContextId) {
    this.contexts.delete(contextId)
    this.frozen.delete(contextId)
    this.screencasts.stopWhere((key) => key.startsWith(`${contextId}/`))
    this.pages.forget((key) => key.startsWith(`${contextId}/`), contextId)
    this.files.forget((id) => id === contextId)
  }

  private snapshotOf(ctx: MemoryContext): Omit<Snapshot, 'takenAt'> {
    const indexedDB: Array<OriginIndexedDb> = [...ctx.indexedDB]
      .filter(([origin]) => !ctx.leftOut.has(origin))
      .map(([origin, databases]) => ({ origin, databases }))
    const leftOut = [...ctx.leftOut].map(([origin, reason]) => ({ origin, reason }))
    return {
      storage: this.storageOf(ctx),
      tabs: ctx.tabs.map((t): TabSpec => ({ id: t.id, url: t.url, active: t.id === ctx.activeTab })),
      ...(indexedDB.length === 0 ? {} : { indexedDB }),
      ...(leftOut.length === 0 ? {} : { leftOut }),
    }
  }

  private blank(label: SessionLabel): MemoryContext {
    return {
      label,
      cookies: [],
      origins: new Map(),
      tabs: [],
      activeTab: undefined,
      nextTab: 1,
      indexedDB: new Map(),
      leftOut: new Map(),
    }
  }

  private restoreInto(ctx: MemoryContext, storage: StorageState | undefined, tabs: ReadonlyArray<TabSpec> | undefined) {
    if (storage) {
      this.putCookies(ctx, storage.cookies)
      for (const o of storage.origins) ctx.origins.set(o.origin, new Map(o.localStorage.map((i) => [i.name, i.value])))
    }
    const specs = tabs && tabs.length > 0 ? tabs : [{ url: 'about:blank', active: true }]
    for (const spec of specs) {
      // The id it was snapshotted with, when free (see TabSpec.id); later tabs number after it.
      const { id, next } = tabIdFor(spec.id, (taken) => ctx.tabs.some((t) => t.id === taken), ctx.nextTab)
      ctx.nextTab = next
      const tab = { id, url: spec.url }
      ctx.tabs.push(tab)
      if (spec.active) ctx.activeTab = tab.id
    }
    ctx.activeTab ??= ctx.tabs[0]?.id
  }

  private putCookies(ctx: MemoryContext, cookies: ReadonlyArray<Cookie>) {
    const byKey = new Map(ctx.cookies.map((c) => [cookieKey(c), c]))
    for (const c of cookies) byKey.set(cookieKey(c), { ...c })
    ctx.cookies = [...byKey.values()]
  }

  private storageOf(ctx: MemoryContext): StorageState {
    return {
      cookies: ctx.cookies.map((c) => ({ ...c })),
      origins: [...ctx.origins.entries()]
        .filter(([, items]) => items.size > 0)
        .map(([origin, items]) => ({
          origin,
          localStorage: [...items.entries()].map(([name, value]) => ({ name, value })),
        })),
    }
  }

  private tabInfo(ctx: MemoryContext, tab: MemoryTab): TabInfo {
    return { id: tab.id, url: tab.url, title: tab.url, active: tab.id === ctx.activeTab, session: ctx.label }
  }

  private tabsOf(ctx: MemoryContext): ReadonlyArray<TabInfo> {
    return ctx.tabs.map((t) => this.tabInfo(ctx, t))
  }

  private emit(event: RuntimeEvent) {
    for (const listener of [...this.listeners]) listener(event)
  }

  private withContext<A>(contextId: ContextId, f: (ctx: MemoryContext) => A): Effect.Effect<A, ContextNotFound> {
    return Effect.suspend(() => {
      const ctx = this.contexts.get(contextId)
      return ctx === undefined
        ? Effect.fail(
            new ContextNotFound({ reason: 'unknown-context', contextId, message: `no open context ${contextId}` }),
          )
        : Effect.succeed(f(ctx))
    })
  }

  private withTab<A>(contextId: ContextId, tabId: string, f: (ctx: MemoryContext, tab: MemoryTab) => A) {
    return Effect.flatMap(
      this.withContext(contextId, (ctx) => ctx),
      (ctx) => {
        const tab = ctx.tabs.find((t) => t.id === tabId)
        return tab === undefined
          ? Effect.fail(new RuntimeError({ reason: 'target-closed', message: `no tab ${tabId} in this context` }))
          : Effect.succeed(f(ctx, tab))
      },
    )
  }
}

/**
 * The memory runtime as a service of its own, so tests can inject crashes into the same
 * instance the supervisor uses.
 *
 * @example
 * const memory = yield* MemoryRuntimeTag
 * memory.crashBrowser()
 */
export class MemoryRuntimeTag extends Context.Tag('@errands/runtime/MemoryRuntime')<
  MemoryRuntimeTag,
  MemoryRuntime
>() {}

/**
 * Provides both {@link Runtime} and {@link MemoryRuntimeTag} backed by one fresh memory runtime.
 *
 * @example
 * program.pipe(Effect.provide(memoryRuntimeLayer))
 */
export const memoryRuntimeLayer: Layer.Layer<Runtime | MemoryRuntimeTag> = Layer.effectContext(
  Effect.sync(() => {
    const memory = MemoryRuntime.make()
    return Context.make(Runtime, memory).pipe(Context.add(MemoryRuntimeTag, memory))
  }),
)

/**
 * A cookie with the usual defaults (path `/`, session, Lax) — handy in tests and fixtures.
 *
 * @example
 * cookie('session', 'abc', '.shop.example')
 */
export const cookie = (name: string, value: string, domain: string, extra: Partial<Cookie> = {}): Cookie => ({
  name,
  value,
  domain,
  path: '/',
  expires: -1,
  httpOnly: false,
  secure: false,
  sameSite: 'Lax',
  ...extra,
})
