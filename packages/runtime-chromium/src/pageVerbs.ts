/**
 * The page capability (`@errands/runtime`'s `pages.ts`) over Playwright pages, written once for
 * every Chromium runtime (ours and the remote DevTools one, through `ContextRuntime`). Every verb
 * has a deadline and its failures come back in the few kinds (STYLE §6, `failures.ts`): a
 * selector that never appears is `timeout`, a tab or context that went is `target-closed`.
 *
 * @example
 * readonly pages = chromiumPages(this.deadlineMs, (id, tab, what, ms, run) => this.withEntry(id, what, (e) =>
 * run(pageOf(e, tab)), ms), side)
 */
import {
  inputDeadline,
  RuntimeError,
  typedRuns,
  type TextRun,
  type ContextError,
  type ContextId,
  type PageAction,
  type PageDialog,
  type PageDialogAnswer,
  type PageInput,
  type PageOutcome,
  type TabPageVerbs,
  type PageWhere,
  type RawPage,
} from '@errands/runtime'
import { Effect } from 'effect'
import type { Page } from 'playwright-core'
import type { PageLogs } from './pageLog.ts'
import { drag, evaluateIn, fillForm, upload } from './pageTools.ts'

/**
 * Runs `run` on a tab's page within `deadlineMs`, failures mapped to `RuntimeError`s.
 *
 * @example
 * onPage(id, 't1', 'text', 30_000, (page) => page.title())
 */
export type OnPage = <A>(
  contextId: ContextId,
  tabId: string,
  what: string,
  deadlineMs: number,
  run: (page: Page, signal: AbortSignal) => Promise<A>,
) => Effect.Effect<A, ContextError>

/**
 * A tab that is not (or no longer) in its context: `target-closed`, as a page closed mid-call is.
 *
 * @example
 * entry.tabs.get(tabId) ?? closedTab(tabId)
 */
export const closedTab = (tabId: string): never => {
  throw new RuntimeError({ reason: 'target-closed', message: `tab ${tabId} is closed` })
}

const cut = (s: string, limit: number) => ({ text: s.slice(0, limit), truncated: s.length > limit })

const whereOf = async (page: Page): Promise<PageWhere> => ({ url: page.url(), title: await page.title() })

/**
 * Types a text event's runs ({@link typedRuns}) as a person's keyboard would: keyboard characters
 * as key presses, one at a time; the others (what an input method or a paste brings) inserted at
 * once, as a browser inserts committed text — so a long paste is one step, not a thousand. Stops
 * between steps once `signal` aborts (the verb's deadline passed), so no typing goes on behind the
 * next call.
 *
 * @example
 * await typeRuns(page, typedRuns([{ type: 'text', text: 'café 東京' }])[0]!, signal) // c, a, f as keys; "é" inserted;
 * space; "東京" inserted
 */
const typeRuns = async (page: Page, runs: ReadonlyArray<TextRun>, signal?: AbortSignal): Promise<void> => {
  for (const run of runs) {
    for (const step of run.keys ? run.text : [run.text]) {
      signal?.throwIfAborted()
      await (run.keys ? page.keyboard.type(step) : page.keyboard.insertText(step))
    }
  }
}

/**
 * Applies input events in order with Playwright's mouse and keyboard: trusted input, as a
 * person's. The caller keeps other input from interleaving; once `signal` aborts, nothing more is
 * applied.
 *
 * @example
 * await applyInput(page, [{ type: 'mouse', action: 'click', x: 10, y: 10 }, { type: 'text', text: 'hi' }])
 */
