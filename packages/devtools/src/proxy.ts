/**
 * One client's CDP connection into one errand (A1): the client's WebSocket on one side, a
 * channel of its own into the errands' browser on the other — a browser session of the engine's
 * own pipe connection, never a TCP port of Chromium (A4, ADR 0016) — and between them the rules
 * that make the errand look like a whole browser whose only context is the default one.
 *
 * - **Browser-level methods pass an allowlist** (`BROWSER_METHODS`, browserMethods.ts):
 *   each is answered here, rewritten to the errand's browser context, or forwarded with its
 *   target checked; anything else is refused with a CDP error that says why.
 * - **Targets**: the proxy discovers the browser's targets itself and keeps only the errand's.
 *   `Target.getTargets`, discovery events and attach events name nothing else, and the errand's
 *   browser context id is shown as an alias of this connection (Playwright and Puppeteer put
 *   targets of a context they do not know into their default context; Playwright drops a target
 *   with no context id at all).
 * - **Auto-attach is emulated, never forwarded at the browser level**: a browser-level
 *   `Target.setAutoAttach({ waitForDebuggerOnStart: true })` would pause new targets of every
 *   context until this client resumes them — other errands would hang. The proxy attaches to the
 *   errand's matching targets itself (flatten) and the client sees `Target.attachedToTarget`.
 *   New targets are never paused for the client: the engine's own connection already holds them
 *   until its guard and scripts are in (so the guard sees everything a client's tab loads, G1).
 * - **Sessions**: a message with a `sessionId` passes only when that session is the client's and
 *   belongs to the errand (attached by it, for it, or a child of one of those); on a session,
 *   methods of the browser-wide domains pass a small list (`SESSION_METHODS`).
 * - **Navigations** the client asks for (`Target.createTarget`, `Page.navigate`) are decided by
 *   the guard first, which also covers `file:` and `chrome:` URLs that never reach the network.
 * - `Browser.close` answers and ends this connection only.
 *
 * @example
 * const proxy = await ErrandProxy.connect({ connect: target.connect, browserContextId, policy, log, name: 'session:k1' })
 * proxy.attach(clientSocket)
 */
import { randomBytes } from 'node:crypto'
import { decide, describeTarget, type GuardPolicy } from '@errands/guard'
import type { CdpChannel, CdpMessage } from '@errands/runtime'
import WebSocket from 'ws'
import { BROWSER_METHODS } from './browserMethods.ts'
import { downloadParams, refusedUpload } from './files.ts'
import { CONTEXT_METHODS, matchesFilter, refusedOnSession, URL_METHODS, type TargetInfo } from './targets.ts'

/** A CDP message, either way. */
interface Message {
  readonly id?: unknown
  readonly method?: unknown
  readonly params?: unknown
  readonly sessionId?: unknown
  readonly result?: unknown
  readonly error?: unknown
}

/** A command's params or an answer's result. @example const p: Params = { targetId: 'T1' } */
export type Params = Record<string, unknown>

/** A client command being handled: its id, the session it came on, its params. @example const c: Command = { id: 1, method: 'Browser.getVersion', params: {}, sessionId: undefined } */
export interface Command {
  readonly id: number
  readonly method: string
  readonly params: Params
  readonly sessionId: string | undefined
}

/** What to do with an upstream answer. */
type Pending =
  | { readonly kind: 'client'; readonly command: Command; readonly after?: ((result: Params) => Params | Promise<Params>) | undefined }
  | { readonly kind: 'internal'; readonly resolve: (result: Params) => void; readonly reject: (error: Error) => void }

/** How a proxy is set up. @example await ErrandProxy.connect({ connect: target.connect, browserContextId, policy, log, name: 'session:k1' }) */
export interface ProxyOptions {
  /** Opens the proxy's own channel into the errands' browser (never shown to the client). */
  readonly connect: () => Promise<CdpChannel>
  /** The errand's browser context id in that browser. */
  readonly browserContextId: string
  readonly policy: GuardPolicy
  readonly log: (line: string) => void
  /** How log lines name the errand (its conversation id; never a token or URL). */
  readonly name: string
  /** Deadline of the connection to the browser. */
  readonly deadlineMs?: number | undefined
  /** The errand's own files folder: the only place a client may name files (#27); none: no paths at all. */
  readonly filesDir?: string | undefined
  /** Commands of this client waiting for the browser at once; more are refused (#27, default {@link MAX_IN_FLIGHT}). */
  readonly maxInFlight?: number | undefined
}

