/**
 * Which origins of a context a storage read must fetch, and what the others held when last read:
 * the rule of `LocalStorageBook` (see there for why it holds), kept once for every kind of
 * storage that changes only while a document of its origin exists — localStorage, and the
 * errand's own IndexedDB (E7).
 *
 * @example
 * const book = new OriginBook<number>()
 * book.saw('https://shop.example/cart')
 * book.begin(new Set()) // ['https://shop.example']
 * book.record('https://shop.example', 3)
 */

/** The origin of a URL that can have storage (http and https), or undefined. */
const storageOrigin = (url: string): string | undefined => {
  if (!url.startsWith('http://') && !url.startsWith('https://')) return undefined
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

/**
 * The origins a read must fetch ("dirty") and the last value read of every other one.
 *
 * @example
 * class LocalStorageBook extends OriginBook<Items> { … }
 */
export class OriginBook<T> {
  /** Every origin read at least once, with its value then (empty ones too). */
  private readonly known = new Map<string, T>()
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

  /** What an origin holds, as just read (or just restored). @example book.record('https://a.example', items) */
  record(origin: string, value: T): void {
    this.known.set(origin, value)
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

  /** Every known origin with its value as last read, in the order first read. @example book.entries() */
  entries(): Array<[string, T]> {
    return [...this.known]
  }
}