export const applyInput = async (
  page: Page,
  events: ReadonlyArray<PageInput>,
  signal?: AbortSignal,
): Promise<number> => {
  const runs = typedRuns(events)
  let applied = 0
  for (const e of events) {
    signal?.throwIfAborted()
    switch (e.type) {
      case 'mouse': {
        const button = e.button ?? 'left'
        if (e.action === 'move') await page.mouse.move(e.x, e.y)
        else if (e.action === 'down' || e.action === 'up') {
          await page.mouse.move(e.x, e.y)
          await (e.action === 'down' ? page.mouse.down({ button }) : page.mouse.up({ button }))
        } else if (e.action === 'click') await page.mouse.click(e.x, e.y, { button })
        else await page.mouse.dblclick(e.x, e.y, { button })
        break
      }
      case 'wheel':
        if (e.x !== undefined && e.y !== undefined) await page.mouse.move(e.x, e.y)
        await page.mouse.wheel(e.dx, e.dy)
        break
      case 'key':
        if (e.action === 'down') await page.keyboard.down(e.key)
        else if (e.action === 'up') await page.keyboard.up(e.key)
        else await page.keyboard.press(e.key)
        break
      case 'text':
        await typeRuns(page, runs[applied]!, signal)
        break
    }
    applied++
  }
  return applied
}

/**
 * `work`, or `'dialog'` as soon as `page` opens a JavaScript dialog first (an action that opened
 * one would otherwise wait for its answer until the deadline). A failure of `work` after that is
 * nobody's.
 *
 * @example
 * await orDialog(page, page.click('#delete')) // 'dialog': a confirm() is waiting
 */
export const orDialog = (page: Page, work: Promise<unknown>): Promise<PageOutcome> => {
  let off = (): void => undefined
  const opened = new Promise<'dialog'>((resolve) => {
    const on = () => resolve('dialog')
    page.once('dialog', on)
    off = () => void page.off('dialog', on)
  })
  work.catch(() => undefined)
  return Promise.race([work.then(() => 'done' as const), opened]).finally(off)
}

/** An action by selector; an upload's files are in `folder` (the errand's files folder). */
const act = (page: Page, action: PageAction, folder = ''): Promise<PageOutcome> => {
  switch (action.type) {
    case 'click':
      return orDialog(page, page.click(action.selector, { timeout: action.timeoutMs }))
    case 'fill':
      return orDialog(page, page.fill(action.selector, action.value, { timeout: action.timeoutMs }))
    case 'fill-form':
      return orDialog(page, fillForm(page, action.fields, action.timeoutMs))
    case 'drag':
      return orDialog(page, drag(page, action.from, action.to, action.timeoutMs))
    case 'upload':
      // Its refusals (a name out of the folder) are the caller's: they fail the action, not wait for a dialog.
      return upload(page, action.selector, action.names, folder, action.timeoutMs).then(() => 'done' as const)
  }
}

/**
 * The runtime's side of the page verbs that are not one page's: the active tab, the held
 * dialogs, the pages' logs and the errand's files folder (a context without one fails `invalid`).
 */
export interface ContextSide {
  readonly activeTab: (contextId: ContextId) => Effect.Effect<string | undefined, ContextError>
  readonly logs: PageLogs
  readonly filesDir: (contextId: ContextId) => Effect.Effect<string, ContextError>
  readonly pendingDialog: (contextId: ContextId) => PageDialog | undefined
  readonly answerDialog: (contextId: ContextId, how: PageDialogAnswer) => Promise<PageDialog | undefined>
}

const dialogOf = (d: PageDialog | undefined): PageDialog | undefined =>
  d === undefined ? undefined : { type: d.type, message: d.message, defaultPrompt: d.defaultPrompt, tabId: d.tabId }

/**
 * The page verbs over `onPage`. A verb that waits on the page by its own timeout (act, history)
 * gets a deadline a little past it, so the page's own `timeout` answers first and says what it
 * waited for.
 *
 * @example
 * const pages = chromiumPages(30_000, onPage)
 * yield* pages.act(id, 't1', { type: 'click', selector: '#go', timeoutMs: 5_000 })
 */
