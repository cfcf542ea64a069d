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

type Items = OriginStorage['localStorage']

/** The origin of a URL that can have localStorage (http and https), or undefined. */
const storageOrigin = (url: string): string | undefined => {
  if (!url.startsWith('http://') && !url.startsWith('https://')) return undefined
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

export class LocalStorageBook {
  /** Every origin read at least once, with its items then (empty ones too). */
  private readonly known = new Map<string, Items>()
  private dirty = new Set<string>()

  /**
   * A document of `url`'s origin exists (a frame committed it): read that origin next time.
   *
   * @example
   * book.saw(frame.url())
   */
  saw(url: string): void {
    const origin = storageOrigin(url)
    if (origin !== undefined) this.dirty.add(origin)
  }

  /**
   * Starts a read: returns the origins to fetch (dirty, and `live` — the origins of every
   * document open now, as URLs or origins). `live` stays dirty for the next read.
   *
   * @example
   * const stale = book.begin(new Set(context.pages().flatMap((p) => p.frames().map((f) => f.url()))))
   */
  begin(live: ReadonlySet<string>): ReadonlyArray<string> {
    const liveOrigins = new Set([...live].flatMap((url) => storageOrigin(url) ?? []))
    const stale = [...new Set([...this.dirty, ...liveOrigins])]
    this.dirty = liveOrigins
    return stale
  }

  /** What an origin holds, as just read. @example book.record('https://a.example', items) */
  record(origin: string, items: Items): void {
    this.known.set(origin, items)
  }

  /** Reading an origin failed: its last value stands, and it is read again next time. @example book.failed(origin) */
  failed(origin: string): void {
    this.dirty.add(origin)
  }

  /**
   * The origins `which` accepts that may hold something: known ones and dirty ones. Once they
   * are cleared, {@link record} them empty.
   *
   * @example
   * book.clearable((o) => o === 'https://a.example') // ['https://a.example']
   */
  clearable(which: (origin: string) => boolean): ReadonlyArray<string> {
    return [...new Set([...this.known.keys(), ...this.dirty])].filter(which)
  }

  /** Trusts nothing read so far: every known origin is read again. @example book.distrust() */
  distrust(): void {
    for (const origin of this.known.keys()) this.dirty.add(origin)
  }

  /** The origins holding items, as last read. @example book.origins() */
  origins(): Array<OriginStorage> {
    return [...this.known]
      .filter(([, items]) => items.length > 0)
      .map(([origin, items]) => ({ origin, localStorage: [...items] }))
  }
}
