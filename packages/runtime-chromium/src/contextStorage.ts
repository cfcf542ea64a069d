/**
 * A context's storage as the Chromium runtime keeps track of it and reads it: which origins'
 * localStorage and IndexedDB a read must fetch and what the rest held (localStorageBook.ts,
 * originBook.ts), the localStorage writes still pending (localStorageRestore.ts), and the reads
 * themselves, one at a time per context, never answered by a page whose document is not the
 * errand's (the runtime's own pages, a crashed renderer's).
 */
import type { ContextId, OriginStorage, Snapshot, StorageState } from '@errands/runtime'
import type { BrowserContext, Page } from 'playwright-core'
import { within } from './failures.ts'
import { readIndexedDb, type OriginDatabases } from './indexedDb.ts'
import { LocalStorageBook } from './localStorageBook.ts'
import { PendingLocalStorage } from './localStorageRestore.ts'
import { OriginBook } from './originBook.ts'
import { PageWork } from './pageWork.ts'
import { readSessionStorage } from './sessionStorage.ts'
import { readStorage, type QuietPage } from './storage.ts'

/**
 * What a context keeps to read its storage.
 *
 * @example
 * interface Entry extends ContextEntry, KeptStorage { … }
 */
export interface KeptStorage {
  readonly storage: PendingLocalStorage
  /** Which origins' localStorage a read must fetch, and what the rest held (localStorageBook.ts). */
  readonly book: LocalStorageBook
  /** Which origins' IndexedDB a read must fetch, and what the rest held (E7, `indexedDb.ts`). */
  readonly idb: OriginBook<OriginDatabases>
  /** Storage reads and clears, one at a time (each trusts what the one before recorded). */
  readonly reads: PageWork
}

/** The context a read is of: its id, its Playwright context, and what it keeps. */
type Reading = KeptStorage & { readonly id: ContextId; readonly context: BrowserContext }

/**
 * The storage reads of one runtime's contexts.
 *
 * @example
 * const reads = new StorageReads({ deadlineMs, log, maxBytes, ownPages, attached, blocks })
 * const kept = reads.keep(context, spec.storage?.origins ?? [])
 */
export class StorageReads {
  /** Pages whose renderer died: their documents are gone, their origins are read by a visit. */
  private readonly crashedPages = new WeakSet<Page>()

  constructor(
    private readonly settings: {
      readonly deadlineMs: number
      readonly log: (line: string) => void
      /** The cap on each errand's IndexedDB, in bytes of its sealed encoding (E7). */
      readonly maxBytes: number
      /** The runtime's own pages (`ContextPages.isOwnPage`). */
      readonly ownPages: WeakSet<Page>
      /** Whether a DevTools client is attached to a context (it may change storage out of sight). */
      readonly attached: (contextId: ContextId) => boolean
      /** Whether a held dialog blocks a page's scripts. */
      readonly blocks: (page: Page) => boolean
    },
  ) {}

  /**
   * Starts keeping track of `context`'s storage, opened with `origins`' localStorage.
   *
   * @example
   * this.track({ id, kind, context, generation, label, ...reads.keep(context, origins) })
   */
  keep(context: BrowserContext, origins: StorageState['origins']): KeptStorage {
    const book = new LocalStorageBook()
    const idb = new OriginBook<OriginDatabases>()
    // Every document of every page (tabs, popups, a DevTools client's pages), except the runtime's
    // own pages (the reads visit origins in theirs: what they show is not the errand's).
    const watch = (page: Page) => {
      for (const frame of page.frames()) {
        book.saw(frame.url())
        idb.saw(frame.url())
      }
      page.on('framenavigated', (frame) => {
        if (this.settings.ownPages.has(page)) return
        book.saw(frame.url())
        idb.saw(frame.url())
      })
      page.on('crash', () => this.crashedPages.add(page))
    }
    context.pages().forEach(watch)
    context.on('page', watch)
    return { storage: new PendingLocalStorage(context, origins), book, idb, reads: new PageWork() }
  }

  /**
   * The context's cookies and localStorage; `visitPage` makes a page of the runtime's own.
   *
   * @example
   * await reads.storage(entry, () => entry.pageWork.run(() => this.newQuietPage(entry)))
   */
  storage(entry: Reading, visitPage: () => Promise<QuietPage>): Promise<StorageState> {
    if (this.settings.attached(entry.id)) entry.book.distrust()
    return entry.reads.run(() =>
      readStorage(entry.context, {
        book: entry.book,
        pending: entry.storage,
        perOriginMs: Math.min(10_000, this.settings.deadlineMs),
        visitPage,
        answers: (page) => !this.settings.ownPages.has(page) && !this.crashedPages.has(page),
      }),
    )
  }

  /**
   * The errand's own IndexedDB (E7), held to the cap.
   *
   * @example
   * await reads.indexedDb(entry, visitPage)
   */
  indexedDb(entry: Reading, visitPage: () => Promise<QuietPage>): Promise<Pick<Snapshot, 'indexedDB' | 'leftOut'>> {
    if (this.settings.attached(entry.id)) entry.idb.distrust()
    return entry.reads.run(() =>
      readIndexedDb(entry.context, {
        book: entry.idb,
        perOriginMs: Math.min(10_000, this.settings.deadlineMs),
        visitPage,
        answers: (page) =>
          !this.settings.ownPages.has(page) && !this.crashedPages.has(page) && !this.settings.blocks(page),
        maxBytes: this.settings.maxBytes,
        log: (line) => this.settings.log(`context ${entry.id}: ${line}`),
      }),
    )
  }

  /**
   * A tab's sessionStorage for the origin it shows (E7); none from a closed or crashed page.
   *
   * @example
   * await reads.sessionStorage(entry, page)
   */
  async sessionStorage(entry: Reading, page: Page): Promise<OriginStorage | undefined> {
    if (page.isClosed() || this.crashedPages.has(page)) return undefined
    return within(Math.min(10_000, this.settings.deadlineMs), readSessionStorage(entry.context, page))
  }
}
