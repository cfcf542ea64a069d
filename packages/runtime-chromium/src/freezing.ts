/**
 * Freezing a context's pages (E8): what really stops their CPU in headless Chromium 156, measured
 * (docs/adr/0038-exact-resume-and-frozen-errands.md): a page busy with a 10 ms interval, a
 * `requestAnimationFrame` loop and a CSS animation used ~0.6–0.9 s of CPU per 3 s;
 * `Page.setWebLifecycleState({ state: 'frozen' })` changed nothing (headless pages stay visible,
 * and Chromium freezes only hidden ones: no `freeze` event, timers ran on); a CPU throttling rate
 * of 100 slowed its timers but burnt more CPU; `Debugger.pause` stopped its scripts and left its
 * rendering (0.3 s); minimising its window stopped the rendering and left its scripts. Both
 * together: 0.09 s per 3 s, as much as an idle blank page. Nothing is lost while frozen — timers,
 * network answers and events wait in the page's queue and run when it wakes.
 *
 * A frozen page answers no script (a Playwright `evaluate` would wait for ever), so every runtime
 * call on a frozen context runs inside {@link PageFreezer.awake}: the pages wake for the call and
 * freeze again after it. Dedicated and service workers are not paused (their own targets).
 *
 * @example
 * const freezer = new PageFreezer(context, () => pages, log)
 * await freezer.freeze()
 * await freezer.awake(() => page.title()) // woken for the call, frozen again after
 * await freezer.thaw()
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core'

/** One frozen page: the session that holds it paused (detaching it would resume it) and its window. */
interface Held {
  readonly session: CDPSession
  readonly windowId: number | undefined
}

/**
 * The frozen state of one context's pages: wanted or not, held or not, and the calls that need
 * them awake meanwhile.
 *
 * @example
 * entry.freezer = new PageFreezer(context, () => entry.tabs.list().map((t) => t.handle), log)
 */
export class PageFreezer {
  /** Whether the context is to be frozen (between `freeze` and `thaw`). */
  private wanted = false
  /** Runtime calls running on the context now: while any runs, its pages stay awake. */
  private holds = 0
  private readonly held = new Map<Page, Held>()
  /** Freezing and waking, one at a time. */
  private chain: Promise<void> = Promise.resolve()

  constructor(
    private readonly context: BrowserContext,
    private readonly pages: () => ReadonlyArray<Page>,
    private readonly log: (line: string) => void,
  ) {}

  /** Whether the context is set aside as frozen (between `freeze` and `thaw`). @example freezer.isFrozen() */
  isFrozen(): boolean {
    return this.wanted
  }

  /** Whether `page` is held frozen right now (it answers no script). @example freezer.holdsFrozen(page) */
  holdsFrozen(page: Page): boolean {
    return this.held.has(page)
  }

  /** Freezes the pages (idempotent); a call running now keeps them awake until it ends. @example await freezer.freeze() */
  freeze(): Promise<void> {
    this.wanted = true
    return this.holds === 0 ? this.step(() => this.freezeAll()) : this.chain
  }

  /** Wakes the pages and stops wanting them frozen (idempotent). @example await freezer.thaw() */
  thaw(): Promise<void> {
    this.wanted = false
    return this.step(() => this.wakeAll())
  }

  /**
   * Runs `work` with the pages awake: a frozen context wakes for it and freezes again once no
   * call runs on it.
   *
   * @example
   * await freezer.awake(() => page.evaluate('document.title'))
   */
  async awake<A>(work: () => Promise<A>): Promise<A> {
    this.holds++
    try {
      if (this.held.size > 0 || this.wanted) await this.step(() => this.wakeAll())
      return await work()
    } finally {
      this.holds--
      if (this.holds === 0 && this.wanted)
        void this.step(() => (this.wanted && this.holds === 0 ? this.freezeAll() : undefined))
    }
  }

  private step(work: () => Promise<void> | undefined): Promise<void> {
    this.chain = this.chain.then(work).catch((e: unknown) => {
      this.log(`could not freeze or wake pages (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`)
    })
    return this.chain
  }

  private async freezeAll(): Promise<void> {
    await Promise.all(
      this.pages()
        .filter((p) => !p.isClosed() && !this.held.has(p))
        .map((p) => this.freezePage(p)),
    )
  }

  private async freezePage(page: Page): Promise<void> {
    const session = await this.context.newCDPSession(page)
    // Minimised, the page renders nothing (no frames, no compositor animations); paused, it runs no script.
    const windowId = await session
      .send('Browser.getWindowForTarget')
      .then((w) => w.windowId)
      .catch(() => undefined)
    if (windowId !== undefined)
      await session
        .send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'minimized' } })
        .catch(() => undefined)
    await session.send('Debugger.enable')
    await session.send('Debugger.pause')
    this.held.set(page, { session, windowId })
    page.once('close', () => this.held.delete(page))
  }

  private async wakeAll(): Promise<void> {
    const all = [...this.held]
    this.held.clear()
    await Promise.all(
      all.map(async ([page, { session, windowId }]) => {
        if (page.isClosed()) return
        // A pause asked for while no script ran is still pending: resuming clears it either way.
        await session.send('Debugger.resume').catch(() => undefined)
        await session.send('Debugger.disable').catch(() => undefined)
        if (windowId !== undefined)
          await session
            .send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'normal' } })
            .catch(() => undefined)
        await session.detach().catch(() => undefined)
      }),
    )
  }
}
