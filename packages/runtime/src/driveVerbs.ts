/**
 * The whole-verb calls of a runtime's page capability (docs/adr/0049-runtime-owns-the-page.md) and
 * what they answer: where the page is (the summary), a read with its URL, a picture of the driven
 * tab. `pageOwner.ts` gives them, once for every runtime.
 *
 * @example
 * const { url, title, tabId } = yield* runtime.pages.go(id, 'https://shop.example/', 30_000)
 */
import type { Effect } from 'effect'
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
  RawPage,
} from './pages.ts'
import type { ContextError } from './Runtime.ts'
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
