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
 * - **refusals** (#22): -32000 with the reason for a policy refusal, -32601 "wasn't found" as
 *   Chromium answers a method it does not know; each logged once per connection and method
 *   (the errand's name, the method, the reason — never a token, never a URL's query);
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
import type {
  AnsweringView,
  CloseReason,
  Command,
  HelperContext,
  Params,
  ProxyOptions,
  ViewConnection,
} from './connection.ts'
import { BrowserView } from './view.ts'
import { helpParams, WheelGate } from './wheel.ts'

export type { CloseReason, Command, HelperContext, Params, ProxyOptions } from './connection.ts'

/** A CDP message, either way. */
interface Message {
  readonly id?: unknown
  readonly method?: unknown
  readonly params?: unknown
  readonly sessionId?: unknown
  readonly result?: unknown
  readonly error?: unknown
}

const REFUSED = -32000
/** Chromium's code for a method it does not know. */
const NOT_FOUND = -32601

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

/**
 * Helper contexts (`browser.newContext()`) one client may hold at once; each is an errand, counted against the cap
 * too.
 */
const MAX_HELPERS = 4

/**
 * Distinct refusals logged per connection; past it one line says the rest are not (a client sending made-up names must
 * not flood the log).
 */
const MAX_LOGGED_REFUSALS = 64

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
  /** This client's name for Playwright's binding global (see the file's doc). */
  private readonly binding = `${PLAYWRIGHT_BINDING}c${randomBytes(6).toString('hex')}_`
  /** When the client last sent anything (the idle limit reads it). */
  lastActivity = Date.now()
  /** The client's commands waiting for the browser (the in-flight limit reads it). */
  private inFlight = 0
  private readonly logged = new Set<string>()
  /** Helper errands' contexts this client opened (`browser.newContext()`), by browser context id. */
  private readonly helpers = new Map<string, HelperContext>()
  private openingHelpers = 0
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
  /** `Errands.requestHelp` calls waiting for a hand-back, aborted when the client leaves. */
  private readonly helpAsked = new Set<AbortController>()

  private constructor(/** @internal */ readonly options: ProxyOptions) {}

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
    return this.wheel.personDriving || this.wheel.heldCount > 0 || this.helpAsked.size > 0
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
    // The client's helper errands end with it (E1: closed when the client disconnects).
    for (const helper of this.helpers.values()) helper.close()
    this.helpers.clear()
    // Held commands are not sent; a request for help leaves the live view.
    this.wheel.drop()
    for (const asked of this.helpAsked) asked.abort()
    this.helpAsked.clear()
    this.state = 'closed'
    for (const listener of this.closeListeners.splice(0)) listener(why)
  }

  // ---- from the client ----

  private fromClient(data: WebSocket.RawData): void {
    let text = data.toString()
    if (text.includes(PLAYWRIGHT_BINDING)) text = text.replaceAll(PLAYWRIGHT_BINDING, this.binding)
    let message: Message
    try {
      message = JSON.parse(text) as Message
    } catch {
      return this.toClient({ error: { code: -32700, message: 'Message must be JSON.' } })
    }
    if (typeof message !== 'object' || message === null)
      return this.toClient({ error: { code: -32600, message: 'Message must be an object.' } })
    const sessionId = typeof message.sessionId === 'string' ? message.sessionId : undefined
    if (!Number.isSafeInteger(message.id) || typeof message.method !== 'string') {
      return this.toClient({
        id: message.id,
        sessionId,
        error: { code: -32600, message: 'Message must have an integer id and a method.' },
      })
    }
    if (
      message.params !== undefined &&
      (typeof message.params !== 'object' || message.params === null || Array.isArray(message.params))
    ) {
      return this.toClient({ id: message.id, sessionId, error: { code: -32602, message: 'params must be an object.' } })
    }
    const command: Command = {
      id: message.id as number,
      method: message.method,
      params: (message.params ?? {}) as Params,
      sessionId,
    }
    const limit = this.options.maxInFlight ?? MAX_IN_FLIGHT
    // Held commands (#26) wait for the browser too.
    if (this.inFlight + this.wheel.heldCount >= limit) {
      return this.refused(
        command,
        `more than ${limit} commands of this connection are waiting for the browser (the in-flight limit); wait for ` +
          `answers first`,
      )
    }
    if (command.method.startsWith('Errands.')) return this.errands(command)
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
    view.onSession(command)
  }

  // ---- the Errands domain (#26, wheel.ts) ----

  /**
   * `Errands.*` on a browser session (the root one or a client's): -32601 elsewhere and for a name not of the domain.
   */
  private errands(command: Command): void {
    const onBrowser = command.sessionId === undefined || this.browserSessions.has(command.sessionId)
    if (onBrowser && command.method === 'Errands.requestHelp') return this.requestHelp(command)
    if (onBrowser && command.method === 'Errands.getFilesFolder') {
      const path = this.options.filesDir
      if (path === undefined)
        return this.refused(command, "this errand has no files folder on the engine's machine (a remote browser's)")
      return this.toClient({ id: command.id, sessionId: command.sessionId, result: { path } })
    }
    this.refused(command, undefined)
  }

  private requestHelp(command: Command): void {
    const ask = this.options.requestHelp
    if (ask === undefined) return this.refused(command, 'no person can be asked for help through this endpoint')
    const params = helpParams(command.params)
    if (typeof params === 'string') {
      return this.toClient({
        id: command.id,
        sessionId: command.sessionId,
        error: { code: -32602, message: `Errands.requestHelp: ${params}.` },
      })
    }
    const asked = new AbortController()
    this.helpAsked.add(asked)
    void ask(params.reason, params.timeoutMs, asked.signal)
      .then(
        (result) => this.toClient({ id: command.id, sessionId: command.sessionId, result }),
        (error: unknown) =>
          this.refused(
            command,
            `the request for help failed (${error instanceof Error ? error.message : String(error)})`,
          ),
      )
      .finally(() => {
        this.helpAsked.delete(asked)
        this.lastActivity = Date.now()
      })
  }

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
    return (
      browserContextId === this.options.browserContextId ||
      (typeof browserContextId === 'string' && this.helpers.has(browserContextId))
    )
  }

  /** The browser's id of a context the client named (the alias or a helper's id); undefined: not one of ours. */
  /** @internal */ realContext(named: unknown): string | undefined {
    if (named === this.alias || named === this.options.browserContextId) return this.options.browserContextId
    return typeof named === 'string' && this.helpers.has(named) ? named : undefined
  }

  /** Helper contexts' ids, as `Target.getBrowserContexts` lists them. */
  /** @internal */ helperIds(): Array<string> {
    return [...this.helpers.keys()]
  }

  /** `Target.createBrowserContext`: a helper errand of this errand, or refused when there is none to open. */
  /** @internal */ openHelperContext(from: AnsweringView, command: Command): void {
    const open = this.options.openHelper
    if (open === undefined)
      return from.refuse(command, `${command.method}: an errand's endpoint has one browser context, the default one`)
    if (this.helpers.size + this.openingHelpers >= MAX_HELPERS) {
      return from.refuse(
        command,
        `this connection holds ${MAX_HELPERS} helper contexts, the limit; dispose of one first`,
      )
    }
    this.openingHelpers++
    void open().then(
      (helper) => {
        this.openingHelpers--
        if (this.state !== 'open') return helper.close()
        this.helpers.set(helper.browserContextId, helper)
        from.reply(command, { browserContextId: helper.browserContextId })
      },
      (error: unknown) => {
        this.openingHelpers--
        from.refuse(
          command,
          `no helper errand could be opened for a new context ` +
            `(${error instanceof Error ? error.message : String(error)})`,
        )
      },
    )
  }

  /** `Target.disposeBrowserContext` of a helper: released. False when the id is not a helper of this client. */
  /** @internal */ closeHelperContext(browserContextId: unknown): boolean {
    const helper = typeof browserContextId === 'string' ? this.helpers.get(browserContextId) : undefined
    if (helper === undefined) return false
    this.helpers.delete(browserContextId as string)
    helper.close()
    return true
  }

  // ---- to the client ----

  /**
   * Refuses `command`: -32000 with `why`, or, without a `why`, -32601 as Chromium answers a method
   * it does not know. Logged once per connection and method.
   */
  /** @internal */ refused(command: Command, why: string | undefined, viewSession?: string): void {
    const message =
      why === undefined ? `'${command.method}' wasn't found` : `Refused by the errand's DevTools endpoint: ${why}.`
    this.logRefusal(command.method, why ?? 'not a method of the DevTools protocol (-32601)')
    this.toClient({
      id: command.id,
      sessionId: command.sessionId ?? viewSession,
      error: { code: why === undefined ? NOT_FOUND : REFUSED, message },
    })
  }

  private logRefusal(method: string, why: string): void {
    if (this.logged.has(method) || this.logged.size > MAX_LOGGED_REFUSALS) return
    this.logged.add(method)
    // A method name is the client's text: kept short and printable in the log.
    const name = method.slice(0, 80).replace(/[^\x20-\x7e]/g, '?')
    if (this.logged.size > MAX_LOGGED_REFUSALS)
      return this.options.log(
        `devtools: ${this.options.name}: more than ${MAX_LOGGED_REFUSALS} kinds of refusal on one connection; the ` +
          `rest are not logged`,
      )
    this.options.log(`devtools: ${name} refused for ${this.options.name}: ${why}`)
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
