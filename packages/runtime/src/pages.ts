/**
 * The page capability of the runtime contract (issue #24, "runtimes own pages"): what the
 * engine's verbs do to one tab — read it, act on it, move through its history, size it, answer
 * its JavaScript dialogs — with no browser types (one opaque escape hatch, `raw`, for MCP), so the host can drive a
 * page without a browser library and a test can drive
 * the memory runtime's fake the same way. Failures are the runtime's few kinds (STYLE §6):
 * `RuntimeError` with `timeout`, `target-closed` (the tab or context went) or `crashed`.
 *
 * @example
 * const pages = runtime.pages
 * yield* pages.act(contextId, 't1', { type: 'click', selector: '#go', timeoutMs: 5_000 })
 * const { text, truncated } = yield* pages.text(contextId, 't1', 1_000_000)
 */
import type { Effect } from 'effect'
import type { DriveVerbs } from './driveVerbs.ts'
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
  | {
      readonly type: 'mouse'
      readonly action: 'move' | 'down' | 'up' | 'click' | 'dblclick'
      readonly x: number
      readonly y: number
      readonly button?: 'left' | 'right' | 'middle' | undefined
    }
  | {
      readonly type: 'wheel'
      readonly x?: number | undefined
      readonly y?: number | undefined
      readonly dx: number
      readonly dy: number
    }
  | { readonly type: 'key'; readonly action: 'down' | 'up' | 'press'; readonly key: string }
  | { readonly type: 'text'; readonly text: string }

/**
 * A run of characters a keyboard types as key presses (the US layout Playwright and CDP know: printable ASCII, Enter,
 * Tab), or a run of others.
 */
const KEYBOARD_RUN = /([\x20-\x7e\n\r\t]+)|[^\x20-\x7e\n\r\t]+/g

/** A `text` event longer than this is a paste: inserted whole, with no key events, as a browser pastes. */
export const PASTE_OVER = 64

/** The most characters one input call types as key presses; the text after them is inserted. */
export const KEY_BUDGET = 256

/** A piece of a `text` event: typed as key presses, or inserted at once (as an input method or a paste inserts). */
export interface TextRun {
  readonly text: string
  readonly keys: boolean
}

/**
 * How each event's text is typed, one list per event (empty for other events): a text event of at
 * most {@link PASTE_OVER} characters types its keyboard characters as key presses and inserts each
 * run of others (東京, é) at once; a longer one is a paste, inserted whole. A call types at most
 * {@link KEY_BUDGET} key presses, so its time is bounded: a body of 200 events could otherwise
 * hold 2,000,000 presses, and the session's input for hours.
 *
 * @example
 * typedRuns([{ type: 'text', text: 'ab東京' }]) // [[{ text: 'ab', keys: true }, { text: '東京', keys: false }]]
 */
export const typedRuns = (events: ReadonlyArray<PageInput>): ReadonlyArray<ReadonlyArray<TextRun>> => {
  let budget = KEY_BUDGET
  return events.map((e) => {
    if (e.type !== 'text') return []
    if ([...e.text].length > PASTE_OVER) return [{ text: e.text, keys: false }]
    const runs: Array<TextRun> = []
    for (const [run, keyboard] of e.text.matchAll(KEYBOARD_RUN)) {
      if (keyboard === undefined) runs.push({ text: run, keys: false })
      else {
        const typed = run.slice(0, budget)
        budget -= typed.length
        if (typed !== '') runs.push({ text: typed, keys: true })
        if (typed.length < run.length) runs.push({ text: run.slice(typed.length), keys: false })
      }
    }
    return runs
  })
}

/**
 * How long applying `events` may take: `deadlineMs`, and 20 ms more for every character typed as a
 * key press (at most {@link KEY_BUDGET} of them, so at most 5.12 s more). The host's and the
 * runtime's deadlines for input are both this, so a typed text is not cut off half-typed.
 *
 * @example
 * inputDeadline(30_000, [{ type: 'text', text: 'hi' }]) // 30_040
 */
export const inputDeadline = (deadlineMs: number, events: ReadonlyArray<PageInput>): number =>
  deadlineMs +
  20 *
    typedRuns(events)
      .flat()
      .reduce((n, run) => n + (run.keys ? run.text.length : 0), 0)