export const chromiumPages = (deadlineMs: number, onPage: OnPage, side: ContextSide): TabPageVerbs => {
  const past = (timeoutMs: number) => Math.max(deadlineMs, timeoutMs + 1_000)
  return {
    where: (id, tab) => onPage(id, tab, 'where', deadlineMs, whereOf),
    url: (id, tab) => onPage(id, tab, 'url', deadlineMs, async (page) => page.url()),
    waitForLoad: (id, tab, timeoutMs) =>
      onPage(id, tab, 'load', past(timeoutMs), (page) =>
        page.waitForLoadState('domcontentloaded', { timeout: timeoutMs }),
      ),
    // Scripts for the page are strings: no loader transform can reach what runs there (#22).
    text: (id, tab, limit) =>
      onPage(id, tab, 'text', deadlineMs, async (page) =>
        cut(String(await page.evaluate("(document.body || document.documentElement || {}).innerText || ''")), limit),
      ),
    html: (id, tab, limit) => onPage(id, tab, 'html', deadlineMs, async (page) => cut(await page.content(), limit)),
    screenshot: (id, tab, { fullPage, type, quality }) =>
      onPage(
        id,
        tab,
        'screenshot',
        deadlineMs,
        async (page) =>
          new Uint8Array(
            await page.screenshot(
              type === 'jpeg'
                ? { type, quality, fullPage, timeout: deadlineMs }
                : { type: 'png', fullPage, timeout: deadlineMs },
            ),
          ),
      ),
    act: (id, tab, action) =>
      action.type === 'upload'
        ? Effect.flatMap(side.filesDir(id), (folder) =>
            onPage(id, tab, action.type, past(action.timeoutMs), (page) => act(page, action, folder)),
          )
        : onPage(id, tab, action.type, past(action.timeoutMs), (page) => act(page, action)),
    evaluate: (id, tab, expression, limit) =>
      onPage(id, tab, 'evaluate', deadlineMs, (page) => evaluateIn(page, expression, limit)),
    console: (id, tab) => onPage(id, tab, 'console', deadlineMs, async (page) => side.logs.of(page).console.read()),
    network: (id, tab) => onPage(id, tab, 'network', deadlineMs, async (page) => side.logs.of(page).network.read()),
    scroll: (id, tab, dx, dy) =>
      onPage(
        id,
        tab,
        'scroll',
        deadlineMs,
        (page) =>
          page.evaluate(
            `window.scrollBy(${Number(dx)}, ${Number(dy)}); ({ scrollX: window.scrollX, scrollY: window.scrollY })`,
          ) as Promise<{ scrollX: number; scrollY: number }>,
      ),
    input: (id, tab, events) =>
      onPage(id, tab, 'input', inputDeadline(deadlineMs, events), (page, signal) => applyInput(page, events, signal)),
    history: (id, tab, step, timeoutMs, wait = 'domcontentloaded') =>
      onPage(id, tab, step, past(timeoutMs), async (page) => {
        const options = { timeout: timeoutMs, waitUntil: wait }
        const outcome = await orDialog(
          page,
          step === 'back' ? page.goBack(options) : step === 'forward' ? page.goForward(options) : page.reload(options),
        )
        // A dialog blocks the page's scripts: its title would wait for the answer.
        return outcome === 'dialog' ? { url: page.url(), title: '' } : whereOf(page)
      }),
    setViewport: (id, tab, size) => onPage(id, tab, 'set viewport', deadlineMs, (page) => page.setViewportSize(size)),
    viewport: (id, tab) => onPage(id, tab, 'viewport', deadlineMs, async (page) => page.viewportSize() ?? undefined),
    activeTab: side.activeTab,
    dialog: (id) => Effect.sync(() => dialogOf(side.pendingDialog(id))),
    answerDialog: (id, how) =>
      Effect.map(
        Effect.promise(() => side.answerDialog(id, how)),
        dialogOf,
      ),
    // The one way out to the browser library: an opaque handle only MCP narrows (playwrightPage).
    raw: (id, tab) => onPage(id, tab, 'page', deadlineMs, async (page) => page as unknown as RawPage),
  }
}