/** Why a connection ended, as the client's close frame says it. @example proxy.close({ code: 4001, reason: 'parked' }) */
export interface CloseReason {
  readonly code: number
  readonly reason: string
}

const REFUSED = -32000

/**
 * Commands one client may have waiting for the browser at once (#27): every client shares the
 * engine's one connection to its Chromium, so a flood past this is refused command by command
 * instead of queueing in front of other errands.
 *
 * @example
 * ErrandProxy.connect({ ...options, maxInFlight: MAX_IN_FLIGHT })
 */
export const MAX_IN_FLIGHT = 256

/** Bytes queued towards a client that does not read before it is closed (#27). */
const MAX_BUFFERED = 64 * 1024 * 1024


/**
 * The proxy of one client connection.
 *
 * @example
 * const proxy = await ErrandProxy.connect(options)
 * proxy.attach(ws)
 * proxy.onClose((why) => console.log(why.reason))
 */
export class ErrandProxy {
  private client: WebSocket | undefined
  private seq = 0
  private readonly pending = new Map<number, Pending>()
  /** The errand's targets (and the browser target), by id. */
  /** @internal */ readonly targets = new Map<string, TargetInfo>()
  /** Sessions the client may use, with the target each is attached to. */
  /** @internal */ readonly sessions = new Map<string, string>()
  /** Browser-level sessions the proxy attached for the client's auto-attach, by target. */
  private readonly autoAttached = new Map<string, Promise<void>>()
  private readonly downloads = new Set<string>()
  /** @internal */ readonly windows = new Set<number>()
  /** @internal */ discover: { readonly filter: unknown } | undefined
  /** @internal */ autoAttach: { readonly filter: unknown } | undefined
  private state: 'open' | 'closing' | 'closed' = 'open'
  private readonly closeListeners: Array<(why: CloseReason) => void> = []
  /** The errand's browser context id as this client sees it. */
  private readonly alias = randomBytes(16).toString('hex').toUpperCase()
  /** When the client last sent anything (the idle limit reads it). */
  lastActivity = Date.now()
  /** The client's commands waiting for the browser (the in-flight limit reads it). */
  private inFlight = 0

  private constructor(private readonly upstream: CdpChannel, /** @internal */ readonly options: ProxyOptions) {
    upstream.onMessage((message) => this.fromUpstream(message))
    upstream.onClose(() => this.close({ code: 4004, reason: "The errand's browser went away; ask for the DevTools URL again." }))
  }

  /**
   * Connects to the browser and learns the errand's targets; the client is attached after.
   *
   * @example
   * const proxy = await ErrandProxy.connect({ connect: target.connect, browserContextId, policy, log, name })
   */
  static async connect(options: ProxyOptions): Promise<ErrandProxy> {
    let upstream: CdpChannel
    try {
      upstream = await options.connect()
    } catch (error) {
      throw new Error(`cannot reach the errand's browser (${error instanceof Error ? error.message : String(error)})`)
    }
    const proxy = new ErrandProxy(upstream, options)
    try {
      // Chromium answers after it has sent targetCreated for every existing target.
      await proxy.internal('Target.setDiscoverTargets', { discover: true, filter: [{}] })
    } catch (error) {
      upstream.close()
      throw error
    }
    return proxy
  }

  /**
   * Starts serving `client`. Closing it ends the proxy (and its browser connection).
   *
   * @example
   * wss.handleUpgrade(req, socket, head, (ws) => proxy.attach(ws))
   */
  attach(client: WebSocket): void {
    this.client = client
    client.on('message', (data) => {
      this.lastActivity = Date.now()
      this.fromClient(data)
    })
    client.on('close', () => this.close({ code: 1000, reason: 'client closed' }))
    client.on('error', () => undefined)
    if (this.state !== 'open') client.close(1011, 'closed before start')
  }

  /** Called once when the connection ends, with why. @example proxy.onClose((why) => undrive()) */
  onClose(listener: (why: CloseReason) => void): void {
    this.closeListeners.push(listener)
  }

  /** Whether the connection is still up. @example if (proxy.open) … */
  get open(): boolean {
    return this.state === 'open'
  }

