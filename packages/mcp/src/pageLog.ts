/**
 * What MCP keeps per page beside the runtime's own log (console and requests: the runtime keeps
 * those once, for every face, and the tools read them through the page, `pageLogOf` of
 * `@errands/runtime`): the modal the page waits on, for the `### Modal state` section, and the
 * downloads not shown yet, for `### Events` (Playwright MCP keeps the same per tab). It starts
 * when a tool first sees the page (the Page the tool gets from `ErrandBrowser.onPage`); this
 * package never reaches the browser another way. Pages are keys of a WeakMap, so a closed or
 * healed page's log goes with it.
 *
 * @example
 * const logs = new PageLogs()
 * const log = logs.watch(page)
 * if (log.modal?.kind === 'dialog') …
 */
import type { Dialog, Download, FileChooser, Page } from 'playwright-core'

/** The modal a page waits on: a JavaScript dialog or a file chooser. @example if (log.modal?.kind === 'dialog') … */
export type Modal =
  | { readonly kind: 'dialog'; readonly type: string; readonly message: string; readonly dialog: Dialog }
  | { readonly kind: 'filechooser'; readonly chooser: FileChooser }

/** What MCP keeps of one page. @example log.modal */
export class PageLog {
  modal: Modal | undefined = undefined
  /**
   * Lines of the `### Events` section not shown yet (Playwright MCP's `- Downloading file …` and
   * `- Downloaded file …`): the next answer with the page's sections shows and clears them.
   */
  readonly events: Array<string> = []
  /** Told when one of the page's downloads has landed (an MCP session's resource list changed). */
  readonly landed = new Set<() => void>()
  private readonly downloading = new Set<Promise<unknown>>()
  private readonly waiters = new Set<() => void>()

  constructor(page: Page) {
    page.on('framenavigated', (f) => {
      // A chooser of the document that is gone can no longer be answered.
      if (f === page.mainFrame() && this.modal?.kind === 'filechooser') this.modal = undefined
    })
    // The engine saves the download into the errand's files folder (the runtime's downloads);
    // this only says that it started and how it ended, under its suggested name.
    page.on('download', (download) => this.download(download))
    // Listening for dialogs does not answer them: the engine holds a page's dialog for the agent
    // (ErrandBrowser.dialog answers it); this only knows that one waits.
    page.on('dialog', (dialog) => this.open({ kind: 'dialog', type: dialog.type(), message: dialog.message(), dialog }))
    // A listener makes Playwright intercept the chooser instead of opening the system's.
    page.on('filechooser', (chooser) => this.open({ kind: 'filechooser', chooser }))
  }

  private download(download: Download): void {
    const name = JSON.stringify(download.suggestedFilename().slice(0, 200))
    this.events.push(`- Downloading file ${name} ...`)
    const ended = download.failure().then(
      (failed) => {
        this.events.push(
          failed === null
            ? `- Downloaded file ${name} into this errand's files folder (browser_downloads lists its name there)`
            : `- Download of ${name} failed`,
        )
        if (failed === null) for (const f of this.landed) f()
      },
      () => undefined,
    )
    this.downloading.add(ended)
    void ended.finally(() => this.downloading.delete(ended))
  }

  /**
   * Waits (at most `ms`) for the downloads in flight to end, as Playwright MCP does before it
   * answers, so the answer can say where a quick one landed.
   *
   * @example
   * await log.downloadsEnded(5_000)
   */
  async downloadsEnded(ms: number): Promise<void> {
    if (this.downloading.size === 0) return
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([Promise.all(this.downloading), new Promise((resolve) => (timer = setTimeout(resolve, ms)))])
    clearTimeout(timer)
  }

  /** The `### Events` lines not shown yet, taken (each is shown once). @example log.takeEvents() */
  takeEvents(): ReadonlyArray<string> {
    return this.events.splice(0)
  }

  private open(modal: Modal): void {
    this.modal = modal
    for (const w of this.waiters) w()
    this.waiters.clear()
  }

  /**
   * Runs `action`; answers when it ends or when it opens a modal (a click that opens a
   * `confirm()` does not end until the dialog is answered — Playwright MCP answers with the modal
   * state then, and so does this).
   *
   * @example
   * await log.until(() => target.click())
   */
  async until(action: () => Promise<unknown>): Promise<void> {
    let wake: () => void = () => undefined
    const opened = new Promise<void>((resolve) => {
      wake = resolve
      this.waiters.add(resolve)
    })
    const running = action()
    running.catch(() => undefined)
    try {
      await Promise.race([running, opened])
    } finally {
      this.waiters.delete(wake)
    }
  }
}

/**
 * The logs of every page the tools have seen (one per engine, like the {@link RefBook}).
 *
 * @example
 * const log = new PageLogs().watch(page)
 */
export class PageLogs {
  private readonly logs = new WeakMap<Page, PageLog>()
  /** Every log made, weakly (a closed page's goes with it): to forget a session's listener. */
  private readonly made = new Set<WeakRef<PageLog>>()

  /** A session ended: its download listener is told nothing more. @example logs.forget(landed) */
  forget(listener: () => void): void {
    for (const ref of this.made) {
      const log = ref.deref()
      if (log === undefined) this.made.delete(ref)
      else log.landed.delete(listener)
    }
  }

  /** The page's log, started now if this is the first time a tool sees the page. @example logs.watch(page).console */
  watch(page: Page): PageLog {
    let log = this.logs.get(page)
    if (log === undefined) {
      log = new PageLog(page)
      this.logs.set(page, log)
      this.made.add(new WeakRef(log))
    }
    return log
  }
}
