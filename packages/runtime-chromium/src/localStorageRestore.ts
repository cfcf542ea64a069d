/**
 * Restoring localStorage without a navigation per origin.
 *
 * Playwright's `newContext({ storageState })` loads a page per origin to write its storage —
 * that is where 1–2 s of a resume go (STACK-NOTES "Speed"). Instead, an init script carries the
 * pending origins' items and writes an origin's items into the **first document of that origin**
 * that runs in the context, before any of the page's scripts. Once a top-level document of an
 * origin has committed, the origin is dropped from the script (the script is re-registered
 * without it), so it is written once and never again. The script leaves no marker behind: it
 * writes only while the origin's storage is still empty, which also covers the short moment
 * between a commit and the re-registration.
 *
 * Origins that no tab has visited yet stay pending; `storageState` reports them from here, so a
 * snapshot taken before they are visited loses nothing.
 *
 * @example
 * const pending = new PendingLocalStorage(context, storage.origins)
 * await pending.install()
 * page.on('framenavigated', (f) => f === page.mainFrame() && pending.markVisited(f.url()))
 */
import { originOf, type OriginStorage } from '@errands/runtime'
import type { BrowserContext, Disposable } from 'playwright-core'

/**
 * The init script's body: plain JavaScript (a string, so no bundler helper can leak into the
 * page). `DATA` maps an origin to `[name, value]` pairs. It writes only in a top-level document,
 * or a frame of the top document's own origin (cross-site frames have partitioned storage),
 * and only while that origin's storage is empty.
 *
 * @example
 * new Function('window', restoreScript({ 'https://a.example': [['k', 'v']] }))(fakeWindow)
 */
export const restoreScript = (data: Readonly<Record<string, ReadonlyArray<readonly [string, string]>>>): string => `
(function (w) {
  try {
    var DATA = ${JSON.stringify(data).replace(/</g, '\\u003c')};
    var origin = w.location.origin;
    if (!Object.prototype.hasOwnProperty.call(DATA, origin)) return;
    if (w.top !== w.self) {
      try { if (w.top.location.origin !== origin) return; } catch (e) { return; }
    }
    var storage = w.localStorage;
    if (storage.length !== 0) return;
    var items = DATA[origin];
    for (var i = 0; i < items.length; i++) storage.setItem(items[i][0], items[i][1]);
  } catch (e) { /* storage may be disabled for this document: nothing to restore into */ }
})(typeof window !== 'undefined' ? window : globalThis);
`

/**
 * The localStorage still to be written into a context (see the module comment).
 *
 * @example
 * const pending = new PendingLocalStorage(context, [{ origin: 'https://a.example', localStorage: [{ name: 'k', value:
 * 'v' }] }])
 */
export class PendingLocalStorage {
  private readonly pending = new Map<string, OriginStorage>()
  private script: Disposable | undefined
  private chain: Promise<void> = Promise.resolve()
  private queued = false

  constructor(
    private readonly context: BrowserContext,
    origins: ReadonlyArray<OriginStorage>,
  ) {
    for (const o of origins) {
      const origin = originOf(o.origin)
      if (origin && o.localStorage.length > 0) this.pending.set(origin, { origin, localStorage: o.localStorage })
    }
  }

  /** Registers the init script (before any page of the context opens). @example await pending.install() */
  install(): Promise<void> {
    return this.reinstall()
  }

  /**
   * A top-level document of `url`'s origin committed: never write that origin again.
   *
   * @example
   * pending.markVisited('https://a.example/cart')
   */
  markVisited(url: string): void {
    const origin = originOf(url)
    if (origin && this.pending.delete(origin)) void this.reinstall()
  }

  /**
   * Forgets pending origins the predicate accepts (`clearOrigins`); returns those origins.
   *
   * @example
   * pending.drop((o) => o === 'https://a.example')
   */
  drop(which: (origin: string) => boolean): ReadonlyArray<string> {
    const dropped = [...this.pending.keys()].filter(which)
    for (const origin of dropped) this.pending.delete(origin)
    if (dropped.length > 0) void this.reinstall()
    return dropped
  }

  /** The origins not written yet, with their items. @example pending.origins() */
  origins(): ReadonlyArray<OriginStorage> {
    return [...this.pending.values()]
  }

  /** Waits for registrations in flight (tests, shutdown). @example await pending.settled() */
  settled(): Promise<void> {
    return this.chain
  }

  private reinstall(): Promise<void> {
    // Coalesced: while a registration is queued, later changes ride along with it (it reads
    // `pending` when it runs). Registrations are serialised, and the new script is added before
    // the old one goes, so an origin still pending is never without a script, not even briefly.
    if (this.queued) return this.chain
    this.queued = true
    this.chain = this.chain
      .then(async () => {
        this.queued = false
        const data = Object.fromEntries(
          [...this.pending.values()].map((o) => [o.origin, o.localStorage.map((i) => [i.name, i.value] as const)]),
        )
        const previous = this.script
        this.script =
          this.pending.size === 0 ? undefined : await this.context.addInitScript({ content: restoreScript(data) })
        await previous?.dispose()
      })
      .catch(() => {
        // The context closed meanwhile: nothing left to restore into.
      })
    return this.chain
  }
}
