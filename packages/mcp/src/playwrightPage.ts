/**
 * The one place a runtime's opaque page (`RawPage`, the declared escape hatch of the runtime's
 * page verbs, #24) becomes a Playwright page: MCP's locator tools need Playwright's aria
 * snapshots and locators, which no runtime verb carries. The host passes the handle on untouched
 * and never imports Playwright; a handle that is not a Playwright page (the memory runtime hands
 * none out) fails here, loudly, instead of somewhere inside a tool.
 *
 * @example
 * const yaml = yield* onPlaywrightPage(errand, 'snapshot', (page) => page.ariaSnapshot({ mode: 'ai' }))
 */
import type { RawPage } from '@errands/runtime'
import type { Effect } from 'effect'
import type { Page } from 'playwright-core'
import type { EngineFailure, ErrandBrowser } from './ErrandBrowser.ts'

/**
 * The Playwright page behind a runtime's opaque page.
 *
 * @example
 * const page = playwrightPage(raw)
 * await page.ariaSnapshot({ mode: 'ai' })
 */
export const playwrightPage = (raw: RawPage): Page => {
  const page = raw as unknown as Partial<Page> | null
  if (
    page === null ||
    typeof page !== 'object' ||
    typeof page.locator !== 'function' ||
    typeof page.ariaSnapshot !== 'function'
  ) {
    throw new TypeError(
      "the runtime handed out a page that is not a Playwright page; MCP's page tools need a Chromium runtime",
    )
  }
  return page as Page
}

/**
 * `errand.onPage` with the page as Playwright's: what every locator tool calls.
 *
 * @example
 * yield* onPlaywrightPage(ctx.errand, 'press key', (page) => page.keyboard.press('Enter'))
 */
export const onPlaywrightPage = <A>(
  errand: ErrandBrowser,
  what: string,
  run: (page: Page, tab: string) => Promise<A>,
): Effect.Effect<A, EngineFailure> => errand.onPage(what, async (raw, tab) => run(playwrightPage(raw), tab))
