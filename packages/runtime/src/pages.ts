/**
 * The page capability of the runtime contract (issue #24, "runtimes own pages"): what the
 * engine's verbs do to one tab — read it, act on it, move through its history, size it — with
 * no browser types, so the host can drive a page without a browser library and a test can drive
 * the memory runtime's fake the same way. Failures are the runtime's few kinds (STYLE §6):
 * `RuntimeError` with `timeout`, `target-closed` (the tab or context went) or `crashed`.
 *
 * @example
 * const pages = runtime.pages!
 * yield* pages.act(contextId, 't1', { type: 'click', selector: '#go', timeoutMs: 5_000 })
 * const { text, truncated } = yield* pages.text(contextId, 't1', 1_000_000)
 */
import type { Effect } from 'effect'
import type { ContextError } from './Runtime.ts'
import type { ContextId } from './types.ts'

/** Text or HTML cut at the caller's limit; `truncated` says there was more. */
export interface PageText {
  readonly text: string
  readonly truncated: boolean
}

/** Where a page is: its URL and title. */
export interface PageWhere {
  readonly url: string
  readonly title: string
}

/** Where the window is scrolled to, CSS pixels. */
export interface PageScroll {
  readonly scrollX: number
  readonly scrollY: number
}

/** A viewport size, CSS pixels. */
export interface PageSize {
  readonly width: number
  readonly height: number
}

/**
 * One input event, applied as trusted input (a person's): the shapes of the host's `/v1/input`.
 *
 * @example
 * [{ type: 'mouse', action: 'click', x: 10, y: 10 }, { type: 'key', action: 'press', key: 'Enter' }]
 */
export type PageInput =
  | { readonly type: 'mouse'; readonly action: 'move' | 'down' | 'up' | 'click' | 'dblclick'; readonly x: number; readonly y: number; readonly button?: 'left' | 'right' | 'middle' | undefined }
  | { readonly type: 'wheel'; readonly x?: number | undefined; readonly y?: number | undefined; readonly dx: number; readonly dy: number }
  | { readonly type: 'key'; readonly action: 'down' | 'up' | 'press'; readonly key: string }
  | { readonly type: 'text'; readonly text: string }

/**
 * An action by selector, waited on for at most `timeoutMs` (then `RuntimeError('timeout')`).
 *
 * @example
 * { type: 'fill', selector: 'input[name=q]', value: 'apples', timeoutMs: 10_000 }
 */
export type PageAction =
  | { readonly type: 'click'; readonly selector: string; readonly timeoutMs: number }
  | { readonly type: 'fill'; readonly selector: string; readonly value: string; readonly timeoutMs: number }

/** A move through the tab's history. */
export type PageHistoryStep = 'back' | 'forward' | 'reload'

/**
 * The page verbs of a runtime, per (context, tab). Absent in a runtime that cannot drive pages.
 *
 * @example
 * const png = yield* runtime.pages!.screenshot(id, 't1', { fullPage: true })
 * const where = yield* runtime.pages!.history(id, 't1', 'back')
 */
export interface PageVerbs {
  /** The tab's URL and title. */
  readonly where: (contextId: ContextId, tabId: string) => Effect.Effect<PageWhere, ContextError>
  /** The visible text (`innerText` of the body), cut at `limit` characters. */
  readonly text: (contextId: ContextId, tabId: string, limit: number) => Effect.Effect<PageText, ContextError>
  /** The HTML, cut at `limit` characters (`text` holds it). */
  readonly html: (contextId: ContextId, tabId: string, limit: number) => Effect.Effect<PageText, ContextError>
  /** A PNG of the viewport, or of the whole page with `fullPage`. */
  readonly screenshot: (contextId: ContextId, tabId: string, options: { readonly fullPage: boolean }) => Effect.Effect<Uint8Array, ContextError>
  /** Clicks or fills by selector. */
  readonly act: (contextId: ContextId, tabId: string, action: PageAction) => Effect.Effect<void, ContextError>
  /** Scrolls the window by (dx, dy); answers where it is now. */
  readonly scroll: (contextId: ContextId, tabId: string, dx: number, dy: number) => Effect.Effect<PageScroll, ContextError>
  /** Applies input events in order; answers how many were applied. */
  readonly input: (contextId: ContextId, tabId: string, events: ReadonlyArray<PageInput>) => Effect.Effect<number, ContextError>
  /** Back, forward or reload, waited on for at most `timeoutMs`; answers where the page is. */
  readonly history: (contextId: ContextId, tabId: string, step: PageHistoryStep, timeoutMs: number) => Effect.Effect<PageWhere, ContextError>
  /** Sets the viewport's size. */
  readonly setViewport: (contextId: ContextId, tabId: string, size: PageSize) => Effect.Effect<void, ContextError>
  /** The viewport's size (none when the page has no fixed viewport). */
  readonly viewport: (contextId: ContextId, tabId: string) => Effect.Effect<PageSize | undefined, ContextError>
}

/**
 * Page verbs that each go to the runtime `pick` names for their context: for a runtime that
 * holds errands in more than one browser (the host's routed runtime, local and remote).
 *
 * @example
 * pages: routePages((id) => (remote?.owns(id) ? remote.pages : local.pages))
 */
export const routePages = (pick: (contextId: ContextId) => PageVerbs): PageVerbs => ({
  where: (id, tab) => pick(id).where(id, tab),
  text: (id, tab, limit) => pick(id).text(id, tab, limit),
  html: (id, tab, limit) => pick(id).html(id, tab, limit),
  screenshot: (id, tab, options) => pick(id).screenshot(id, tab, options),
  act: (id, tab, action) => pick(id).act(id, tab, action),
  scroll: (id, tab, dx, dy) => pick(id).scroll(id, tab, dx, dy),
  input: (id, tab, events) => pick(id).input(id, tab, events),
  history: (id, tab, step, timeoutMs) => pick(id).history(id, tab, step, timeoutMs),
  setViewport: (id, tab, size) => pick(id).setViewport(id, tab, size),
  viewport: (id, tab) => pick(id).viewport(id, tab),
})
