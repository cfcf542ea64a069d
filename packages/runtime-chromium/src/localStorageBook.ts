/**
 * Which origins' localStorage a read must fetch, and what the others held when last read.
 *
 * Chromium reads an origin's localStorage only through a document of that origin, so a context's
 * storage used to be read the way Playwright's `storageState()` does it: every origin the
 * context ever showed, the ones without an open document visited one by one in a page of its
 * own. That grows with the errand's history (16 s for twenty origins on a loaded machine), and
 * everything else that makes a page waited behind it: an agent's "open tab" timed out.
 *
 * An origin's localStorage changes only while a document of that origin exists (or when we, or
 * a DevTools client, clear it). So an origin needs reading only if a document of it has existed
 * since it was last read: the book keeps those ("dirty"), and keeps what every other origin held.
 * A read begins by taking the dirty set and starting a new one with the origins that still have
 * documents (they may write after the read), reads what it took, and records it; a failed read
 * of an origin keeps its old value and stays dirty. While a DevTools client is attached nothing
 * is trusted: its page sessions reach `Storage.clearDataForOrigin` for origins without a document.
 *
 * @example
 * const book = new LocalStorageBook()
 * book.saw('https://shop.example/cart')
 * const stale = book.begin(new Set())   // ['https://shop.example']
 * book.record('https://shop.example', [{ name: 'cart', value: '3' }])
 * book.origins()                          // [{ origin: 'https://shop.example', localStorage: [...] }]
 * book.begin(new Set())                   // [] — nothing showed it since
 */
import type { OriginStorage } from '@errands/runtime'
import { OriginBook } from './originBook.ts'

type Items = OriginStorage['localStorage']

/** The book of a context's localStorage (see the module comment). @example new LocalStorageBook() */
export class LocalStorageBook extends OriginBook<Items> {
  /** The origins holding items, as last read. @example book.origins() */
  origins(): Array<OriginStorage> {
    return this.entries()
      .filter(([, items]) => items.length > 0)
      .map(([origin, items]) => ({ origin, localStorage: [...items] }))
  }
}
