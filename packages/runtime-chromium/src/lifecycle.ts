/**
 * Freezing an errand context's pages (the first step of setting an errand aside, docs/parking.md).
 * Each page is told CDP `Page.setWebLifecycleState` `frozen` — which Chromium honours only for a
 * hidden page, and headless pages are never hidden — and its main thread is held by a CDP session
 * of the runtime's own with `Debugger.pause`: no script or timer of the page runs until the thaw
 * lets go of it and sets its lifecycle `active` again (docs/adr/0047-frozen-errands.md). The page keeps
 * its document, its storage and its place in the tabs; a page the context opens while frozen (a
 * popup, a reopened tab) is frozen as it is registered.
 *
 * The compositor runs a page's CSS animations and transitions on a thread of its own, which the
 * pause does not reach: they would go on painting. Before the pause the page's document timeline
 * is set to playback rate 0 (CDP `Animation.setPlaybackRate`), and the rate it had is put back at
 * the thaw, so an animation goes on from where it stood.
 *
 * A page's workers (dedicated, shared and service workers of the errand's browser context) are
 * threads of their own that a page's pause does not stop: a hostile page would keep computing and
 * sending from them while its errand is set aside. Each is held the same way, through a browser
 * session of the runtime's own attached to it (`workerHolds.ts`).
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core'
import { holdWorkers, type WorkerHold } from './workerHolds.ts'

/** A page's web lifecycle state as CDP sets it. */
export type LifecycleState = 'frozen' | 'active'

/** The runtime's session holding a frozen page, and the animation rate its timeline had before. */
interface PageHold {
  readonly session: CDPSession
  readonly playbackRate: number
}

/**
 * Which errand contexts are frozen, the sessions holding their pages, and the one way their pages
 * are frozen or thawed.
 *
 * @example
 * const frozen = new FrozenContexts()
 * await frozen.set(entry.context, 'frozen')
 * frozen.adopt(entry.context, newPage) // frozen too while its context is
 */
export class FrozenContexts {
  // Weak: a context or page closed while frozen leaves nothing behind.
  private readonly contexts = new WeakSet<BrowserContext>()
  private readonly holds = new WeakMap<Page, Promise<PageHold | undefined>>()
  private readonly workers = new WeakMap<BrowserContext, Promise<WorkerHold | undefined>>()

  /** Whether the context is frozen now. */
  has(context: BrowserContext): boolean {
    return this.contexts.has(context)
  }

  /**
   * Sets every page of the context to `state`, and remembers it so pages opened later follow.
   * Frozen is remembered before the pages are told, so a page opened meanwhile is frozen too.
   */
  async set(context: BrowserContext, state: LifecycleState): Promise<void> {
    if (state === 'frozen') this.contexts.add(context)
    else this.contexts.delete(context)
    await Promise.all(
      context.pages().map((page) => (state === 'frozen' ? this.freeze(context, page) : this.thaw(page))),
    )
    // After the pages: a held page starts no new worker, so the list read now is the whole of it.
    if (state === 'frozen') await this.freezeWorkers(context)
    else await this.thawWorkers(context)
  }

  /**
   * A frozen page's title, from the browser's side (`Target.getTargetInfo` on the session holding
   * it): the page's own `document.title` would wait for the thaw. Undefined when the page is not held.
   */
  async title(page: Page): Promise<string | undefined> {
    const hold = await this.holds.get(page)?.catch(() => undefined)
    if (hold === undefined) return undefined
    const { targetInfo } = await hold.session.send('Target.getTargetInfo')
    return targetInfo.title
  }

  /** A page the context opens: frozen when its context is (best effort: a failure is the page's own). */
  adopt(context: BrowserContext, page: Page): void {
    if (this.contexts.has(context)) void this.freeze(context, page).catch(() => undefined)
  }

  private async freeze(context: BrowserContext, page: Page): Promise<void> {
    if (page.isClosed() || this.holds.has(page)) return
    const hold = (async () => {
      const session = await context.newCDPSession(page)
      // Before the pause: the main thread pushes the stopped timeline to the compositor. Measured on
      // Chromium 156: with the pause alone a transform animation's picture kept moving and its
      // currentTime jumped by the frozen time at the thaw; with rate 0 first, neither.
      const { playbackRate } = await session.send('Animation.getPlaybackRate')
      await session.send('Animation.setPlaybackRate', { playbackRate: 0 })
      // The pause takes effect at the page's next statement; a page with nothing to run is idle already.
      await session.send('Debugger.enable')
      await session.send('Debugger.pause')
      await session.send('Page.setWebLifecycleState', { state: 'frozen' })
      return { session, playbackRate }
    })().catch((error: unknown) => {
      this.holds.delete(page)
      if (!page.isClosed()) throw error
      return undefined
    })
    this.holds.set(page, hold)
    await hold
  }

  private async freezeWorkers(context: BrowserContext): Promise<void> {
    if (this.workers.has(context)) return
    const page = context.pages().find((p) => this.holds.has(p))
    const session = page === undefined ? undefined : (await this.holds.get(page)?.catch(() => undefined))?.session
    const browser = context.browser()
    if (session === undefined || browser === null) return
    const hold = (async () => {
      const { targetInfo } = await session.send('Target.getTargetInfo')
      return targetInfo.browserContextId === undefined ? undefined : holdWorkers(browser, targetInfo.browserContextId)
    })()
    this.workers.set(context, hold)
    await hold
  }

  private async thawWorkers(context: BrowserContext): Promise<void> {
    const hold = this.workers.get(context)
    this.workers.delete(context)
    await (await hold?.catch(() => undefined))?.release()
  }

  private async thaw(page: Page): Promise<void> {
    const hold = this.holds.get(page)
    this.holds.delete(page)
    const held = await hold?.catch(() => undefined)
    if (held === undefined) return
    const { session, playbackRate } = held
    try {
      await session.send('Page.setWebLifecycleState', { state: 'active' })
      // Disable, not resume: it lets go of a paused page and cancels the pause an idle page has
      // pending (`Debugger.resume` refuses a page that is not paused yet).
      await session.send('Debugger.disable')
      await session.send('Animation.setPlaybackRate', { playbackRate })
    } catch (error) {
      if (!page.isClosed()) throw error
    } finally {
      // Detaching the session lets go of the page for good, paused or not.
      await session.detach().catch(() => undefined)
    }
  }
}
