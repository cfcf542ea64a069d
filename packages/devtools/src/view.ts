/**
 * One **browser view** of a client connection (A1, #22): a channel of its own into the errands'
 * browser (a browser session of the engine's connection, ADR 0016) and the rules that make the
 * errand look like a whole browser whose only context is the default one. A connection has a root
 * view (messages without a `sessionId`) and one more per `Target.attachToBrowserTarget` (messages
 * on the session id the client got): each is confined exactly like the root one — same allowlist,
 * same view of the errand's targets — because it *is* the same code on a channel of its own
 * (Playwright's `context.newCDPSession(page)` and `browser.newBrowserCDPSession()` open one).
 *
 * What a view does with a client's command (see proxy.ts for the connection around it):
 * - browser-level methods pass an allowlist (`BROWSER_METHODS`, browserMethods.ts, which the
 *   connection applies to the view): answered here, rewritten to the errand's context, or
 *   forwarded with their target checked;
 * - discovery and auto-attach are emulated over the view's own discovery of the errand's targets
 *   (a browser-level `waitForDebuggerOnStart` would pause every context's new targets);
 * - a message with a `sessionId` passes only on a session of this view, in the domains that act
 *   on the whole browser only the methods of `SESSION_METHODS`; navigations, URL rewrites and paths
 *   of this machine are decided first (sessionCommands.ts, which the connection applies to the view).
 *
 * @example
 * const view = await BrowserView.open(connection, undefined) // the root view
 * onBrowserCommand(view, { id: 1, method: 'Target.getTargets', params: {}, sessionId: undefined }) // the allowlist
 * (browserMethods.ts)
 */
import { decide, describeTarget } from '@errands/guard'
import type { CdpChannel, CdpMessage } from '@errands/runtime'
import type { Command, Params, ViewConnection } from './connection.ts'
import { DriveSuspension } from './drive.ts'
import { downloadParams } from './files.ts'
import { matchesFilter, type TargetInfo } from './targets.ts'
import { ViewDownloads } from './viewDownloads.ts'

/** What to do with an upstream answer. */
type Pending =
  | {
      readonly kind: 'client'
      readonly command: Command
      readonly after?: ((result: Params) => Params | Promise<Params>) | undefined
    }
  | { readonly kind: 'internal'; readonly resolve: (result: Params) => void; readonly reject: (error: Error) => void }

/**
 * A browser view of one connection: the root one, or one a client's `Target.attachToBrowserTarget` opened.
 *
 * @example
 * const view = await BrowserView.open(connection, 'A1B2…') // the client's browser session 'A1B2…'
 */
export class BrowserView {
  private seq = 0
  private readonly pending = new Map<number, Pending>()
  /** The errand's targets (and the browser target), by id. */
  readonly targets = new Map<string, TargetInfo>()
  /** Sessions the client may use through this view, with the target each is attached to. */
  readonly sessions = new Map<string, string>()
  /** Sessions the view attached for the client's auto-attach, by target. */
  private readonly autoAttached = new Map<string, Promise<void>>()
  /** The client's downloads on this view (viewDownloads.ts). */
  private readonly downloads = new ViewDownloads(this)
  discover: { readonly filter: unknown } | undefined
  autoAttach: { readonly filter: unknown } | undefined
  private open = true
  /** What the client set up on this view's sessions that a person's drive suspends (drive.ts). */
  readonly drive = new DriveSuspension((method, params, sessionId) => this.internal(method, params, sessionId))

  private constructor(
    /** The client connection this view is part of. */
    readonly connection: ViewConnection,
    private readonly upstream: CdpChannel,
    /** The client's session id of this view; undefined for the root view. */
    readonly clientSession: string | undefined,
  ) {
    upstream.onMessage((message) => this.fromUpstream(message))
    // Closed by us (the view's end, a detach) is not the browser going away.
    upstream.onClose(() => {
      if (this.open)
        connection.close({ code: 4004, reason: "The errand's browser went away; ask for the DevTools URL again." })
    })
  }