/**
 * An action by selector, waited on for at most `timeoutMs` (then `RuntimeError('timeout')`).
 *
 * @example
 * { type: 'fill', selector: 'input[name=q]', value: 'apples', timeoutMs: 10_000 }
 */
export type PageAction =
  | { readonly type: 'click'; readonly selector: string; readonly timeoutMs: number }
  | { readonly type: 'fill'; readonly selector: string; readonly value: string; readonly timeoutMs: number }
  | { readonly type: 'fill-form'; readonly fields: ReadonlyArray<PageFormField>; readonly timeoutMs: number }
  | { readonly type: 'drag'; readonly from: string; readonly to: string; readonly timeoutMs: number }
  | {
      readonly type: 'upload'
      readonly selector: string
      readonly names: ReadonlyArray<string>
      readonly timeoutMs: number
    }

/**
 * One field of a `fill-form` action: a text field is filled with `value`, a `<select>` selects
 * the option of that value (or label), a checkbox or radio is checked unless `value` is
 * `'false'` or `''` (issue #25, Playwright MCP's `browser_fill_form`).
 *
 * @example
 * { selector: '#agree', value: 'true' }
 */
export interface PageFormField {
  readonly selector: string
  readonly value: string
}

/**
 * Whether a name is a plain file name inside an errand's files folder: no path separator, no
 * `.` or `..`, no NUL, at most 255 characters. An upload names files only so (issue #25).
 *
 * @example
 * isPlainFileName('receipt.pdf') // true
 * isPlainFileName('../etc/passwd') // false
 */
export const isPlainFileName = (name: string): boolean =>
  name.length > 0 && name.length <= 255 && name !== '.' && name !== '..' && !/[/\\\0]/.test(name)

/**
 * What an expression evaluated in a page came to: its JSON value, or — when its JSON is longer
 * than the caller's limit — that JSON text cut at the limit, with `truncated`. A value JSON
 * cannot hold (a function, a DOM node, `undefined`) is `null`.
 *
 * @example
 * { value: { title: 'Basket' }, truncated: false }
 */
export interface PageEvaluation {
  readonly value: unknown
  readonly truncated: boolean
}

/** A console message a tab's page logged (`type`: log, info, warning, error, debug …; `at`: ms since the epoch). */
export interface PageConsoleMessage {
  readonly type: string
  readonly text: string
  readonly at: number
  /** Its severity as Playwright MCP names it (`error` also for an uncaught page error). */
  readonly level?: 'error' | 'warning' | 'info' | 'debug' | undefined
  /** Where it was logged (`url:line`), `''` when unknown. */
  readonly location?: string | undefined
  /** The main-frame navigation of the page it belongs to (see {@link PageLogView}). */
  readonly nav?: number | undefined
}

/** A request a tab's page made: its answer's status (`null` while none came or when it failed), or why it failed. */
export interface PageRequest {
  readonly method: string
  readonly url: string
  readonly resourceType: string
  readonly status: number | null
  readonly failure: string | null
  readonly at: number
  /** The answer's status text (`null` until it came). */
  readonly statusText?: string | null | undefined
  /** The main-frame navigation it belongs to (a document request: the one it starts). */
  readonly nav?: number | undefined
  /** Its number on the page, from 1, in order (kept when older entries are dropped). */
  readonly seq?: number | undefined
}

/** The newest entries of a bounded log, oldest first; `dropped` older ones no longer kept. */
export interface PageLog<T> {
  readonly entries: ReadonlyArray<T>
  readonly dropped: number
}

/** A move through the tab's history. */
export type PageHistoryStep = 'back' | 'forward' | 'reload'

/** How far a history step waits: until the new document commits, or until it is parsed (the default). */
export type PageHistoryWait = 'commit' | 'domcontentloaded'

/** What an action or a history step came to: it finished, or the page opened a JavaScript dialog first. */
export type PageOutcome = 'done' | 'dialog'

/** A screenshot's format: PNG (the default), or JPEG at `quality` (0–100). */
export interface PageShotOptions {
  readonly fullPage: boolean
  readonly type?: 'png' | 'jpeg' | undefined
  readonly quality?: number | undefined
}

