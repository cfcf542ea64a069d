/**
 * The errands' browser: non-persistent, started on the first errand, one context per errand,
 * relaunched on next use after it died, never taking the main browser with it; and its warm spare
 * context. It runs as `chromium.launch()` over Playwright's pipe: no TCP port of it listens, not
 * even a launch server's (A1, A4; ADR 0016). Its pid is found in `/proc` by the TMPDIR only it
 * has; the DevTools proxy rides the same connection (cdpChannel.ts).
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { guardBrowserRequests } from './containment.ts'
import { bounded, closeWithin, within } from './failures.ts'
import { artifactsIn, launchTimeoutMs, NO_SIGNAL_HANDLERS, removeDir, type LaunchSettings } from './launchSettings.ts'
import { chromiumArgs } from './options.ts'
import { browserEnv } from './browserEnv.ts'
import { alive, browserPidOf, killAll, profileOf, untilGone } from './processes.ts'
import { freshTmpDir, noteDir } from './tmpDirs.ts'

/**
 * How long after an `openContext` the next warm spare is made (see `ErrandsBrowser.prepareSpareSoon`).
 *
 * @example
 * errands.prepareSpareSoon(SPARE_DELAY_MS)
 */
export const SPARE_DELAY_MS = 1_000

/** A context made ahead of time, with one blank page (its renderer is what costs). */
interface Spare {
  readonly generation: number
  context: BrowserContext | undefined
}

interface Running {
  readonly browser: Browser
  readonly pid: number | undefined
  readonly generation: number
  readonly tmpDir: string
  expectedClose: boolean
}

/**
 * The errands' browser: started lazily, relaunched after it died, never taking the main
 * browser with it.
 *
 * @example
 * const errands = new ErrandsBrowser(settings, (generation) => console.log('crashed', generation))
 */
