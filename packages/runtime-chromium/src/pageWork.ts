/**
 * Work of one browser context that must not interleave with more of its kind, one at a time.
 *
 * Its first use: page making. Playwright's `storageState()` visits origins without an open page
 * in a page of its own, which it hides by a flag on the whole context while creating it; a
 * `newPage()` of the same context meanwhile resets that flag, and the storage page is announced
 * as an ordinary page — it became the errand's active tab, could land in a snapshot, and closed
 * under whoever read it (found by the model suite; test/runtime-chromium/storageReads.test.ts).
 * The remote runtime still reads through `storageState()` inside its context's `pageWork`; the
 * local one reads storage itself and only makes its visit page there, so a new tab never waits
 * for a read. Its second: the local runtime's storage reads and clears (`Entry.reads`), which
 * each trust what the one before recorded.
 *
 * @example
 * const work = new PageWork()
 * const page = await work.run(() => context.newPage())
 */
export class PageWork {
  private tail: Promise<void> = Promise.resolve()

  /**
   * Runs `work` after every earlier `run` of this context has finished (failed or not).
   *
   * @example
   * await work.run(() => context.storageState())
   */
  run<A>(work: () => Promise<A>): Promise<A> {
    const result = this.tail.then(work)
    this.tail = result.then(
      () => undefined,
      () => undefined,
    )
    return result
  }
}
