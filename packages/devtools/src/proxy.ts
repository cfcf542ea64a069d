/**
 * One client's CDP connection into one errand (A1): the client's WebSocket on one side and, on
 * the other, **browser views** (view.ts) — each a channel of its own into the errands' browser (a
 * browser session of the engine's own pipe connection, never a TCP port of Chromium: A4, ADR 0016)
 * with the rules that make the errand look like a whole browser whose only context is the default
 * one. The root view answers messages without a `sessionId`; `Target.attachToBrowserTarget` opens
 * one more, confined the same way, answered on the session id the client got (#22).
 *
 * The connection itself keeps what is per client, whichever view a message is for:
 * - **limits** (#27): commands in flight, browser sessions, bytes the client left unread;
 * - **refusals** (#22, refusals.ts): -32000 with the reason for a policy refusal, -32601 "wasn't
 *   found" as Chromium answers a method it does not know; each logged once per connection and method;
 * - **helper contexts** (#22, helperContexts.ts) the client opened, and its `Errands.*` commands
 *   (#26, errandsDomain.ts);
 * - **Playwright's binding names** (#22): the engine's own Playwright connection drives every
 *   page of the errand too, and both install the same `__playwright__binding__` global with
 *   `Runtime.addBinding`; V8 gives a page's calls to whichever session installed the global last,
 *   so a client's `exposeFunction()` reached the engine's Playwright ("Function "hello" is not
 *   exposed") or the engine's WebSocket routing reached the client's. The client's names are
 *   suffixed with this connection's own tag on the way in and put back on the way out: two
 *   globals, each Playwright answers its own.
 *
 * @example
 * const proxy = await ErrandProxy.connect({ connect: target.connect, browserContextId, policy, log, name: 'session:k1'
 * })
 * proxy.attach(clientSocket)
 */
import { randomBytes } from 'node:crypto'
import WebSocket from 'ws'
import { onBrowserCommand } from './browserMethods.ts'
import { ClientDownloads } from './clientDownloads.ts'
import { readCommand } from './clientMessage.ts'
import type { AnsweringView, CloseReason, Command, Params, ProxyOptions, ViewConnection } from './connection.ts'
import { ErrandsDomain } from './errandsDomain.ts'
import { HelperContexts } from './helperContexts.ts'
import { Refusals } from './refusals.ts'
import { onSessionCommand } from './sessionCommands.ts'
import { BrowserView } from './view.ts'
import { WheelGate } from './wheel.ts'