  /**
   * Opens the view's channel and learns the errand's targets.
   *
   * @example
   * const root = await BrowserView.open(connection, undefined)
   */
  static async open(connection: ViewConnection, clientSession: string | undefined): Promise<BrowserView> {
    let upstream: CdpChannel
    try {
      upstream = await connection.options.connect()
    } catch (error) {
      throw new Error(`cannot reach the errand's browser (${error instanceof Error ? error.message : String(error)})`)
    }
    const view = new BrowserView(connection, upstream, clientSession)
    try {
      // Chromium answers after it has sent targetCreated for every existing target.
      await view.internal('Target.setDiscoverTargets', { discover: true, filter: [{}] })
    } catch (error) {
      view.close()
      throw error
    }
    return view
  }

  /** The connection's options. */
  get options(): ViewConnection['options'] {
    return this.connection.options
  }

  /** Ends the view: its channel detaches every session of it. Idempotent. @example view.close() */
  close(): void {
    if (!this.open) return
    this.open = false
    for (const [, p] of this.pending) {
      if (p.kind === 'internal') {
        p.reject(new Error('the connection closed'))
        continue
      }
      // A detached browser session's commands get Chromium's answer; a closed connection sends nothing.
      this.connection.settled()
      this.connection.toClient({
        id: p.command.id,
        sessionId: p.command.sessionId,
        error: { code: -32001, message: 'Session with given id not found.' },
      })
    }
    this.pending.clear()
    this.upstream.close()
  }

  // ---- helpers the handlers use ----

  /** A target of the errand (never the browser target). */
  ours(targetId: unknown): boolean {
    const info = typeof targetId === 'string' ? this.targets.get(targetId) : undefined
    return info !== undefined && info.type !== 'browser'
  }

  /**
   * `params` with the errand's browser context id (or a helper's, when named), or undefined (refused) when it named
   * another.
   */
  inContext(command: Command): Params | undefined {
    const given = command.params.browserContextId
    const context = given === undefined ? this.options.browserContextId : this.connection.realContext(given)
    if (context === undefined) {
      this.refuse(command, "that browserContextId is not this errand's (nor a helper context this connection opened)")
      return undefined
    }
    return { ...command.params, browserContextId: context }
  }

  /** A window id of the errand's, from a `Browser.getWindowForTarget` answer. */
  rememberWindow(result: Params): Params {
    if (typeof result.windowId === 'number') this.connection.windows.add(result.windowId)
    return result
  }

  allowedUrl(command: Command, url: unknown): boolean {
    if (url === undefined || url === '' || url === 'about:blank') return true
    if (typeof url !== 'string') {
      this.refuse(command, 'url must be a string')
      return false
    }
    const decision = decide(url, this.options.policy)
    if (decision.allow) return true
    this.refuse(
      command,
      `the containment policy refuses ${describeTarget(url)} (rule ${decision.rule}: ${decision.detail})`,
    )
    return false
  }

  /** Download params with the errand's folder as the only download folder (`deny` when it has none). */
  downloadTo(params: Params): Params {
    return downloadParams(params, this.options.filesDir)
  }

  /** A client's download behaviour (`params` naming the real context): remembered, never sent (viewDownloads.ts). */
  setDownloads(command: Command, params: Params): void {
    this.downloads.set(command, params)
  }

  hide(info: TargetInfo): TargetInfo {
    return info.browserContextId === this.options.browserContextId
      ? { ...info, browserContextId: this.connection.alias }
      : info
  }

  hideResult(result: Params): Params {
    const info = result.targetInfo as TargetInfo | undefined
    return info && typeof info === 'object' ? { ...result, targetInfo: this.hide(info) } : result
  }

  /** A policy refusal: -32000 with the reason (logged once per connection and method). */
  refuse(command: Command, why: string): void {
    this.connection.refused(command, why, this.clientSession)
  }

  /**
   * As Chromium answers a method it does not know: -32601. `logged: false` when Chromium would
   * answer so too for a method it knows elsewhere (a page's domain at the browser level): an
   * answer, not a refusal of ours.
   */
  unknown(command: Command, logged = true): void {
    this.connection.refused(command, undefined, this.clientSession, logged)
  }

