/**
 * The runtime owns the page (docs/adr/0049-runtime-owns-the-page.md): which tab a context's verbs
 * drive (the active one; a blank tab opened when none is left), the context's viewport (every tab
 * the verbs come to drive is fitted to it once, when it becomes the active one), and the
 * context's input lock (events of two calls never interleave). On top of a runtime's tab-level
 * page verbs, it gives the whole-verb calls a face makes in ONE runtime call each: go, a history
 * step, an action, input, a read, a new tab — each answering where the page is (the summary).
 * Written once for every runtime (memory, Chromium, the remote DevTools browser); a runtime hands
 * it its own tab verbs, so what the owner does inside counts as nothing at the runtime's seam.
 *
 * @example
 * const pages = ownPages(tabLevelVerbs, { tabs: (id) => runtime.tabs(id), openTab, navigate })
 * const { url, title, tabId } = yield* pages.go(id, 'https://shop.example/', 30_000)
 */
import { Clock, Effect } from 'effect'
import { LatestCast } from './latestCast.ts'
import type { DriveVerbs, FrameOptions, PageFrame, PageRead, PageReadValues, PageSummary } from './driveVerbs.ts'
import type { PageSize, PageWhere, TabPageVerbs } from './pages.ts'
import type { ContextError, RuntimeShape } from './Runtime.ts'
import type { ContextId, TabInfo } from './types.ts'
import { gatedTabVerbs, pickTabVerbs, VerbGate } from './verbGate.ts'

/** What the owner drives with: the runtime's own tab verbs, never a face's wrapper of them. */
export interface OwnerParts {
  readonly tabs: (contextId: ContextId) => Effect.Effect<ReadonlyArray<TabInfo>, ContextError>
  readonly openTab: (contextId: ContextId, url: string) => Effect.Effect<TabInfo, ContextError>
  readonly navigate: (contextId: ContextId, tabId: string, url: string) => Effect.Effect<TabInfo, ContextError>
  readonly screencast: RuntimeShape['screencast']
  /** Freezes the context's pages (`RuntimeShape.freeze` without the wait for verbs in flight). */
  readonly freeze: (contextId: ContextId) => Effect.Effect<void, ContextError>
  /** Thaws them (`RuntimeShape.thaw`'s work). */
  readonly thaw: (contextId: ContextId) => Effect.Effect<void, ContextError>
}

/** One context's page state. */
interface Owned {
  /** The tab the verbs last drove (fitted to `viewport`); the runtime says which is active now. */
  driven: string | undefined
  viewport: PageSize | undefined
  readonly inputLock: Effect.Semaphore
  /** One cast start at a time: two first frames start one. */
  readonly castLock: Effect.Semaphore
  cast: LatestCast | undefined
  frames: number
  lastFrameAt: number | null
}

/**
 * The page state of every context of one runtime, and the whole-verb calls over its tab verbs.
 * `forget` drops a context's state when it closes.
 *
 * @example
 * const owner = new PageOwner(tabVerbs, parts)
 * const pages: PageVerbs = { ...tabVerbs, ...owner.verbs }
 */
export class PageOwner {
  private readonly owned = new Map<ContextId, Owned>()
  /** The page verbs in flight per context, and the freezes that wait for them (`verbGate.ts`). */
  private readonly gate = new VerbGate()
  /** The runtime's own tab verbs, taken when the owner is made: what the owner drives with. */
  private readonly tab: TabPageVerbs
  /** The whole-verb calls, each counted while it runs. */
  readonly verbs: DriveVerbs
  /** The runtime's tab verbs, each that works on a page counted while it runs: what the runtime hands out. */
  readonly tabVerbs: TabPageVerbs

  constructor(
    tab: TabPageVerbs,
    private readonly parts: OwnerParts,
  ) {
    this.tab = pickTabVerbs(tab)
    this.verbs = this.makeVerbs()
    this.tabVerbs = gatedTabVerbs(this.gate, this.tab)
  }

  /** Forgets a closed context's page state; its cast stops. @example owner.forget(id) */
  forget(contextId: ContextId): void {
    void this.owned.get(contextId)?.cast?.stop()
    this.owned.delete(contextId)
    this.gate.forget(contextId)
  }

  /**
   * Freezes the context once none of its page verbs is in flight (each answers first, never paused
   * midway); a verb arriving later thaws it first. What `RuntimeShape.freeze` is, on every runtime.
   *
   * @example
   * yield* owner.freeze(id) // after the read still waiting on the page has answered
   */
  freeze(contextId: ContextId): Effect.Effect<void, ContextError> {
    return this.gate.freeze(contextId, this.parts.freeze(contextId), this.parts.thaw(contextId))
  }

