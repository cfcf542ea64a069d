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
import type {
  PageAction,
  PageConsoleMessage,
  PageDialog,
  PageEvaluation,
  PageHistoryStep,
  PageInput,
  PageLog,
  PageRequest,
  PageScroll,
  PageShotOptions,
  PageSize,
  PageText,
  PageWhere,
  RawPage,
  TabPageVerbs,
} from './pages.ts'
import type { ContextError, RuntimeShape } from './Runtime.ts'
import type { ContextId, TabInfo } from './types.ts'

/**
 * Where a context's active tab is after a verb: its URL and title, the runtime's tab id, and the
 * dialog the runtime holds on that tab (#22; the title is then `''`, the dialog blocks it).
 *
 * @example
 * { url: 'https://shop.example/', title: 'Shop', tabId: 't1', dialog: undefined }
 */
export interface PageSummary {
  readonly url: string
  readonly title: string
  readonly tabId: string
  readonly dialog: PageDialog | undefined
}

/**
 * A read of the active tab, answered with its URL in the same call.
 *
 * @example
 * { type: 'text', limit: 1_000_000 }
 */
export type PageRead =
  | { readonly type: 'url' }
  | { readonly type: 'text'; readonly limit: number }
  | { readonly type: 'html'; readonly limit: number }
  | { readonly type: 'evaluate'; readonly expression: string; readonly limit: number }
  | { readonly type: 'console' }
  | { readonly type: 'network' }
  | { readonly type: 'screenshot'; readonly options: PageShotOptions }
  | { readonly type: 'scroll'; readonly dx: number; readonly dy: number }
  | { readonly type: 'viewport' }
  | { readonly type: 'raw' }

/** What each read answers. */
export interface PageReadValues {
  readonly url: string
  readonly text: PageText
  readonly html: PageText
  readonly evaluate: PageEvaluation
  readonly console: PageLog<PageConsoleMessage>
  readonly network: PageLog<PageRequest>
  readonly screenshot: Uint8Array
  readonly scroll: PageScroll
  readonly viewport: PageSize | undefined
  readonly raw: RawPage
}

/** A read's answer: its value, where the tab is, and which tab it was. */
export interface PageReading<K extends PageRead['type']> {
  readonly value: PageReadValues[K]
  readonly url: string
  readonly tabId: string
}

/**
 * A picture of a context's driven tab (B3's `GET /v1/frame`): the latest screencast frame of the
 * page's current size, or a screenshot when none is painted; `seq` counts the frames the context's
 * cast has received.
 */
export interface PageFrame {
  readonly data: Uint8Array
  /** When it was painted (or taken), ms since the epoch. */
  readonly at: number
  readonly source: 'screencast' | 'screenshot'
  readonly seq: number
}

/** How `frame` works: a cast nobody reads for `idleMs` stops; the first frame is waited for `firstFrameMs`. */
export interface FrameOptions {
  readonly idleMs: number
  readonly firstFrameMs: number
}

/** What a whole-verb call that moves or acts on the page answers: where the page is then. */
type Summarised = Effect.Effect<PageSummary, ContextError>

/**
 * The whole-verb calls of a runtime's page capability, per context: each is one call at the
 * runtime's seam, waits on the page at most `deadlineMs` where it takes one (the face's one
 * deadline for the verb), and drives the context's active tab.
 *
 * @example
 * yield* pages.go(id, 'https://shop.example/', 30_000)
 * yield* pages.perform(id, { type: 'click', selector: '#buy', timeoutMs: 10_000 })
 */
export interface DriveVerbs {
  /** The active tab (picked, or a blank one opened when none is left, and fitted to the viewport). */
  readonly active: (contextId: ContextId) => Effect.Effect<string, ContextError>
  /**
   * Navigates the active tab to `url` (judged first, by the runtime's containment), waits until its document is
   * parsed (at most `deadlineMs`, never failing for a slow one), and answers where it is — without the held dialog,
   * as a navigation's summary always was.
   */
  readonly go: (contextId: ContextId, url: string, deadlineMs: number) => Summarised
  /** Back, forward or reload on the active tab, waited on until the new document commits. */
  readonly travel: (contextId: ContextId, step: PageHistoryStep, deadlineMs: number) => Summarised
  /** An action by selector on the active tab (it answers as soon as the page opens a dialog). */
  readonly perform: (contextId: ContextId, action: PageAction) => Summarised
  /** Input events on the active tab, never interleaved with another call's; answers how many were applied. */
  readonly inputActive: (
    contextId: ContextId,
    events: ReadonlyArray<PageInput>,
  ) => Effect.Effect<{ readonly applied: number; readonly tabId: string }, ContextError>
  /** A read of the active tab with its URL. */
  readonly read: <R extends PageRead>(
    contextId: ContextId,
    request: R,
  ) => Effect.Effect<PageReading<R['type']>, ContextError>
  /** Where the active tab is (a held dialog said instead of the title it blocks). */
  readonly summary: (contextId: ContextId) => Summarised
  /** Opens a tab at `url` (judged first); it becomes the active one, fitted to the viewport. */
  readonly open: (contextId: ContextId, url: string) => Effect.Effect<TabInfo, ContextError>
  /** Sets the context's viewport and fits every tab to it; the tabs it opens later are fitted when driven. */
  readonly fit: (contextId: ContextId, size: PageSize) => Effect.Effect<PageSize, ContextError>
  /** The context's viewport as set by `fit` (none until then). */
  readonly fitted: (contextId: ContextId) => Effect.Effect<PageSize | undefined>
  /**
   * A picture of the driven tab: the context's cast (started on first use, one at a time, moved to
   * the driven tab when it changes), a fresh frame of the page's current size waited for a moment,
   * else a screenshot.
   */
  readonly frame: (contextId: ContextId, options: FrameOptions) => Effect.Effect<PageFrame, ContextError>
  /** The frames the context's cast has received so far, and when the last was painted (no page is asked). */
  readonly frames: (contextId: ContextId) => Effect.Effect<{ readonly seq: number; readonly at: number | null }>
}

/** What the owner drives with: the runtime's own tab verbs, never a face's wrapper of them. */
export interface OwnerParts {
  readonly tabs: (contextId: ContextId) => Effect.Effect<ReadonlyArray<TabInfo>, ContextError>
  readonly openTab: (contextId: ContextId, url: string) => Effect.Effect<TabInfo, ContextError>
  readonly navigate: (contextId: ContextId, tabId: string, url: string) => Effect.Effect<TabInfo, ContextError>
  readonly screencast: RuntimeShape['screencast']
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
  readonly verbs: DriveVerbs

  constructor(
    private readonly tab: TabPageVerbs,
    private readonly parts: OwnerParts,
  ) {
    this.verbs = this.makeVerbs()
  }

  /** Forgets a closed context's page state; its cast stops. @example owner.forget(id) */
  forget(contextId: ContextId): void {
    void this.owned.get(contextId)?.cast?.stop()
    this.owned.delete(contextId)
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
    const { tab, parts } = this
    const active = (id: ContextId) => this.activeOf(id)
    const summary = (id: ContextId, tabId: string, where?: PageWhere) => this.summaryOf(id, tabId, where)
    const state = (id: ContextId) => this.stateOf(id)
    const fitTab = (s: Owned, id: ContextId, tabId: string) => this.fitTab(s, id, tabId)
    const readValue = (id: ContextId, tabId: string, r: PageRead) => this.readValue(id, tabId, r)
    return {
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
  }
}