/**
 * A JavaScript dialog the runtime holds for the verbs (#22): nobody connected over DevTools will
 * answer it, so it waits for `answerDialog` (or is dismissed at the runtime's deadline).
 *
 * @example
 * { type: 'confirm', message: 'Delete it?', defaultPrompt: '', tabId: 't1' }
 */
export interface PageDialog {
  readonly type: 'alert' | 'confirm' | 'prompt' | 'beforeunload'
  readonly message: string
  /** A prompt's default text ('' for the other kinds). */
  readonly defaultPrompt: string
  /** The runtime's id of the tab it belongs to. */
  readonly tabId: string
}

/** How to answer a dialog: accept (with `promptText` for a prompt) or dismiss. */
export interface PageDialogAnswer {
  readonly accept: boolean
  readonly promptText?: string | undefined
}

/**
 * A tab's page in the runtime's own browser library, opaque: the declared escape hatch for a face
 * that works on the page itself (MCP's locator tools, which need Playwright's aria snapshots and
 * locators). Only that face turns it into its library's type (`@errands/mcp`'s
 * `playwrightPage`); the host passes it on untouched.
 */
export interface RawPage {
  /** A brand nothing has: only the runtime that made the page hands one out (a cast). */
  readonly '@errands/runtime/RawPage': never
}

/**
 * The page verbs of a runtime per (context, tab): what one tab's page does. A face drives a
 * context's page through {@link PageVerbs}' whole-verb calls (`pageOwner.ts`), built on these.
 *
 * @example
 * const png = yield* runtime.pages.screenshot(id, 't1', { fullPage: true })
 * const where = yield* runtime.pages.history(id, 't1', 'back')
 */
export interface TabPageVerbs {
  /** The tab's URL and title. */
  readonly where: (contextId: ContextId, tabId: string) => Effect.Effect<PageWhere, ContextError>
  /** The visible text (`innerText` of the body), cut at `limit` characters. */
  readonly text: (contextId: ContextId, tabId: string, limit: number) => Effect.Effect<PageText, ContextError>
  /** The HTML, cut at `limit` characters (`text` holds it). */
  readonly html: (contextId: ContextId, tabId: string, limit: number) => Effect.Effect<PageText, ContextError>
  /** The URL the page shows now (a failed navigation's error page included). */
  readonly url: (contextId: ContextId, tabId: string) => Effect.Effect<string, ContextError>
  /** Waits until the page's document is parsed (`DOMContentLoaded`), at most `timeoutMs`. */
  readonly waitForLoad: (contextId: ContextId, tabId: string, timeoutMs: number) => Effect.Effect<void, ContextError>
  /** A PNG of the viewport (JPEG with `type: 'jpeg'`), or of the whole page with `fullPage`. */
  readonly screenshot: (
    contextId: ContextId,
    tabId: string,
    options: PageShotOptions,
  ) => Effect.Effect<Uint8Array, ContextError>
  /**
   * Clicks, fills, fills a form, drags or uploads by selector. An upload names plain files of the
   * errand's files folder ({@link isPlainFileName}); a runtime without one refuses it
   * (`invalid`). Returns `'dialog'` as soon as the page opens a JavaScript
   * dialog (which then waits for an answer: `dialog`, `answerDialog`), instead of waiting for it.
   */
  readonly act: (contextId: ContextId, tabId: string, action: PageAction) => Effect.Effect<PageOutcome, ContextError>
  /** Scrolls the window by (dx, dy); answers where it is now. */
  readonly scroll: (
    contextId: ContextId,
    tabId: string,
    dx: number,
    dy: number,
  ) => Effect.Effect<PageScroll, ContextError>
  /** Applies input events in order; answers how many were applied. */
  readonly input: (
    contextId: ContextId,
    tabId: string,
    events: ReadonlyArray<PageInput>,
  ) => Effect.Effect<number, ContextError>
  /**
   * Back, forward or reload, waited on for at most `timeoutMs` (until `wait`, default
   * `domcontentloaded`); answers where the page is. A dialog the page opens ends the wait, and
   * the title is then `''` (the dialog blocks the page's scripts).
   */
  readonly history: (
    contextId: ContextId,
    tabId: string,
    step: PageHistoryStep,
    timeoutMs: number,
    wait?: PageHistoryWait,
  ) => Effect.Effect<PageWhere, ContextError>
  /** Sets the viewport's size. */
  readonly setViewport: (contextId: ContextId, tabId: string, size: PageSize) => Effect.Effect<void, ContextError>
  /** The viewport's size (none when the page has no fixed viewport). */
  readonly viewport: (contextId: ContextId, tabId: string) => Effect.Effect<PageSize | undefined, ContextError>
  /** The context's active tab (no page is asked), or none when it has no tab. */
  readonly activeTab: (contextId: ContextId) => Effect.Effect<string | undefined, ContextError>
  /** The oldest dialog the runtime holds for the verbs in a context; none while a DevTools client answers them. */
  readonly dialog: (contextId: ContextId) => Effect.Effect<PageDialog | undefined>
  /** Answers that dialog (never twice); undefined when none waits. */
  readonly answerDialog: (contextId: ContextId, how: PageDialogAnswer) => Effect.Effect<PageDialog | undefined>
  /**
   * Evaluates a JavaScript expression in the page (a promise is awaited). A page that throws is
   * `RuntimeError('invalid')` with its message; a JSON longer than `limit` characters is cut.
   */
  readonly evaluate: (
    contextId: ContextId,
    tabId: string,
    expression: string,
    limit: number,
  ) => Effect.Effect<PageEvaluation, ContextError>
  /** The console messages the tab's page logged since the tab opened (a bounded ring). */
  readonly console: (contextId: ContextId, tabId: string) => Effect.Effect<PageLog<PageConsoleMessage>, ContextError>
  /** The requests the tab's page made since the tab opened (a bounded ring). */
  readonly network: (contextId: ContextId, tabId: string) => Effect.Effect<PageLog<PageRequest>, ContextError>
  /** The tab's page as an opaque {@link RawPage}: the escape hatch for MCP's locator tools only. */
  readonly raw: (contextId: ContextId, tabId: string) => Effect.Effect<RawPage, ContextError>
}