  /** Thaws the context (idempotent): `RuntimeShape.thaw`, on every runtime. @example yield* owner.thaw(id) */
  thaw(contextId: ContextId): Effect.Effect<void, ContextError> {
    return this.gate.thaw(contextId, this.parts.thaw(contextId))
  }

  /** The context's page verbs in flight now (tests read it). @example owner.inFlight(id) // 1 */
  inFlight(contextId: ContextId): number {
    return this.gate.inFlight(contextId)
  }

  private stateOf(contextId: ContextId): Owned {
    let s = this.owned.get(contextId)
    if (s === undefined) {
      s = {
        driven: undefined,
        viewport: undefined,
        inputLock: Effect.unsafeMakeSemaphore(1),
        castLock: Effect.unsafeMakeSemaphore(1),
        cast: undefined,
        frames: 0,
        lastFrameAt: null,
      }
      this.owned.set(contextId, s)
    }
    return s
  }

  private fitTab(s: Owned, contextId: ContextId, tabId: string): Effect.Effect<void, ContextError> {
    const { tab } = this
    return Effect.gen(function* () {
      const want = s.viewport
      if (want === undefined) return
      const have = yield* tab.viewport(contextId, tabId)
      if (have?.width === want.width && have.height === want.height) return
      yield* tab.setViewport(contextId, tabId, want)
    })
  }

  private activeOf(contextId: ContextId): Effect.Effect<string, ContextError> {
    const { tab, parts } = this
    const fit = (s: Owned, id: string) => this.fitTab(s, contextId, id)
    const s = this.stateOf(contextId)
    return Effect.gen(function* () {
      const now = yield* tab.activeTab(contextId)
      if (now !== undefined && s.driven === now) return now
      const tabs = yield* parts.tabs(contextId)
      const picked = tabs.find((t) => t.active) ?? tabs[0] ?? (yield* parts.openTab(contextId, 'about:blank'))
      s.driven = picked.id
      yield* fit(s, picked.id)
      return picked.id
    })
  }

  /** Where a tab is; a dialog held on it is said instead of waiting for the title it blocks. */
  private summaryOf(contextId: ContextId, tabId: string, where?: PageWhere): Effect.Effect<PageSummary, ContextError> {
    const { tab } = this
    return Effect.gen(function* () {
      const dialog = yield* tab.dialog(contextId)
      if (dialog !== undefined && dialog.tabId === tabId) {
        const url = where?.url ?? (yield* tab.url(contextId, tabId))
        return { url, title: '', tabId, dialog }
      }
      const { url, title } = where ?? (yield* tab.where(contextId, tabId))
      return { url, title, tabId, dialog: undefined }
    })
  }

  private readValue(contextId: ContextId, tabId: string, r: PageRead): Effect.Effect<unknown, ContextError> {
    const { tab } = this
    switch (r.type) {
      case 'text':
      case 'html':
        return tab[r.type](contextId, tabId, r.limit)
      case 'evaluate':
        return tab.evaluate(contextId, tabId, r.expression, r.limit)
      case 'screenshot':
        return tab.screenshot(contextId, tabId, r.options)
      case 'scroll':
        return tab.scroll(contextId, tabId, r.dx, r.dy)
      default:
        return tab[r.type](contextId, tabId)
    }
  }

  /** The cast of the context on `tabId` (started or moved there, one start at a time). */
  private castOn(contextId: ContextId, tabId: string, idleMs: number): Effect.Effect<LatestCast, ContextError> {
    const s = this.stateOf(contextId)
    const { parts } = this
    const tab = { contextId, tabId }
    return s.castLock.withPermits(1)(
      Effect.gen(function* () {
        const current = s.cast
        if (current?.running && current.shows(tab)) return current
        if (current) yield* Effect.promise(() => current.stop())
        s.cast = yield* LatestCast.start(tab, (o) => parts.screencast(contextId, tabId, o), {
          idleMs,
          onFrame: (f) => {
            s.frames++
            s.lastFrameAt = f.at
          },
        })
        return s.cast
      }),
    )
  }

  private frameOf(contextId: ContextId, tabId: string, options: FrameOptions): Effect.Effect<PageFrame, ContextError> {
    const { tab } = this
    const s = this.stateOf(contextId)
    const castOn = this.castOn(contextId, tabId, options.idleMs)
    return Effect.gen(function* () {
      const cast = yield* castOn
      // A frame painted before a viewport change is stale: the screencast only sends a new one
      // when the page repaints, which a still page may never do. Wait a moment for a fresh
      // frame of the current size; otherwise a screenshot (always the current size) stands in.
      const size = yield* tab.viewport(contextId, tabId)
      const fits = (f: { width: number; height: number }) =>
        size === undefined || (f.width === size.width && f.height === size.height)
      let painted = cast.latest
      if (painted === undefined || !fits(painted)) {
        const next = yield* Effect.promise(() => cast.next(options.firstFrameMs))
        painted = next !== undefined && fits(next) ? next : undefined
      }
      if (painted) return { data: painted.data, at: painted.at, source: 'screencast', seq: s.frames } as const
      // Nothing painted yet (a page that never changes may send no frame): a screenshot stands in.
      const data = yield* tab.screenshot(contextId, tabId, { fullPage: false, type: 'jpeg', quality: 70 })
      return { data, at: yield* Clock.currentTimeMillis, source: 'screenshot', seq: s.frames } as const
    })
  }

