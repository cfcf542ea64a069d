/**
 * One browser view's side of a client's downloads (ADR 0051, clientDownloads.ts): the client's
 * download behaviour is remembered, never sent; the download events it asked for come on the
 * view's own channel through a behaviour of the browser's default context, which no errand uses;
 * a finished download reaches the client once its copy is in place.
 *
 * @example
 * const downloads = new ViewDownloads(view)
 * downloads.set(command, params) // Browser.setDownloadBehavior, answered here
 * if (downloads.onBrowserEvent(method, params)) return
 */
import type { Command, Params } from './connection.ts'
import type { BrowserView } from './view.ts'

/**
 * The download state of one view: the downloads of the errand it has seen begin, and whether the
 * client asked for their events.
 */
export class ViewDownloads {
  /** Downloads of the errand this view saw begin, by Chromium's guid. */
  private readonly seen = new Set<string>()
  /** Whether the client asked for Chromium's download events on this view (`eventsEnabled`). */
  private events = false
  /** This view's channel has Chromium's download events on. */
  private eventsOn: Promise<unknown> | undefined

  constructor(private readonly view: BrowserView) {}

  /**
   * A client's download behaviour (`params` naming the real context): remembered, never sent
   * (clientDownloads.ts). Its events come on this view's channel through a behaviour of the
   * browser's default context, which no errand uses: the errand's own is never touched.
   */
  set(command: Command, params: Params): void {
    const { view } = this
    view.connection.downloads.set(String(params.browserContextId), params)
    if (params.eventsEnabled !== true) {
      this.events = false
      return view.reply(command, {})
    }
    this.eventsOn ??= view.internal('Browser.setDownloadBehavior', { behavior: 'deny', eventsEnabled: true })
    this.eventsOn.then(
      () => {
        this.events = true
        view.reply(command, {})
      },
      (error: Error) => view.refuse(command, error.message),
    )
  }

  /** A browser-level download event: handled here (`true`), or not a download event (`false`). */
  onBrowserEvent(method: string, params: Params): boolean {
    const { view } = this
    const downloads = view.connection.downloads
    if (method === 'Browser.downloadWillBegin') {
      if (!view.ours(params.frameId)) return true
      const guid = String(params.guid)
      this.seen.add(guid)
      downloads.began(guid, view.targets.get(String(params.frameId))?.browserContextId)
      if (!downloads.emulated || this.events) view.emit(method, params)
      return true
    }
    if (method !== 'Browser.downloadProgress') return false
    if (!this.seen.has(String(params.guid))) return true
    if (!downloads.emulated) view.emit(method, params)
    else if (!this.events) return true
    // A finished download reaches the client once its copy is in place (clientDownloads.ts).
    else if (params.state !== 'completed') view.emit(method, params)
    else void downloads.finished(params).then((p) => view.emit(method, p))
    return true
  }

  /**
   * A page session's download event: its beginning is noted, a finished one is held until its copy
   * is in place (`true`: handled here); anything else goes on as it came (`false`).
   */
  onSessionEvent(sessionId: string, method: string, params: Params, raw: Params): boolean {
    const { view } = this
    const downloads = view.connection.downloads
    if (method === 'Page.downloadWillBegin' && typeof params.guid === 'string') {
      const target = view.targets.get(view.sessions.get(sessionId) ?? '')
      downloads.began(params.guid, target?.browserContextId)
    }
    if (method !== 'Page.downloadProgress' || params.state !== 'completed' || !downloads.emulated) return false
    void downloads.finished(params).then((p) => view.connection.sendToClient(JSON.stringify({ ...raw, params: p })))
    return true
  }
}
