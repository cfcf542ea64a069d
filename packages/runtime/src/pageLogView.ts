/**
 * A page's own log, reached through its opaque page handle (issue #25): the runtime that logs a
 * tab's console messages and requests (for `GET /v1/console` and `GET /v1/network`) attaches a
 * view of that one log to the page, and MCP's tools — which already hold the page through the
 * `RawPage` escape hatch — read it there, so every face shows what one collector saw. A runtime
 * that hands out no pages (the memory runtime) attaches none.
 *
 * @example
 * const log = pageLogOf(page)
 * log?.console().entries.filter((m) => m.nav === log.nav())
 */
import type { PageConsoleMessage, PageLog, PageRequest } from './pages.ts'

/** An opaque request of the runtime's browser library (Playwright's `Request` for Chromium). */
export type RawRequest = { readonly __rawRequest: unique symbol }

/** What a page's log shows. */
export interface PageLogView {
  /** Console messages and uncaught errors since the tab opened (a bounded ring). */
  readonly console: () => PageLog<PageConsoleMessage>
  /** Requests since the tab opened (a bounded ring). */
  readonly network: () => PageLog<PageRequest>
  /** Main-frame navigations so far: entries with this `nav` are "since the last navigation". */
  readonly nav: () => number
  /** The library's own request of entry `seq`, while the log keeps it (for headers and bodies). */
  readonly request: (seq: number) => RawRequest | undefined
}

const KEY = Symbol.for('@errands/runtime/pageLog')

/**
 * Attaches `view` to `page` (not enumerable: nothing serialises it).
 *
 * @example
 * attachPageLog(page, view)
 */
export const attachPageLog = (page: object, view: PageLogView): void => {
  Object.defineProperty(page, KEY, { value: view, enumerable: false, configurable: true })
}

/**
 * The log a runtime attached to `page`, if any.
 *
 * @example
 * pageLogOf(page)?.network().entries.length
 */
export const pageLogOf = (page: unknown): PageLogView | undefined =>
  typeof page === 'object' && page !== null ? (page as Record<symbol, PageLogView | undefined>)[KEY] : undefined