export type { CloseReason, Command, HelperContext, Params, ProxyOptions } from './connection.ts'

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
 * Browser sessions (`Target.attachToBrowserTarget`) one client may hold at once (#22, #27): each
 * is a channel of its own into the browser. Playwright opens one per connection.
 *
 * @example
 * ErrandProxy.connect({ ...options, maxBrowserSessions: MAX_BROWSER_SESSIONS })
 */
export const MAX_BROWSER_SESSIONS = 8

/** The global Playwright's injected scripts bind to; the client's copy is renamed (see the file's doc). */
const PLAYWRIGHT_BINDING = '__playwright__binding__'

/**
 * The proxy of one client connection.
 *
 * @example
 * const proxy = await ErrandProxy.connect(options)
 * proxy.attach(ws)
 * proxy.onClose((why) => console.log(why.reason))
 */
export class ErrandProxy implements ViewConnection {
  private client: WebSocket | undefined
  private root!: BrowserView
  /** The client's browser sessions (`Target.attachToBrowserTarget`), by the id the client got. */
  private readonly browserSessions = new Map<string, BrowserView>()
  /**
   * Windows of the errand's targets a client asked for (`Browser.getWindowForTarget`): the only ones it may move or
   * resize.
   */
  readonly windows = new Set<number>()
  private state: 'open' | 'closing' | 'closed' = 'open'
  private readonly closeListeners: Array<(why: CloseReason) => void> = []
  /** The errand's browser context id as this client sees it. */
  readonly alias = randomBytes(16).toString('hex').toUpperCase()
  /** The client's download behaviours, its view and not the errand's (clientDownloads.ts). */
  readonly downloads: ClientDownloads
  /** This client's name for Playwright's binding global (see the file's doc). */
  private readonly binding = `${PLAYWRIGHT_BINDING}c${randomBytes(6).toString('hex')}_`
  /** When the client last sent anything (the idle limit reads it). */
  lastActivity = Date.now()
  /** The client's commands waiting for the browser (the in-flight limit reads it). */
  private inFlight = 0
  private readonly refusals: Refusals
  /** Helper errands' contexts this client opened (`browser.newContext()`), by browser context id. */
  private readonly helpers: HelperContexts
  /**
   * A person at the wheel (#26): this client's acting commands held meanwhile (wheel.ts), and what
   * it set up before suspended for the drive on each of its views (drive.ts).
   */
  readonly wheel = new WheelGate(
    (command) => this.route(command),
    (method, params) => this.announce(method, params),
    (personDriving) => {
      for (const view of [this.root, ...this.browserSessions.values()]) {
        if (view === undefined) continue
        if (personDriving) view.drive.take()
        else view.drive.handBack()
      }
    },
  )
  /** The client's `Errands.*` commands, and its requests for help waiting for a hand-back. */
  private readonly domain: ErrandsDomain

  private constructor(/** @internal */ readonly options: ProxyOptions) {
    this.refusals = new Refusals(options)
    this.downloads = new ClientDownloads(options)
    this.helpers = new HelperContexts(options.openHelper, () => this.state === 'open')
    this.domain = new ErrandsDomain({
      options,
      toClient: (message) => this.toClient(message),
      refused: (command, why) => this.refused(command, why),
      touched: () => {
        this.lastActivity = Date.now()
      },
    })
  }

  /**
   * Connects to the browser and learns the errand's targets; the client is attached after.
   *
   * @example
   * const proxy = await ErrandProxy.connect({ connect: target.connect, browserContextId, policy, log, name })
   */
  static async connect(options: ProxyOptions): Promise<ErrandProxy> {
    const proxy = new ErrandProxy(options)
    proxy.root = await BrowserView.open(proxy, undefined)
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

  /**
   * Whether the client is waiting on us rather than idle: a person drives (its acting commands
   * are held) or it asked for help. The idle limit does not close it then.
   */
  get waiting(): boolean {
    return this.wheel.personDriving || this.wheel.heldCount > 0 || this.domain.asking
  }

  /** Whether a person drives the errand now. @example if (proxy.personDriving) … */
  get personDriving(): boolean {
    return this.wheel.personDriving
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
    if (this.client && this.client.readyState === WebSocket.OPEN) this.client.close(why.code, why.reason.slice(0, 120))
    else this.client?.terminate()
    // Detaches every session of ours: nothing the client set up outlives it.
    for (const view of this.browserSessions.values()) view.close()
    this.browserSessions.clear()
    this.root?.close()
    this.helpers.closeAll()
    // Held commands are not sent; a request for help leaves the live view.
    this.wheel.drop()
    this.domain.drop()
    this.state = 'closed'
    for (const listener of this.closeListeners.splice(0)) listener(why)
  }

  // ---- from the client ----

  private fromClient(data: WebSocket.RawData): void {
    let text = data.toString()
    if (text.includes(PLAYWRIGHT_BINDING)) text = text.replaceAll(PLAYWRIGHT_BINDING, this.binding)
    const read = readCommand(text)
    if ('answer' in read) return this.toClient(read.answer)
    const command = read.command
    const limit = this.options.maxInFlight ?? MAX_IN_FLIGHT
    // Held commands (#26) wait for the browser too.
    if (this.inFlight + this.wheel.heldCount >= limit) {
      return this.refused(
        command,
        `more than ${limit} commands of this connection are waiting for the browser (the in-flight limit); wait for ` +
          `answers first`,
      )
    }
    if (command.method.startsWith('Errands.')) {
      const onBrowser = command.sessionId === undefined || this.browserSessions.has(command.sessionId)
      return this.domain.handle(command, onBrowser)
    }
    if (!this.wheel.hold(command)) this.route(command)
  }

  /** Sends a client's command to the view it is for (now, or at the hand-back when it was held). */
  private route(command: Command): void {
    const sessionId = command.sessionId
    if (sessionId === undefined) return onBrowserCommand(this.root, command)
    const browserSession = this.browserSessions.get(sessionId)
    if (browserSession !== undefined) return onBrowserCommand(browserSession, command)
    const view = this.root.sessions.has(sessionId)
      ? this.root
      : [...this.browserSessions.values()].find((v) => v.sessions.has(sessionId))
    // As Chromium answers an unknown session: on the connection, without the id.
    if (view === undefined)
      return this.refused({ ...command, sessionId: undefined }, 'no session with this id belongs to this errand')
    onSessionCommand(view, command)
  }

  // ---- the Errands domain (#26, errandsDomain.ts, wheel.ts) ----

  /** An `Errands.*` event to the client, on the connection and on each of its browser sessions. */
  private announce(method: string, params: Params): void {
    this.root?.emit(method, params)
    for (const view of this.browserSessions.values()) view.emit(method, params)
  }

  // ---- browser sessions (#22) ----

  /**
   * `Target.attachToBrowserTarget` from `from`: a new view on a channel of its own, announced with
   * `Target.attachedToTarget` (the browser target) as Chromium does, then answered.
   */
  /** @internal */ openBrowserSession(from: AnsweringView, command: Command): void {
    const limit = this.options.maxBrowserSessions ?? MAX_BROWSER_SESSIONS
    if (this.browserSessions.size >= limit) {
      return from.refuse(command, `this connection holds ${limit} browser sessions, the limit; detach one first`)
    }
    const sessionId = randomBytes(16).toString('hex').toUpperCase()
    void BrowserView.open(this, sessionId).then(
      (view) => {
        if (this.state !== 'open') return view.close()
        this.browserSessions.set(sessionId, view)
        const browser = [...from.targets.values()].find((t) => t.type === 'browser')
        const targetInfo = {
          ...(browser ?? { targetId: 'browser', type: 'browser', title: '', url: '' }),
          attached: true,
        }
        from.emit('Target.attachedToTarget', { sessionId, targetInfo, waitingForDebugger: false })
        from.reply(command, { sessionId })
      },
      (error: unknown) => from.refuse(command, error instanceof Error ? error.message : String(error)),
    )
  }

  /** `Target.detachFromTarget` of a browser session of this client: true when `sessionId` was one. */
  /** @internal */ closeBrowserSession(from: AnsweringView, sessionId: string): boolean {
    const view = this.browserSessions.get(sessionId)
    if (view === undefined) return false
    this.browserSessions.delete(sessionId)
    view.close()
    const browser = [...from.targets.values()].find((t) => t.type === 'browser')
    from.emit('Target.detachedFromTarget', { sessionId, ...(browser ? { targetId: browser.targetId } : {}) })
    return true
  }

  // ---- contexts: the errand's, and helpers the client opened (#22) ----

  /** Whether `browserContextId` (as the browser names it) is the errand's or one of its helpers' here. */
  /** @internal */ owns(browserContextId: unknown): boolean {
    return browserContextId === this.options.browserContextId || this.helpers.has(browserContextId)
  }

  /** The browser's id of a context the client named (the alias or a helper's id); undefined: not one of ours. */
  /** @internal */ realContext(named: unknown): string | undefined {
    if (named === this.alias || named === this.options.browserContextId) return this.options.browserContextId
    return this.helpers.has(named) ? named : undefined
  }

  /** Helper contexts' ids, as `Target.getBrowserContexts` lists them. */
  /** @internal */ helperIds(): Array<string> {
    return this.helpers.ids()
  }

  /** `Target.createBrowserContext`: a helper errand of this errand, or refused when there is none to open. */
  /** @internal */ openHelperContext(from: AnsweringView, command: Command): void {
    this.helpers.open(from, command)
  }

  /** `Target.disposeBrowserContext` of a helper: released. False when the id is not a helper of this client. */
  /** @internal */ closeHelperContext(browserContextId: unknown): boolean {
    return this.helpers.close(browserContextId)
  }

  // ---- to the client ----

  /**
   * Refuses `command`: -32000 with `why`, or, without a `why`, -32601 as Chromium answers a method
   * it does not know. Logged once per connection and method.
   */
  /** @internal */ refused(command: Command, why: string | undefined, viewSession?: string, logged = true): void {
    this.toClient(this.refusals.answer(command, why, viewSession, logged))
  }

  /** @internal */ toClient(message: Params): void {
    if (message.sessionId === undefined) delete message.sessionId
    this.sendToClient(JSON.stringify(message))
  }

  /** @internal */ sendToClient(text: string): void {
    if (this.state !== 'open' || this.client?.readyState !== WebSocket.OPEN) return
    // A client that does not read would make the host hold everything for it (#27).
    if (this.client.bufferedAmount > MAX_BUFFERED) {
      return this.close({
        code: 1008,
        reason:
          `The client did not read: over ${MAX_BUFFERED / 1024 / 1024} MiB waited for it ` + '(the send-buffer limit).',
      })
    }
    this.client.send(text.includes(this.binding) ? text.replaceAll(this.binding, PLAYWRIGHT_BINDING) : text)
  }

  /** A client command went to the browser (the in-flight limit). @internal */
  began(): void {
    this.inFlight++
  }

  /** A client command's answer came back, or will not. @internal */
  settled(): void {
    this.inFlight = Math.max(0, this.inFlight - 1)
  }
}