  /**
   * Ends the connection, telling the client why (park, release, idle, the browser went away).
   * Idempotent: the first reason is the one the client gets.
   *
   * @example
   * proxy.close({ code: 4001, reason: 'The errand was parked …' })
   */
  close(why: CloseReason): void {
    if (this.state !== 'open') return
    this.state = 'closing'
    for (const [, p] of this.pending) if (p.kind === 'internal') p.reject(new Error(why.reason))
    this.pending.clear()
    if (this.client && this.client.readyState === WebSocket.OPEN) this.client.close(why.code, why.reason.slice(0, 120))
    else this.client?.terminate()
    // Detaches every session of ours: nothing the client set up outlives it.
    this.upstream.close()
    this.state = 'closed'
    for (const listener of this.closeListeners.splice(0)) listener(why)
  }

  // ---- from the client ----

  private fromClient(data: WebSocket.RawData): void {
    let message: Message
    try {
      message = JSON.parse(data.toString()) as Message
    } catch {
      return this.toClient({ error: { code: -32700, message: 'Message must be JSON.' } })
    }
    if (typeof message !== 'object' || message === null) return this.toClient({ error: { code: -32600, message: 'Message must be an object.' } })
    const sessionId = typeof message.sessionId === 'string' ? message.sessionId : undefined
    if (!Number.isSafeInteger(message.id) || typeof message.method !== 'string') {
      return this.toClient({ id: message.id, sessionId, error: { code: -32600, message: 'Message must have an integer id and a method.' } })
    }
    if (message.params !== undefined && (typeof message.params !== 'object' || message.params === null || Array.isArray(message.params))) {
      return this.toClient({ id: message.id, sessionId, error: { code: -32602, message: 'params must be an object.' } })
    }
    const command: Command = { id: message.id as number, method: message.method, params: (message.params ?? {}) as Params, sessionId }
    const limit = this.options.maxInFlight ?? MAX_IN_FLIGHT
    if (this.inFlight >= limit) {
      return this.refuse(command, `more than ${limit} commands of this connection are waiting for the browser (the in-flight limit); wait for answers first`)
    }
    if (message.sessionId !== undefined) return this.onSession(command)
    const handler = Object.hasOwn(BROWSER_METHODS, command.method) ? BROWSER_METHODS[command.method] : undefined
    if (handler === undefined) {
      return this.refuse(command, `${command.method} is not on the allowlist of browser-level methods of an errand's DevTools endpoint`)
    }
    handler(this, command)
  }

  private onSession(command: Command): void {
    const sessionId = command.sessionId
    if (sessionId === undefined || !this.sessions.has(sessionId)) {
      // As Chromium answers an unknown session: on the connection, without the id.
      return this.refuse({ ...command, sessionId: undefined }, 'no session with this id belongs to this errand')
    }
    const refusal = refusedOnSession(command.method)
    if (refusal !== undefined) return this.refuse(command, refusal)
    if (command.params['browserContextId'] !== undefined && !this.isErrandContext(command.params['browserContextId'])) {
      return this.refuse(command, 'that browserContextId is not this errand\'s')
    }
    // #27: on a page session Chromium takes no browserContextId here and acts on its default
    // context, which no errand owns: sent at the browser level, with the errand's own id.
    if (CONTEXT_METHODS.has(command.method)) {
      return this.toUpstream(command.method, { ...command.params, browserContextId: this.options.browserContextId }, undefined, { kind: 'client', command })
    }
    const p = command.params
    if (URL_METHODS.has(command.method) && !this.allowedUrl(command, p['url'])) return
    // Paths of this machine: uploads (`DOM.setFileInputFiles`, `Page.handleFileChooser`), dropped
    // files (`Input.dispatchDragEvent`), download folders (`Page.setDownloadBehavior`).
    const data = p['data'] as { files?: unknown } | undefined
    if (!this.allowedFiles(command, p['files']) || !this.allowedFiles(command, typeof data === 'object' && data !== null ? data.files : undefined)) return
    if (command.method === 'Page.setDownloadBehavior') return this.forward(command, this.downloadTo(p))
    if (command.method === 'Target.detachFromTarget' && p['sessionId'] !== undefined && !this.sessions.has(String(p['sessionId']))) {
      return this.refuse(command, 'no session with this id belongs to this errand')
    }
    if ((command.method === 'Target.getTargetInfo' || command.method === 'Target.activateTarget') && p['targetId'] !== undefined && !this.ours(p['targetId'])) {
      return this.refuse(command, 'no target with this id belongs to this errand')
    }
    this.forward(command, p, (r) => this.hideResult(r))
  }