  /**
   * As Chromium answers a target id it does not have (-32602): another errand's targets do not
   * exist for this client, so that is no refusal of ours either.
   */
  noSuchTarget(command: Command): void {
    this.toClient({
      id: command.id,
      sessionId: command.sessionId,
      error: { code: -32602, message: 'No target with given id found' },
    })
  }

  reply(command: Command, result: Params): void {
    this.toClient({ id: command.id, sessionId: command.sessionId, result })
  }

  /** To the client; a message without a session is this view's (the root's, or the client's browser session). */
  private toClient(message: Params): void {
    if (message.sessionId === undefined) message.sessionId = this.clientSession
    this.connection.toClient(message)
  }

  // A client's message is always sent on re-serialised from what was checked, never as it came: a
  // message with a key twice (`"sessionId"` of its own, then another's) or a key spelt with
  // escapes could be read one way here and another way by Chromium's parser.
  private toUpstream(method: string, params: Params, sessionId: string | undefined, pending: Pending): void {
    if (!this.open) return
    const id = ++this.seq
    if (pending.kind === 'client') this.connection.began()
    this.pending.set(id, pending)
    this.upstream.send(sessionId === undefined ? { id, method, params } : { id, method, params, sessionId })
  }

  /** Sends the client's command on: on its page session, or at this view's browser level. */
  forward(command: Command, params: Params, after?: (result: Params) => Params | Promise<Params>): void {
    const upstreamSession = command.sessionId === this.clientSession ? undefined : command.sessionId
    this.toUpstream(command.method, params, upstreamSession, { kind: 'client', command, after })
  }

  /** Sends the client's command at this view's browser level, whichever of its sessions it came on. */
  forwardToBrowser(command: Command, params: Params): void {
    this.toUpstream(command.method, params, undefined, { kind: 'client', command })
  }

  internal(method: string, params: Params, sessionId?: string): Promise<Params> {
    return new Promise((resolve, reject) =>
      this.toUpstream(method, params, sessionId, { kind: 'internal', resolve, reject }),
    )
  }

  /** Attaches (flatten) to an errand target for the client's auto-attach; the event reaches the client. */
  private attachFor(targetId: string): Promise<void> {
    let attaching = this.autoAttached.get(targetId)
    if (attaching === undefined) {
      attaching = this.internal('Target.attachToTarget', { targetId, flatten: true }).then(
        () => undefined,
        () => undefined,
      )
      this.autoAttached.set(targetId, attaching)
    }
    return attaching
  }

  /** Attaches to every errand target the client's auto-attach filter wants and nobody attached yet. */
  attachMatching(): Promise<void> {
    const auto = this.autoAttach
    if (auto === undefined) return Promise.resolve()
    const wanted = [...this.targets.values()].filter((t) => t.type !== 'browser' && matchesFilter(t.type, auto.filter))
    return Promise.all(wanted.map((t) => this.attachFor(t.targetId))).then(() => undefined)
  }

  // ---- from the browser ----

  private fromUpstream(message: CdpMessage): void {
    if (typeof message.id === 'number') return this.onAnswer(message)
    if (typeof message.method !== 'string') return
    const params = (message.params ?? {}) as Params
    if (typeof message.sessionId === 'string')
      return this.onSessionEvent(message.sessionId, message.method, params, message)
    this.onBrowserEvent(message.method, params)
  }

  private onAnswer(message: CdpMessage): void {
    const pending = this.pending.get(message.id as number)
    if (pending === undefined) return
    this.pending.delete(message.id as number)
    if (pending.kind === 'internal') {
      if (message.error !== undefined)
        pending.reject(new Error(String((message.error as { message?: unknown }).message ?? 'CDP error')))
      else pending.resolve((message.result ?? {}) as Params)
      return
    }
    this.connection.settled()
    const { command, after } = pending
    if (message.error !== undefined || after === undefined) {
      return this.toClient({
        id: command.id,
        sessionId: command.sessionId,
        ...(message.error !== undefined ? { error: message.error } : { result: message.result ?? {} }),
      })
    }
    const result = after((message.result ?? {}) as Params)
    // In order: an answer that needs no waiting goes out before the events that follow it.
    if (!(result instanceof Promise)) return this.reply(command, result)
    void result.then(
      (r) => this.reply(command, r),
      (error: unknown) => this.refuse(command, error instanceof Error ? error.message : String(error)),
    )
  }