export class ErrandsBrowser {
  private running: Running | undefined
  private starting: Promise<Running> | undefined
  private generations = 0
  private spare: Spare | undefined
  private spareTimer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly settings: LaunchSettings,
    private readonly onCrash: (generation: number) => void,
  ) {}

  /** The browser process id while it runs (tests SIGKILL it). @example errands.pid() */
  pid(): number | undefined {
    return this.running?.pid
  }

  /**
   * The running browser, launching it first when needed.
   *
   * @example
   * const { browser, generation } = await errands.ensure()
   */
  async ensure(): Promise<{ readonly browser: Browser; readonly generation: number }> {
    const running = this.running?.browser.isConnected() ? this.running : await (this.starting ??= this.launch())
    return { browser: running.browser, generation: running.generation }
  }

  /**
   * A fresh context for an errand. When a warm spare is ready (a context nobody used, with one
   * `about:blank` page whose renderer already runs) it is handed out instead of a new one: a
   * page's renderer is most of what opening a context costs.
   *
   * @example
   * const { context, generation } = await errands.newContext()
   */
  async newContext(): Promise<{ readonly context: BrowserContext; readonly generation: number }> {
    const { browser, generation } = await this.ensure()
    const spare = this.spare
    if (spare?.context && spare.generation === generation) {
      this.spare = undefined
      const pages = spare.context.pages()
      if (pages.length === 1 && !pages[0]!.isClosed()) return { context: spare.context, generation }
      void closeWithin(5_000, spare.context, this.settings.log, 'a warm spare whose page went')
    }
    return { context: await (this.settings.newContext?.(browser) ?? browser.newContext()), generation }
  }

  /** The warm spare's page, when one is ready (tests). @example errands.sparePage()?.isClosed() */
  sparePage(): Page | undefined {
    return this.spareReady() ? this.spare?.context?.pages()[0] : undefined
  }

  /** Whether a warm spare context is ready to be handed out. @example await until(() => errands.spareReady()) */
  spareReady(): boolean {
    return this.spare?.context !== undefined && this.spare.generation === this.running?.generation
  }

  /**
   * Makes the next spare context {@link SPARE_DELAY_MS} from now, off the critical path of the
   * errand that was just opened: a renderer started at once competes for the CPU with that
   * errand's first navigation, and on two shared cores that cost the opener more than the spare
   * saved the next one (docs/performance.md, "Where the open path's time goes"). A later call
   * before the timer fires changes nothing; `close` cancels it.
   *
   * @example
   * errands.prepareSpareSoon()
   */
  prepareSpareSoon(delayMs: number = SPARE_DELAY_MS): void {
    if (!this.settings.warmSpare || this.spareTimer !== undefined) return
    this.spareTimer = setTimeout(() => {
      this.spareTimer = undefined
      this.prepareSpare()
    }, delayMs)
    // A pending spare never keeps the process alive.
    this.spareTimer.unref()
  }

  /**
   * Makes the next spare context in the background (no-op when one exists or is being made, or
   * when the browser does not run or spares are switched off).
   *
   * @example
   * errands.prepareSpare()
   */
  prepareSpare(): void {
    const running = this.running
    if (!this.settings.warmSpare || !running || (this.spare && this.spare.generation === running.generation)) return
    const spare: Spare = { generation: running.generation, context: undefined }
    this.spare = spare
    let made: BrowserContext | undefined
    let gaveUp = false
    // Bounded: a page whose renderer is killed while it starts can leave `newPage` unanswered for
    // good, and the spare "being made" forever stood beside the cap with a page that never
    // committed (the clean-clone soak, after one renderer kill: 5 contexts under 3 + the spare).
    void bounded(
      this.settings.deadlineMs,
      'a warm spare',
      (async () => {
        const context = await (this.settings.newContext?.(running.browser) ?? running.browser.newContext())
        made = context
        // Made after the deadline: nobody waits for it any more.
        if (gaveUp) return void closeWithin(5_000, context, this.settings.log, 'a warm spare made too late')
        const page = await context.newPage()
        // A spare whose renderer dies is no spare: it goes, and the next open makes a context.
        // (Kept, it was handed out with a dead page, its open failed, and its close could hang: a
        // context with no pages outlived it until the browser did — the 60-minute soak saw 8
        // contexts under a cap of 6 + the spare.)
        // Once handed out the page is an errand's tab and its crash is the errand's (its last words
        // are read from this context before it closes).
        page.on('crash', () => {
          if (this.spare !== spare) return
          this.spare = undefined
          void closeWithin(5_000, context, this.settings.log, 'a warm spare whose renderer died')
        })
        if (this.spare === spare && this.running === running) spare.context = context
        else await context.close()
      })(),
    ).catch(() => {
      gaveUp = true
      if (this.spare === spare) this.spare = undefined
      // A context whose first page failed or never came (its renderer was killed while it
      // started) is closed here: nobody else holds it, and left open it stood beside the cap,
      // page-less, until the browser went (the soak saw 5 contexts under a cap of 3 + the spare).
      if (made !== undefined) void closeWithin(5_000, made, this.settings.log, 'a warm spare whose first page failed')
    })
  }

  private async launch(): Promise<Running> {
    const tmpDir = freshTmpDir(this.settings.owner)
    let browser: Browser | undefined
    try {
      const artifacts = artifactsIn(tmpDir)
      browser = await chromium.launch({
        executablePath: this.settings.executablePath,
        args: chromiumArgs(this.settings.extraArgs),
        headless: true,
        timeout: launchTimeoutMs(this.settings),
        env: browserEnv(process.env, tmpDir, this.settings.owner),
        ...NO_SIGNAL_HANDLERS,
        ...artifacts,
      })
      // No launch server and no debugging port (A1, A4): the pid is the one process with our
      // fresh TMPDIR that is not one of Chromium's helpers (`--type=…`).
      const pid = browserPidOf(tmpDir)
      // The profile Playwright made for this browser is ours too: the next engine removes it if we are killed.
      const userDataDir = profileOf(pid)
      if (userDataDir !== undefined) noteDir(tmpDir, userDataDir)
      const running: Running = { browser, pid, generation: ++this.generations, tmpDir, expectedClose: false }
      browser.on('disconnected', () => this.onDisconnected(running))
      // Enabled first, Chromium's Fetch hands it each request last: after the guard, before the wire.
      await this.settings.interceptFirst?.(browser)
      await guardBrowserRequests(browser, this.settings.policy, this.settings.log, 'errands')
      await this.settings.launched?.(browser, artifacts.artifactsDir)
      this.running = running
      this.settings.log(`errands browser started (pid ${running.pid}, generation ${running.generation})`)
      return running
    } catch (error) {
      const pid = browserPidOf(tmpDir)
      if (browser) await within(5_000, browser.close())
      if (pid !== undefined && alive(pid)) killAll([pid])
      removeDir(tmpDir)
      throw error
    } finally {
      this.starting = undefined
    }
  }

  private onDisconnected(running: Running): void {
    if (this.running === running) this.running = undefined
    if (this.spare?.generation === running.generation) this.spare = undefined
    if (running.expectedClose) return
    this.settings.log(
      `errands browser disconnected unexpectedly (pid ${running.pid}, generation ${running.generation})`,
    )
    // Whatever is left of the process tree goes, and so do the temp folders it made.
    if (running.pid !== undefined && alive(running.pid)) killAll([running.pid])
    untilGone(running.pid === undefined ? [] : [running.pid], 1_000)
    removeDir(running.tmpDir)
    this.onCrash(running.generation)
  }

  /**
   * Closes the browser (if it runs) and removes its temp folders. Idempotent.
   *
   * @example
   * await errands.close()
   */
  async close(): Promise<void> {
    clearTimeout(this.spareTimer)
    this.spareTimer = undefined
    const running = this.running ?? (this.starting ? await this.starting.catch(() => undefined) : undefined)
    this.running = undefined
    this.spare = undefined
    if (!running) return
    running.expectedClose = true
    await within(10_000, running.browser.close())
    if (running.pid !== undefined && alive(running.pid)) {
      killAll([running.pid])
      untilGone([running.pid], 5_000)
    }
    removeDir(running.tmpDir)
  }
}
