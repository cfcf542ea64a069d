/**
 * A small per-page log (issue #25): the console messages and the requests of one tab's page
 * since it opened — the one collector behind `GET /v1/console`, `GET /v1/network` and MCP's
 * `browser_console_messages` / `browser_network_requests` (which read it through the page,
 * `pageLogOf`). Each is a bounded ring — the newest {@link LOG_LIMIT} entries, the count of older
 * ones dropped — and every text is cut, so a page that logs or fetches in a loop costs the engine
 * a fixed amount of memory. Entries carry what MCP shows too: a console level and location, a
 * request's status text, and the main-frame navigation each belongs to.
 *
 * @example
 * const logs = new PageLogs()
 * logs.watch(page)            // when the page becomes a tab
 * logs.of(page).console.read() // { entries: [{ type: 'log', text: 'hi', at, level: 'info', … }], dropped: 0 }
 */
import {
  attachPageLog,
  type PageConsoleMessage,
  type PageLog,
  type PageRequest,
  type RawRequest,
} from '@errands/runtime'
import type { Page, Request } from 'playwright-core'

/** Entries kept per log (the newest). @example LOG_LIMIT // 500 */
export const LOG_LIMIT = 500
/** Longest console text or URL kept (characters). */
const TEXT_LIMIT = 4_000

const cut = (s: string) => (s.length > TEXT_LIMIT ? `${s.slice(0, TEXT_LIMIT)}…` : s)

/** A ring of the newest `limit` entries. @example new Ring<number>(2).push(1) */
export class Ring<T> {
  private readonly entries: Array<T> = []
  private dropped = 0

  constructor(private readonly limit = LOG_LIMIT) {}

  /** Adds an entry, dropping the oldest past the limit (answered). @example ring.push(x) */
  push(entry: T): T | undefined {
    this.entries.push(entry)
    if (this.entries.length <= this.limit) return undefined
    this.dropped++
    return this.entries.shift()
  }

  /** What is kept, oldest first, and how many were dropped. @example ring.read().entries */
  read(): PageLog<T> {
    return { entries: [...this.entries], dropped: this.dropped }
  }
}

/** One page's logs. */
export interface PageLogBook {
  readonly console: Ring<PageConsoleMessage>
  readonly network: Ring<PageRequest>
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** Playwright's console type as a level (each includes the more severe). */
const levelOf = (type: string): 'error' | 'warning' | 'info' | 'debug' =>
  type === 'error' || type === 'assert'
    ? 'error'
    : type === 'warning'
      ? 'warning'
      : type === 'debug' || type === 'trace'
        ? 'debug'
        : 'info'

/** The logs of every page a runtime follows, kept as long as the page is. */
export class PageLogs {
  private readonly books = new WeakMap<Page, PageLogBook>()

  /**
   * Starts logging `page` (once; a second call is a no-op: the listeners are there).
   *
   * @example
   * logs.watch(page)
   */
  watch(page: Page): void {
    if (this.books.has(page)) return
    const book: PageLogBook = { console: new Ring(), network: new Ring() }
    this.books.set(page, book)
    const requests = new WeakMap<Request, Mutable<PageRequest>>()
    // The library's requests of the entries kept, by number (for MCP's headers and bodies).
    const kept = new Map<number, Request>()
    let nav = 0
    let seq = 0
    const said = (entry: PageConsoleMessage) => void book.console.push(entry)
    page.on('console', (m) => {
      const l = m.location()
      said({
        type: m.type(),
        text: cut(m.text()),
        at: Date.now(),
        level: levelOf(m.type()),
        location: l.url === '' ? '' : cut(`${l.url}:${l.lineNumber}`),
        nav,
      })
    })
    page.on('pageerror', (e) =>
      said({
        type: 'pageerror',
        text: cut(`${e.name}: ${e.message}`),
        at: Date.now(),
        level: 'error',
        location: '',
        nav,
      }),
    )
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) nav++
    })
    page.on('request', (r) => {
      // A main-frame navigation's own request comes before its document commits: it belongs to
      // the navigation it starts (Playwright MCP lists the document with the page it loaded).
      const starts = r.isNavigationRequest() && r.frame() === page.mainFrame()
      const entry: Mutable<PageRequest> = {
        method: r.method(),
        url: cut(r.url()),
        resourceType: r.resourceType(),
        status: null,
        failure: null,
        at: Date.now(),
        statusText: null,
        nav: starts ? nav + 1 : nav,
        seq: ++seq,
      }
      requests.set(r, entry)
      kept.set(entry.seq!, r)
      const dropped = book.network.push(entry)
      if (dropped?.seq !== undefined) kept.delete(dropped.seq)
    })
    // The entry in the ring is the one object, so its answer shows wherever it is read from.
    page.on('response', (res) => {
      const entry = requests.get(res.request())
      if (entry === undefined) return
      entry.status = res.status()
      entry.statusText = cut(res.statusText())
    })
    page.on('requestfailed', (r) => {
      const entry = requests.get(r)
      if (entry !== undefined) entry.failure = cut(r.failure()?.errorText ?? 'failed')
    })
    attachPageLog(page, {
      console: () => book.console.read(),
      network: () => book.network.read(),
      nav: () => nav,
      request: (n) => kept.get(n) as unknown as RawRequest | undefined,
    })
  }

  /** The logs of `page` (empty ones for a page nobody watched). @example logs.of(page).network.read() */
  of(page: Page): PageLogBook {
    return this.books.get(page) ?? { console: new Ring(), network: new Ring() }
  }
}
