/**
 * A CDP channel into a browser over the engine's own Playwright connection (A1, A4; ADR 0016):
 * no TCP port of Chromium is ever opened. Each channel is one **browser session**
 * (`Target.attachToBrowserTarget` on Playwright's root session) and every child session attached
 * through it; a small router keyed by `sessionId` hands those sessions' messages to the channel
 * before Playwright's `CRConnection` sees them (it would drop them: it knows only its own
 * sessions). Command ids are remapped into a range of our own, so an answer never meets one of
 * Playwright's callbacks.
 *
 * The channel looks like a root CDP connection to whoever uses it: a message without a
 * `sessionId` goes to the channel's browser session, and that session's messages come back
 * without one.
 *
 * This rides Playwright internals (pinned in test/devtools/channel.test.ts, which fails naming
 * the internal when an upgrade changes it): the client `Browser`'s in-process
 * `_connection.toImpl(browser)` → the server `CRBrowser`, its `_connection` (a `CRConnection`)
 * with `rootSession.send` and `_transport` (`send(object)`, `onmessage(object)`).
 *
 * @example
 * const channel = await openCdpChannel(browser)
 * channel.onMessage((m) => console.log(m))
 * channel.send({ id: 1, method: 'Target.getTargets', params: {} })
 */
import type { CdpChannel, CdpMessage } from '@errands/runtime'
import type { Browser } from 'playwright-core'

/** The parts of Playwright's server objects this file uses. */
interface Transport {
  send(message: CdpMessage): void
  onmessage: ((message: CdpMessage) => void) | undefined
}
interface RootSession {
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>
}
interface CrConnection {
  readonly rootSession: RootSession
  readonly _transport: Transport
  readonly _closed?: boolean
}

/** Our command ids start here: Playwright's count up from 1 and never get near. */
const FIRST_ID = 1_000_000_000
const LAST_ID = 2_000_000_000

/**
 * The server `CRConnection` behind a client `Browser`, or an error naming the Playwright internal
 * that is missing (an upgrade changed it: see ADR 0016).
 *
 * @example
 * const connection = crConnectionOf(browser)
 */
export const crConnectionOf = (browser: Browser): CrConnection => {
  const client = (browser as unknown as { _connection?: { toImpl?: (x: unknown) => unknown } })._connection
  if (typeof client?.toImpl !== 'function')
    throw new Error('Playwright internal changed: Browser._connection.toImpl (the in-process connection) is missing')
  const server = client.toImpl(browser) as { _connection?: Partial<CrConnection> } | undefined
  const connection = server?._connection
  if (connection === undefined)
    throw new Error('Playwright internal changed: the server CRBrowser has no _connection (CRConnection)')
  if (typeof connection.rootSession?.send !== 'function')
    throw new Error('Playwright internal changed: CRConnection.rootSession.send is missing')
  const transport = connection._transport
  if (typeof transport?.send !== 'function' || !('onmessage' in transport)) {
    throw new Error('Playwright internal changed: CRConnection._transport (send, onmessage) is missing')
  }
  return connection as CrConnection
}

interface Route {
  readonly channel: Channel
  readonly clientId: number
}

/** One router per `CRConnection`: it sits in front of Playwright's `_onMessage`. */
class Router {
  /** Every session of ours (channels' browser sessions and their children) → its channel. */
  readonly owner = new Map<string, Channel>()
  private readonly routes = new Map<number, Route>()
  private nextId = FIRST_ID
  private readonly playwrights: (message: CdpMessage) => void

  constructor(readonly connection: CrConnection) {
    const transport = connection._transport
    const original = transport.onmessage
    if (typeof original !== 'function')
      throw new Error('Playwright internal changed: CRConnection._transport.onmessage is not set')
    this.playwrights = original
    transport.onmessage = (message) => {
      if (!this.take(message)) original.call(null, message)
    }
  }

  /** Sends a channel's command with an id of ours; `clientId` undefined: nobody waits for the answer. */
  send(channel: Channel, message: CdpMessage, sessionId: string, clientId: number | undefined): void {
    const id = this.nextId
    this.nextId = this.nextId >= LAST_ID ? FIRST_ID : this.nextId + 1
    if (clientId !== undefined) this.routes.set(id, { channel, clientId })
    this.connection._transport.send({ id, method: message.method, params: message.params ?? {}, sessionId })
  }

