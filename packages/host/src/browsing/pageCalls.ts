/**
 * The page calls behind the verbs, each with a deadline, and failures mapped onto the few kinds
 * a browser fails in (STYLE §6): timeout, target closed, crashed, unreachable, refused.
 *
 * @example
 * const text = yield* pageCall('text', deadlineMs, () => readText(page))
 */
import type { ContextNotFound, RuntimeError } from '@errands/runtime'
import { toRuntimeError } from '@errands/runtime-chromium'
import { Duration, Effect } from 'effect'
import type { Page } from 'playwright-core'
import { PageError } from '../errors.ts'

/** Longest text returned (characters); longer is cut and flagged `truncated`. @example text.slice(0, MAX_TEXT) */
export const MAX_TEXT = 1_000_000
/** Longest HTML returned (characters). @example html.slice(0, MAX_HTML) */
export const MAX_HTML = 5_000_000

/**
 * A runtime failure as the host's `PageError`. A context that vanished mid-call (released,
 * parked by shutdown, crashed) is `target-closed`.
 *
 * @example
 * effect.pipe(Effect.mapError(fromRuntime))
 */
export const fromRuntime = (e: RuntimeError | ContextNotFound): PageError =>
  e._tag === 'ContextNotFound'
    ? new PageError({ reason: 'target-closed', message: "This session's browser closed while the call ran (released, set aside or crashed); call again." })
    : new PageError({ reason: e.reason, message: e.message })

/**
 * Runs one Playwright call with a deadline. `navigation` says whether an unreachable site is the
 * likely failure (502) rather than a refused action (422).
 *
 * @example
 * yield* pageCall('click', 10_000, () => page.click('#go', { timeout: 10_000 }))
 */
export const pageCall = <A>(what: string, deadlineMs: number, run: () => Promise<A>, navigation = false): Effect.Effect<A, PageError> =>
  Effect.tryPromise({
    try: run,
    catch: (e) => {
      const failure = toRuntimeError(what, e)
      const reason = failure.reason === 'unavailable' && !navigation ? 'invalid' : failure.reason
      return new PageError({ reason, message: failure.message })
    },
  }).pipe(
    Effect.timeoutFail({
      duration: Duration.millis(deadlineMs),
      onTimeout: () => new PageError({ reason: 'timeout', message: `${what}: no answer within ${deadlineMs} ms; try again or give the page more time.` }),
    }),
  )

/**
 * The page's visible text (`innerText` of the body), cut at {@link MAX_TEXT}.
 *
 * @example
 * const { text, truncated } = await readText(page)
 */
export const readText = async (page: Page): Promise<{ readonly text: string; readonly truncated: boolean }> => {
  // Scripts for the page are strings: no loader transform can reach what runs there (#22).
  const text = String(await page.evaluate("(document.body || document.documentElement || {}).innerText || ''"))
  return { text: text.slice(0, MAX_TEXT), truncated: text.length > MAX_TEXT }
}

/**
 * The page's HTML, cut at {@link MAX_HTML}.
 *
 * @example
 * const { html } = await readHtml(page)
 */
export const readHtml = async (page: Page): Promise<{ readonly html: string; readonly truncated: boolean }> => {
  const html = await page.content()
  return { html: html.slice(0, MAX_HTML), truncated: html.length > MAX_HTML }
}

/**
 * Scrolls the page's window by (dx, dy) CSS pixels; returns where it is now.
 *
 * @example
 * await scrollBy(page, 0, 600) // { scrollX: 0, scrollY: 600 }
 */
export const scrollBy = (page: Page, dx: number, dy: number): Promise<{ readonly scrollX: number; readonly scrollY: number }> =>
  page.evaluate(`window.scrollBy(${Number(dx)}, ${Number(dy)}); ({ scrollX: window.scrollX, scrollY: window.scrollY })`) as Promise<{
    readonly scrollX: number
    readonly scrollY: number
  }>

/**
 * Applies input events in order as trusted input (the runtime's, `@errands/runtime-chromium`'s
 * `pageVerbs.ts`, until the input verb goes through `runtime.pages`). The caller holds the
 * session's input lock.
 *
 * @example
 * await applyInput(page, [{ type: 'mouse', action: 'click', x: 10, y: 10 }, { type: 'text', text: 'hi' }])
 */
export { applyInput } from '@errands/runtime-chromium'