  private makeVerbs(): DriveVerbs {
    const { tab, parts, gate } = this
    const active = (id: ContextId) => this.activeOf(id)
    const summary = (id: ContextId, tabId: string, where?: PageWhere) => this.summaryOf(id, tabId, where)
    const state = (id: ContextId) => this.stateOf(id)
    const fitTab = (s: Owned, id: ContextId, tabId: string) => this.fitTab(s, id, tabId)
    const readValue = (id: ContextId, tabId: string, r: PageRead) => this.readValue(id, tabId, r)
    const verbs: DriveVerbs = {
      active,
      go: (id, url, deadlineMs) =>
        Effect.gen(function* () {
          const tabId = yield* active(id)
          yield* parts.navigate(id, tabId, url)
          // Committed; give the document a moment to be parsed, but never fail for a slow one.
          yield* Effect.ignore(tab.waitForLoad(id, tabId, deadlineMs))
          const { url: at, title } = yield* tab.where(id, tabId)
          return { url: at, title, tabId, dialog: undefined }
        }),
      travel: (id, step, deadlineMs) =>
        Effect.gen(function* () {
          const tabId = yield* active(id)
          const where = yield* tab.history(id, tabId, step, deadlineMs, 'commit')
          return yield* summary(id, tabId, where)
        }),
      perform: (id, action) =>
        Effect.gen(function* () {
          const tabId = yield* active(id)
          yield* tab.act(id, tabId, action)
          return yield* summary(id, tabId)
        }),
      inputActive: (id, events) =>
        state(id).inputLock.withPermits(1)(
          Effect.gen(function* () {
            const tabId = yield* active(id)
            return { applied: yield* tab.input(id, tabId, events), tabId }
          }),
        ),
      read: <R extends PageRead>(id: ContextId, request: R) =>
        Effect.gen(function* () {
          const tabId = yield* active(id)
          const value = (yield* readValue(id, tabId, request)) as PageReadValues[R['type']]
          const url = request.type === 'url' ? (value as string) : yield* tab.url(id, tabId)
          return { value, url, tabId }
        }),
      summary: (id) => Effect.flatMap(active(id), (tabId) => summary(id, tabId)),
      open: (id, url) =>
        Effect.gen(function* () {
          const opened = yield* parts.openTab(id, url)
          const s = state(id)
          s.driven = opened.id
          yield* fitTab(s, id, opened.id)
          return opened
        }),
      fit: (id, size) =>
        Effect.gen(function* () {
          const s = state(id)
          s.viewport = { width: size.width, height: size.height }
          for (const t of yield* parts.tabs(id)) yield* fitTab(s, id, t.id)
          return s.viewport
        }),
      fitted: (id) => Effect.sync(() => this.owned.get(id)?.viewport),
      frame: (id, options) => Effect.flatMap(active(id), (tabId) => this.frameOf(id, tabId, options)),
      frames: (id) =>
        Effect.sync(() => {
          const s = this.owned.get(id)
          return { seq: s?.frames ?? 0, at: s?.lastFrameAt ?? null }
        }),
    }
    // Every call that works on a page is counted; `fitted` and `frames` are bookkeeping (no page is asked).
    return {
      ...verbs,
      active: (id) => gate.verb(id, verbs.active(id)),
      go: (id, url, deadlineMs) => gate.verb(id, verbs.go(id, url, deadlineMs)),
      travel: (id, step, deadlineMs) => gate.verb(id, verbs.travel(id, step, deadlineMs)),
      perform: (id, action) => gate.verb(id, verbs.perform(id, action)),
      inputActive: (id, events) => gate.verb(id, verbs.inputActive(id, events)),
      read: (id, request) => gate.verb(id, verbs.read(id, request)),
      summary: (id) => gate.verb(id, verbs.summary(id)),
      open: (id, url) => gate.verb(id, verbs.open(id, url)),
      fit: (id, size) => gate.verb(id, verbs.fit(id, size)),
      frame: (id, options) => gate.verb(id, verbs.frame(id, options)),
    }
  }
}
