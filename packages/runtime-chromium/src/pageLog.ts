/**
 * A small per-page log (issue #25): the console messages and the requests of one tab's page
 * since it opened, for the page tools (`GET /v1/console`, `GET /v1/network`). Each is a bounded
 * ring — the newest {@link LOG_LIMIT} entries, the count of older ones dropped — and every text
 * is cut, so a page that logs or fetches in a loop costs the engine a fixed amount of memory.
 *
 * @example
 * const logs = new PageLogs()
 * logs.watch(page)            // when the page becomes a tab
 * logs.of(page).console.read() // { entries: [{ type: 'log', text: 'hi', at }], dropped: 0 }
 */
import type { PageConsoleMessage, PageLog, PageRequest } from '@errands/runtime'
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

  /** Adds an entry, dropping the oldest past the limit. @example ring.push(x) */
  push(entry: T): void {
    this.entries.push(entry)
    if (this.entries.length > this.limit) {
      this.entries.shift()
      this.dropped++
    }
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
    page.on('console', (m) => book.console.push({ type: m.type(), text: cut(m.text()), at: Date.now() }))
    page.on('pageerror', (e) => book.console.push({ type: 'pageerror', text: cut(`${e.name}: ${e.message}`), at: Date.now() }))
    page.on('request', (r) => {
      const entry: Mutable<PageRequest> = { method: r.method(), url: cut(r.url()), resourceType: r.resourceType(), status: null, failure: null, at: Date.now() }
      requests.set(r, entry)
      book.network.push(entry)
    })
    // The entry in the ring is the one object, so its answer shows wherever it is read from.
    page.on('response', (res) => {
      const entry = requests.get(res.request())
      if (entry !== undefined) entry.status = res.status()
    })
    page.on('requestfailed', (r) => {
      const entry = requests.get(r)
      if (entry !== undefined) entry.failure = cut(r.failure()?.errorText ?? 'failed')
    })
  }

  /** The logs of `page` (empty ones for a page nobody watched). @example logs.of(page).network.read() */
  of(page: Page): PageLogBook {
    return this.books.get(page) ?? { console: new Ring(), network: new Ring() }
  }
}
