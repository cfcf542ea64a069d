/**
 * What each page of an errand said and fetched, and the modal it waits on, kept by the MCP layer
 * for `browser_console_messages`, `browser_network_requests` and the `### Modal state` section
 * (Playwright MCP keeps the same per tab). The log starts when a tool first sees the page (the
 * Page the tool gets from `ErrandBrowser.onPage`); this package never reaches the browser
 * another way. Pages are keys of a WeakMap, so a closed or healed page's log goes with it.
 *
 * @example
 * const logs = new PageLogs()
 * const log = logs.watch(page)
 * log.console.filter((m) => m.level === 'error')
 */
import type { ConsoleMessage, Dialog, Download, FileChooser, Page, Request } from 'playwright-core'

/** A console level as Playwright MCP names it (each includes the more severe). @example 'warning' */
export type ConsoleLevel = 'error' | 'warning' | 'info' | 'debug'

/** The order of the levels, most severe first. @example LEVELS.indexOf('info') // 2 */
export const LEVELS: ReadonlyArray<ConsoleLevel> = ['error', 'warning', 'info', 'debug']

/** One console message or uncaught page error. @example { level: 'info', type: 'log', text: 'hi', at: 'http://a/:3', nav: 1 } */
export interface ConsoleEntry {
  readonly level: ConsoleLevel
  /** Playwright's type (`log`, `warning`, `error` …) or `pageerror`. */
  readonly type: string
  readonly text: string
  readonly at: string
  /** The main-frame navigation it belongs to (entries of earlier ones are "before the last navigation"). */
  readonly nav: number
}

/** One request, and its response once there is one. @example r.response?.status */
export interface RequestEntry {
  readonly request: Request
  readonly nav: number
  response?: { readonly status: number; readonly statusText: string } | undefined
  failure?: string | undefined
}

/** The modal a page waits on: a JavaScript dialog or a file chooser. @example if (log.modal?.kind === 'dialog') … */
export type Modal =
  | { readonly kind: 'dialog'; readonly type: string; readonly message: string; readonly dialog: Dialog }
  | { readonly kind: 'filechooser'; readonly chooser: FileChooser }

const levelOf = (type: string): ConsoleLevel =>
  type === 'error' || type === 'assert' ? 'error' : type === 'warning' ? 'warning' : type === 'debug' || type === 'trace' ? 'debug' : 'info'

/** The log of one page. @example log.requests.length */
export class PageLog {
  readonly console: Array<ConsoleEntry> = []
  readonly requests: Array<RequestEntry> = []
  modal: Modal | undefined = undefined
  nav = 0
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
    page.on('console', (m: ConsoleMessage) => {
      const l = m.location()
      this.console.push({ level: levelOf(m.type()), type: m.type(), text: m.text(), at: l.url === '' ? '' : `${l.url}:${l.lineNumber}`, nav: this.nav })
    })
    page.on('pageerror', (e) => this.console.push({ level: 'error', type: 'pageerror', text: e.message, at: '', nav: this.nav }))
    page.on('framenavigated', (f) => {
      if (f !== page.mainFrame()) return
      this.nav++
      // A chooser of the document that is gone can no longer be answered.
      if (this.modal?.kind === 'filechooser') this.modal = undefined
    })
    // A main-frame navigation's own request comes before the document commits: it belongs to the
    // navigation it starts (Playwright MCP lists the document with the page it loaded).
    page.on('request', (request) => {
      const starts = request.isNavigationRequest() && request.frame() === page.mainFrame()
      this.requests.push({ request, nav: starts ? this.nav + 1 : this.nav })
    })
    page.on('response', (r) => {
      const e = this.requests.findLast((x) => x.request === r.request())
      if (e !== undefined) e.response = { status: r.status(), statusText: r.statusText() }
    })
    page.on('requestfailed', (r) => {
      const e = this.requests.findLast((x) => x.request === r)
      if (e !== undefined) e.failure = r.failure()?.errorText ?? 'failed'
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
        this.events.push(failed === null ? `- Downloaded file ${name} into this errand's files folder (browser_downloads lists its name there)` : `- Download of ${name} failed`)
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
    let wake = () => undefined as void
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