  // ---- helpers the handlers use ----

  /** A target of the errand (never the browser target). */
  /** @internal */ ours(targetId: unknown): boolean {
    const info = typeof targetId === 'string' ? this.targets.get(targetId) : undefined
    return info !== undefined && info.type !== 'browser'
  }

  private isErrandContext(id: unknown): boolean {
    return id === this.alias || id === this.options.browserContextId
  }

  /** `params` with the errand's browser context id, or undefined (refused) when it named another. */
  /** @internal */ inContext(command: Command): Params | undefined {
    const given = command.params['browserContextId']
    if (given !== undefined && !this.isErrandContext(given)) {
      this.refuse(command, 'that browserContextId is not this errand\'s: an errand\'s endpoint has one context, the default one')
      return undefined
    }
    return { ...command.params, browserContextId: this.options.browserContextId }
  }

  /** @internal */ allowedUrl(command: Command, url: unknown): boolean {
    if (url === undefined || url === '' || url === 'about:blank') return true
    if (typeof url !== 'string') {
      this.refuse(command, 'url must be a string')
      return false
    }
    const decision = decide(url, this.options.policy)
    if (decision.allow) return true
    this.options.log(`devtools: ${command.method} to ${describeTarget(url)} refused for ${this.options.name} (rule ${decision.rule})`)
    this.refuse(command, `the containment policy refuses ${describeTarget(url)} (rule ${decision.rule}: ${decision.detail})`)
    return false
  }

  /** @internal */ allowedFiles(command: Command, paths: unknown): boolean {
    if (paths === undefined) return true
    const why = refusedUpload(paths, this.options.filesDir)
    if (why !== undefined) this.refuse(command, why)
    return why === undefined
  }

  /** Download params with the errand's folder as the only download folder (`deny` when it has none). */
  /** @internal */ downloadTo(params: Params): Params {
    return downloadParams(params, this.options.filesDir)
  }

  /** @internal */ hide(info: TargetInfo): TargetInfo {
    return info.browserContextId === this.options.browserContextId ? { ...info, browserContextId: this.alias } : info
  }

  /** @internal */ hideResult(result: Params): Params {
    const info = result['targetInfo'] as TargetInfo | undefined
    return info && typeof info === 'object' ? { ...result, targetInfo: this.hide(info) } : result
  }

  /** @internal */ refuse(command: Command, why: string): void {
    this.toClient({ id: command.id, sessionId: command.sessionId, error: { code: REFUSED, message: `Refused by the errand's DevTools endpoint: ${why}.` } })
  }

  /** @internal */ reply(command: Command, result: Params): void {
    this.toClient({ id: command.id, sessionId: command.sessionId, result })
  }

  private toClient(message: Params): void {
    if (message['sessionId'] === undefined) delete message['sessionId']
    this.sendToClient(JSON.stringify(message))
  }

  private sendToClient(text: string): void {
    if (this.state !== 'open' || this.client?.readyState !== WebSocket.OPEN) return
    // A client that does not read would make the host hold everything for it (#27).
    if (this.client.bufferedAmount > MAX_BUFFERED) {
      return this.close({ code: 1008, reason: `The client did not read: over ${MAX_BUFFERED / 1024 / 1024} MiB waited for it (the send-buffer limit).` })
    }
    this.client.send(text)
  }

  // A client's message is always sent on re-serialised from what was checked, never as it came: a
  // message with a key twice (`"sessionId"` of its own, then another's) or a key spelt with
  // escapes could be read one way here and another way by Chromium's parser.
  private toUpstream(method: string, params: Params, sessionId: string | undefined, pending: Pending): void {
    if (this.state !== 'open') return
    const id = ++this.seq
    if (pending.kind === 'client') this.inFlight++
    this.pending.set(id, pending)
    this.upstream.send(sessionId === undefined ? { id, method, params } : { id, method, params, sessionId })
  }