/**
 * The page capability of a runtime: the tab verbs, and the whole-verb calls per context that own
 * its page (the active tab, the viewport, the input lock: `pageOwner.ts`), one runtime call each.
 *
 * @example
 * const { url, title } = yield* runtime.pages.go(id, 'https://shop.example/', 30_000)
 */
export interface PageVerbs extends TabPageVerbs, DriveVerbs {}

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
  url: (id, tab) => pick(id).url(id, tab),
  waitForLoad: (id, tab, timeoutMs) => pick(id).waitForLoad(id, tab, timeoutMs),
  screenshot: (id, tab, options) => pick(id).screenshot(id, tab, options),
  act: (id, tab, action) => pick(id).act(id, tab, action),
  scroll: (id, tab, dx, dy) => pick(id).scroll(id, tab, dx, dy),
  input: (id, tab, events) => pick(id).input(id, tab, events),
  history: (id, tab, step, timeoutMs, wait) => pick(id).history(id, tab, step, timeoutMs, wait),
  setViewport: (id, tab, size) => pick(id).setViewport(id, tab, size),
  viewport: (id, tab) => pick(id).viewport(id, tab),
  activeTab: (id) => pick(id).activeTab(id),
  dialog: (id) => pick(id).dialog(id),
  answerDialog: (id, how) => pick(id).answerDialog(id, how),
  evaluate: (id, tab, expression, limit) => pick(id).evaluate(id, tab, expression, limit),
  console: (id, tab) => pick(id).console(id, tab),
  network: (id, tab) => pick(id).network(id, tab),
  raw: (id, tab) => pick(id).raw(id, tab),
  active: (id) => pick(id).active(id),
  go: (id, url, deadlineMs) => pick(id).go(id, url, deadlineMs),
  travel: (id, step, deadlineMs) => pick(id).travel(id, step, deadlineMs),
  perform: (id, action) => pick(id).perform(id, action),
  inputActive: (id, events) => pick(id).inputActive(id, events),
  read: (id, request) => pick(id).read(id, request),
  summary: (id) => pick(id).summary(id),
  open: (id, url) => pick(id).open(id, url),
  fit: (id, size) => pick(id).fit(id, size),
  fitted: (id) => pick(id).fitted(id),
  frame: (id, options) => pick(id).frame(id, options),
  frames: (id) => pick(id).frames(id),
})