  /** Whether `message` is ours (then it went to its channel, or was dropped). */
  private take(message: CdpMessage): boolean {
    const sessionId = message.sessionId
    if (typeof sessionId !== 'string') return false
    const channel = this.owner.get(sessionId)
    if (channel === undefined) return false
    if (typeof message.id === 'number') {
      const route = this.routes.get(message.id)
      this.routes.delete(message.id)
      if (route?.channel.open) route.channel.deliver({ ...message, id: route.clientId })
      return true
    }
    const params = (message.params ?? {}) as { sessionId?: unknown }
    if (message.method === 'Target.attachedToTarget' && typeof params.sessionId === 'string')
      this.owner.set(params.sessionId, channel)
    if (channel.open) channel.deliver(message)
    if (message.method === 'Target.detachedFromTarget' && typeof params.sessionId === 'string')
      this.owner.delete(params.sessionId)
    return true
  }

  /** Forgets a channel's sessions and pending answers. */
  forget(channel: Channel): Array<string> {
    const sessions: Array<string> = []
    for (const [sessionId, owner] of this.owner) {
      if (owner !== channel) continue
      this.owner.delete(sessionId)
      sessions.push(sessionId)
    }
    for (const [id, route] of this.routes) if (route.channel === channel) this.routes.delete(id)
    return sessions
  }

  /** Whether Playwright's own handler is still the one behind us (tests). */
  get behind(): (message: CdpMessage) => void {
    return this.playwrights
  }
}

const routers = new WeakMap<CrConnection, Router>()

class Channel implements CdpChannel {
  open = true
  private readonly messageListeners: Array<(message: CdpMessage) => void> = []
  private readonly closeListeners: Array<(reason: string) => void> = []

  constructor(
    private readonly router: Router,
    readonly browserSession: string,
    private readonly stopWatching: () => void,
  ) {}

  send(message: CdpMessage): void {
    if (!this.open) return
    const sessionId = message.sessionId ?? this.browserSession
    // A session that is not this channel's is answered as Chromium answers an unknown one.
    if (this.router.owner.get(sessionId) !== this) {
      if (typeof message.id === 'number')
        this.deliver({
          id: message.id,
          sessionId,
          error: { code: -32001, message: `Session with given id not found.` },
        })
      return
    }
    this.router.send(this, message, sessionId, typeof message.id === 'number' ? message.id : undefined)
  }

  onMessage(listener: (message: CdpMessage) => void): void {
    this.messageListeners.push(listener)
  }

  onClose(listener: (reason: string) => void): void {
    this.closeListeners.push(listener)
  }

  deliver(message: CdpMessage): void {
    const out: CdpMessage = message.sessionId === this.browserSession ? withoutSession(message) : message
    for (const listener of this.messageListeners) listener(out)
  }

  close(): void {
    this.end('closed')
  }

  /** Ends the channel: its sessions are detached (their children with them) and forgotten. */
  end(reason: string): void {
    if (!this.open) return
    this.open = false
    this.stopWatching()
    const sessions = this.router.forget(this)
    if (!this.router.connection._closed) {
      // Children first (each on the browser session that attached it, fire and forget), then the
      // browser session itself on Playwright's root session.
      for (const sessionId of sessions) {
        if (sessionId === this.browserSession) continue
        this.router.send(
          this,
          { method: 'Target.detachFromTarget', params: { sessionId } },
          this.browserSession,
          undefined,
        )
      }
      void this.router.connection.rootSession
        .send('Target.detachFromTarget', { sessionId: this.browserSession })
        .catch(() => undefined)
    }
    for (const listener of this.closeListeners.splice(0)) listener(reason)
  }
}

const withoutSession = (message: CdpMessage): CdpMessage => {
  const { sessionId: _drop, ...rest } = message
  return rest
}

/**
 * Opens a channel: a fresh browser session of `browser`'s Chromium over the engine's own
 * connection. It ends when `close()` is called or the browser goes away.
 *
 * @example
 * const channel = await openCdpChannel(browser)
 */
export const openCdpChannel = async (browser: Browser): Promise<CdpChannel> => {
  if (!browser.isConnected()) throw new Error('the browser is gone')
  const connection = crConnectionOf(browser)
  let router = routers.get(connection)
  if (router === undefined) {
    router = new Router(connection)
    routers.set(connection, router)
  }
  const { sessionId } = await connection.rootSession.send('Target.attachToBrowserTarget')
  if (typeof sessionId !== 'string') throw new Error('Target.attachToBrowserTarget named no session')
  const gone = () => channel.end('the browser went away')
  browser.on('disconnected', gone)
  const channel: Channel = new Channel(router, sessionId, () => browser.off('disconnected', gone))
  router.owner.set(sessionId, channel)
  return channel
}

/**
 * Whether our router sits in front of Playwright's message handler of `browser` (tests).
 *
 * @example
 * expect(routerInstalled(browser)).toBe(true)
 */
export const routerInstalled = (browser: Browser): boolean => routers.get(crConnectionOf(browser))?.behind !== undefined