  /** @internal */ forward(command: Command, params: Params, after?: (result: Params) => Params | Promise<Params>): void {
    this.toUpstream(command.method, params, command.sessionId, { kind: 'client', command, after })
  }

  /** @internal */ internal(method: string, params: Params, sessionId?: string): Promise<Params> {
    return new Promise((resolve, reject) => this.toUpstream(method, params, sessionId, { kind: 'internal', resolve, reject }))
  }

  /** Attaches (flatten) to an errand target for the client's auto-attach; the event reaches the client. */
  private attachFor(targetId: string): Promise<void> {
    let attaching = this.autoAttached.get(targetId)
    if (attaching === undefined) {
      attaching = this.internal('Target.attachToTarget', { targetId, flatten: true }).then(() => undefined, () => undefined)
      this.autoAttached.set(targetId, attaching)
    }
    return attaching
  }

  /** Attaches to every errand target the client's auto-attach filter wants and nobody attached yet. */
  /** @internal */ attachMatching(): Promise<void> {
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
    if (typeof message.sessionId === 'string') return this.onSessionEvent(message.sessionId, message.method, params, message)
    this.onBrowserEvent(message.method, params)
  }

  private onAnswer(message: Message): void {
    const pending = this.pending.get(message.id as number)
    if (pending === undefined) return
    this.pending.delete(message.id as number)
    if (pending.kind === 'client') this.inFlight--
    if (pending.kind === 'internal') {
      if (message.error !== undefined) pending.reject(new Error(String((message.error as { message?: unknown }).message ?? 'CDP error')))
      else pending.resolve((message.result ?? {}) as Params)
      return
    }
    const { command, after } = pending
    if (message.error !== undefined || after === undefined) {
      return this.toClient({ id: command.id, sessionId: command.sessionId, ...(message.error !== undefined ? { error: message.error } : { result: message.result ?? {} }) })
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
    switch (method) {
      case 'Target.targetCreated':
      case 'Target.targetInfoChanged': {
        const info = params['targetInfo'] as TargetInfo | undefined
        if (!info || (info.type !== 'browser' && info.browserContextId !== this.options.browserContextId)) return
        const known = this.targets.has(info.targetId)
        this.targets.set(info.targetId, info)
        if (this.discover && matchesFilter(info.type, this.discover.filter)) this.emit(method, { targetInfo: this.hide(info) })
        if (!known && this.autoAttach && info.type !== 'browser' && matchesFilter(info.type, this.autoAttach.filter)) void this.attachFor(info.targetId)
        return
      }
      case 'Target.targetDestroyed':
      case 'Target.targetCrashed': {
        const targetId = String(params['targetId'])
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
      case 'Browser.downloadWillBegin':
        if (!this.ours(params['frameId'])) return
        this.downloads.add(String(params['guid']))
        return this.emit(method, params)
      case 'Browser.downloadProgress':
        if (this.downloads.has(String(params['guid']))) this.emit(method, params)
        return
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
      const info = params['targetInfo'] as TargetInfo | undefined
      return this.emit(method, info ? { ...params, targetInfo: this.hide(info) } : params, sessionId)
    }
    // The target's own event (most traffic: network, DOM, screencast frames) goes on as it came.
    this.sendToClient(JSON.stringify(raw))
  }

  private onAttached(parent: string | undefined, params: Params): void {
    const info = params['targetInfo'] as TargetInfo | undefined
    const sessionId = params['sessionId']
    if (!info || typeof sessionId !== 'string') return
    // A child of one of the client's sessions is the errand's; at the browser level only the
    // errand's own targets are ever attached on this connection, and that is checked again.
    if (info.browserContextId !== undefined && info.browserContextId !== this.options.browserContextId) return
    if (parent === undefined && !this.ours(info.targetId)) return
    this.sessions.set(sessionId, info.targetId)
    this.emit('Target.attachedToTarget', { ...params, targetInfo: this.hide(info) }, parent)
  }

  private onDetached(parent: string | undefined, params: Params): void {
    const sessionId = params['sessionId']
    if (typeof sessionId !== 'string' || !this.sessions.has(sessionId)) return
    this.sessions.delete(sessionId)
    this.emit('Target.detachedFromTarget', params, parent)
  }

  /** @internal */ emit(method: string, params: Params, sessionId?: string): void {
    this.toClient({ method, params, sessionId })
  }
}