  private onBrowserEvent(method: string, params: Params): void {
    if (this.downloads.onBrowserEvent(method, params)) return
    switch (method) {
      case 'Target.targetCreated':
      case 'Target.targetInfoChanged': {
        const info = params.targetInfo as TargetInfo | undefined
        if (!info || (info.type !== 'browser' && !this.connection.owns(info.browserContextId))) return
        const known = this.targets.has(info.targetId)
        this.targets.set(info.targetId, info)
        if (this.discover && matchesFilter(info.type, this.discover.filter))
          this.emit(method, { targetInfo: this.hide(info) })
        if (!known && this.autoAttach && info.type !== 'browser' && matchesFilter(info.type, this.autoAttach.filter))
          void this.attachFor(info.targetId)
        return
      }
      case 'Target.targetDestroyed':
      case 'Target.targetCrashed': {
        const targetId = String(params.targetId)
        const info = this.targets.get(targetId)
        if (info === undefined) return
        if (method === 'Target.targetDestroyed') {
          this.targets.delete(targetId)
          this.autoAttached.delete(targetId)
        }
        if (this.discover && matchesFilter(info.type, this.discover.filter)) this.emit(method, params)
        return
      }
      case 'Target.attachedToTarget':
        return this.onAttached(undefined, params)
      case 'Target.detachedFromTarget':
        return this.onDetached(undefined, params)
      default:
        // Nothing else at the browser level is the errand's alone.
        return
    }
  }

  private onSessionEvent(sessionId: string, method: string, params: Params, raw: CdpMessage): void {
    if (!this.sessions.has(sessionId)) return
    if (method === 'Target.attachedToTarget') return this.onAttached(sessionId, params)
    if (method === 'Target.detachedFromTarget') return this.onDetached(sessionId, params)
    if (method === 'Target.targetCreated' || method === 'Target.targetInfoChanged') {
      const info = params.targetInfo as TargetInfo | undefined
      return this.emit(method, info ? { ...params, targetInfo: this.hide(info) } : params, sessionId)
    }
    if (this.downloads.onSessionEvent(sessionId, method, params, raw as Params)) return
    // While a person drives, what the client's interception or debugger would stop is answered here (drive.ts).
    if (this.drive.event(sessionId, method, params, this.connection.personDriving)) return
    // The target's own event (most traffic: network, DOM, screencast frames) goes on as it came.
    this.connection.sendToClient(JSON.stringify(raw))
  }

  private onAttached(parent: string | undefined, params: Params): void {
    const info = params.targetInfo as TargetInfo | undefined
    const sessionId = params.sessionId
    if (!info || typeof sessionId !== 'string') return
    // A child of one of the client's sessions is the errand's; at the browser level only the
    // errand's own targets are ever attached on this channel, and that is checked again.
    if (info.browserContextId !== undefined && !this.connection.owns(info.browserContextId)) return
    if (parent === undefined && !this.ours(info.targetId)) return
    this.sessions.set(sessionId, info.targetId)
    this.emit('Target.attachedToTarget', { ...params, targetInfo: this.hide(info) }, parent)
  }

  private onDetached(parent: string | undefined, params: Params): void {
    const sessionId = params.sessionId
    if (typeof sessionId !== 'string' || !this.sessions.has(sessionId)) return
    this.sessions.delete(sessionId)
    this.drive.forget(sessionId)
    this.emit('Target.detachedFromTarget', params, parent)
  }

  emit(method: string, params: Params, sessionId?: string): void {
    this.toClient({ method, params, sessionId })
  }
}
