/**
 * The live view (V1–V3, E2, E6, H3, C1), served by the host at `/`: the page, its script and
 * style, a small JSON API for the person's buttons, and one WebSocket per open page that pushes
 * the state when it changes and the screencast of the conversation being watched.
 *
 * Who may use it: the person, signed in once with the host's token (`auth.ts`): the sign-in id
 * travels in the page's `X-Errands-Live` header and the socket's subprotocol, never in a cookie
 * (X4). Every request is
 * checked before anything else runs — the Host header must be the host's own (DNS rebinding), a
 * request that changes something or opens the socket must come from the host's own origin
 * (cross-site requests), bodies must be JSON — and answered with a JSON error when refused.
 *
 * Watching: a page that watches a conversation marks its errand watched (never parked while on
 * screen, C1) and gets the active tab's screencast, frames acknowledged by the page (`cast.ts`).
 * Switching to another conversation stops the old stream before the new one starts, and closing
 * the page stops it and unwatches.
 *
 * @example
 * const live = yield* makeLiveView({ port, token, pages, ownBrowser, release, health })
 * server.on('request', (req, res) => void live.handle(req, res).then((mine) => mine || next(req, res)))
 * server.on('upgrade', (req, socket, head) => live.upgrade(req, socket, head) || socket.destroy())
 */
import { Runtime as RuntimeTag, type ContextId, type RuntimeShape } from '@errands/runtime'
import { Supervisor, type ErrandView, type HealthMessage, type SupervisorShape } from '@errands/supervisor'
import { Effect, Runtime, type Redacted, type Scope } from 'effect'
import type * as http from 'node:http'
import type { Duplex } from 'node:stream'
import type { BrowserContext, Page } from 'playwright-core'
import { WebSocketServer, type WebSocket } from 'ws'
import { LiveAuth, liveIdOf, socketIdOf } from './auth.ts'
import { bundleAssets, type Assets } from './bundle.ts'
import { LiveCast } from './cast.ts'
import { pageHtml } from './html.ts'
import { LIVE_PROTOCOL, paths, type ClientMessage, type LiveConversation, type LiveInspector, type LiveState, type LiveTab, type ServerMessage } from './protocol.ts'

/** Pages and contexts by the runtime's ids (the host's `Pages`, ChromiumRuntime's extras). */
export interface LivePages {
  readonly pageOf: (contextId: ContextId, tabId: string) => Page | undefined
  readonly browserContextOf: (contextId: ContextId) => BrowserContext | undefined
}

/** The inspector's switch, when the host has one (V3). */
export interface LiveInspectorSwitch {
  readonly status: Effect.Effect<LiveInspector>
  readonly set: (on: boolean) => Effect.Effect<LiveInspector, unknown>
}

/** What the live view is given. */
export interface LiveViewOptions {
  /** The host's port: the only Host and Origin answered are `127.0.0.1:<port>`. */
  readonly port: number
  /** The person's token (the host-token file). */
  readonly token: Redacted.Redacted<string>
  readonly pages: LivePages
  /** A chat's own-browser toggle (E2); the host's registers an unknown chat first. */
  readonly ownBrowser: (conversationId: string, on: boolean) => Effect.Effect<unknown, unknown>
  /** Closes and forgets a conversation's errand (the host also drops a session's own state). */
  readonly release: (conversationId: string) => Effect.Effect<unknown, unknown>
  /** Recent health messages, the supervisor's and the host's own (H3). */
  readonly health: Effect.Effect<ReadonlyArray<HealthMessage>>
  readonly inspector?: LiveInspectorSwitch | undefined
  /** One line per refused socket or failed action; never tokens, cookies or page content. */
  readonly log?: ((line: string) => void) | undefined
  /** How often a watched conversation's active tab is re-checked (ms; default 500). */
  readonly followMs?: number | undefined
}

/** The running live view. */
export interface LiveView {
  /** Answers a request when it is the live view's (`true`), else leaves it alone (`false`). */
  readonly handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<boolean>
  /** Takes a WebSocket upgrade when it is the live view's (`true`). */
  readonly upgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => boolean
  /** Open pages (sockets). */
  readonly viewers: () => number
  /** Closes every socket, stops every stream, unwatches. */
  readonly close: () => Promise<void>
}

const LIVE_PREFIXES = ['/ui/', '/live/']
const MAX_BODY = 16 * 1024
const CONVERSATION_ID = /^[\x21-\x7e]{1,200}$/

const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  })
  res.end(text)
}

const refuse = (res: http.ServerResponse, status: number, code: string, message: string): void =>
  send(res, status, { error: { code, message } })

/** An error from a service, as the page is told it (typed errors carry their HTTP status). */
const failure = (error: unknown): { status: number; code: string; message: string } => {
  const e = error as { _tag?: unknown; status?: unknown; message?: unknown }
  const status = typeof e?.status === 'number' && e.status >= 400 && e.status < 600 ? e.status : 500
  return {
    status,
    code: typeof e?._tag === 'string' ? e._tag : 'Error',
    message: typeof e?.message === 'string' && e.message !== '' ? e.message : 'The action failed.',
  }
}

const readJson = (req: http.IncomingMessage): Promise<unknown | 'too-large' | 'not-json'> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY) {
        resolve('too-large')
        req.resume()
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      if (text.trim() === '') return resolve({})
      try {
        resolve(JSON.parse(text))
      } catch {
        resolve('not-json')
      }
    })
    req.on('error', () => resolve('not-json'))
  })

const isOurs = (url: string): boolean => url === '/' || LIVE_PREFIXES.some((p) => url.startsWith(p))

const tabsOf = (runtime: RuntimeShape, contextId: ContextId): Effect.Effect<ReadonlyArray<LiveTab>> =>
  runtime.tabs(contextId).pipe(
    Effect.map((tabs) => tabs.map(({ id, url, title, active }) => ({ id, url, title, active }))),
    Effect.orElseSucceed(() => [] as ReadonlyArray<LiveTab>),
  )

const holdsTabs = (view: ErrandView): boolean =>
  view.contextId !== null && view.reason !== 'main' && (view.state === 'active' || view.state === 'seeding')

/**
 * Builds the live view over the supervisor and the runtime in context.
 *
 * @example
 * const live = yield* makeLiveView(options)
 */
export const makeLiveView = (options: LiveViewOptions): Effect.Effect<LiveView, unknown, Supervisor | RuntimeTag | Scope.Scope> =>
  Effect.gen(function* () {
    const supervisor: SupervisorShape = yield* Supervisor
    const runtime: RuntimeShape = yield* RuntimeTag
    const run = Runtime.runPromise(yield* Effect.runtime<never>())
    const assets: Assets = yield* Effect.tryPromise(() => bundleAssets())
    const auth = new LiveAuth(options.token)
    const log = options.log ?? (() => undefined)
    const ownHost = `127.0.0.1:${options.port}`
    const ownOrigin = `http://${ownHost}`
    const followMs = options.followMs ?? 500
    // The socket opens with our subprotocol; the sign-in id offered beside it is never echoed back.
    const wss = new WebSocketServer({ noServer: true, maxPayload: 4 * 1024, handleProtocols: (offered) => (offered.has(LIVE_PROTOCOL) ? LIVE_PROTOCOL : false) })
    const viewers = new Set<Viewer>()

    const readState: Effect.Effect<LiveState> = Effect.gen(function* () {
      const views = yield* supervisor.list
      const conversations: LiveConversation[] = []
      for (const view of views) {
        const tabs = holdsTabs(view) ? yield* tabsOf(runtime, view.contextId!) : []
        const { contextId: _, ...seen } = view
        conversations.push({ ...seen, tabs })
      }
      conversations.sort((a, b) => b.lastUsedAt - a.lastUsedAt || a.conversationId.localeCompare(b.conversationId))
      return {
        at: Date.now(),
        capacity: yield* supervisor.capacity,
        conversations,
        main: { tabs: yield* tabsOf(runtime, runtime.mainContext) },
        health: [...(yield* options.health)].sort((a, b) => b.at - a.at).slice(0, 20),
        inspector: options.inspector ? yield* options.inspector.status : null,
      }
    })

    // State pushes: on any supervisor change, health message or page load, coalesced; and a slow
    // tick for what changes without an event (a tab's title).
    let pushTimer: NodeJS.Timeout | undefined
    const pushState = () => {
      if (pushTimer !== undefined || viewers.size === 0) return
      pushTimer = setTimeout(() => {
        pushTimer = undefined
        void run(readState).then((state) => {
          for (const v of viewers) v.say({ type: 'state', state })
        }, (e) => log(`live view: could not read the state (${failure(e).code})`))
      }, 100)
    }
    const unsubscribe = [
      supervisor.onChange(() => pushState()),
      supervisor.onHealth(() => pushState()),
      yield* runtime.subscribe(() => pushState()),
    ]
    const tick = setInterval(pushState, 2_000)
    tick.unref()

    /** One open page: its socket and what it watches. */
    class Viewer {
      watching: string | undefined
      cast: LiveCast | undefined
      castKey = ''
      /** The tab's URL and title last told to the page. */
      told = ''
      follow: NodeJS.Timeout | undefined
      /** Serialises watch / unwatch / follow steps. */
      queue: Promise<void> = Promise.resolve()

      constructor(readonly socket: WebSocket) {}

      say(message: ServerMessage): void {
        if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message))
      }

      enqueue(step: () => Promise<void>): void {
        this.queue = this.queue.then(step).catch((e) => {
          log(`live view: ${failure(e).code} while switching the stream`)
          this.say({ type: 'error', message: failure(e).message })
        })
      }

      async stopCast(): Promise<void> {
        const cast = this.cast
        this.cast = undefined
        this.castKey = ''
        if (cast) await cast.stop()
      }

      async unwatch(): Promise<void> {
        if (this.follow) clearInterval(this.follow)
        this.follow = undefined
        await this.stopCast()
        const old = this.watching
        this.watching = undefined
        if (old !== undefined) await run(supervisor.unwatch(old))
      }

      async watch(conversationId: string): Promise<void> {
        // The old stream ends before the new one begins: no frame of the old one after this.
        await this.unwatch()
        await run(supervisor.watch(conversationId))
        this.watching = conversationId
        await this.syncCast()
        this.follow = setInterval(() => this.enqueue(() => this.syncCast()), followMs)
        this.follow.unref()
      }

      /** Points the stream at the watched conversation's active tab, wherever that is now. */
      async syncCast(): Promise<void> {
        const id = this.watching
        if (id === undefined) return
        const view = await run(Effect.option(supervisor.view(id)))
        const contextId = view._tag === 'Some' && (view.value.state === 'active' || view.value.state === 'main') ? view.value.contextId : null
        const tabs = contextId === null ? [] : await run(tabsOf(runtime, contextId))
        const active = tabs.find((t) => t.active) ?? tabs[0]
        const key = contextId !== null && active ? `${contextId}/${active.id}` : ''
        if (key === this.castKey && (this.cast?.running ?? key === '')) {
          // Same tab, maybe a new page in it: the caption follows.
          if (active && this.cast && this.told !== `${active.url}\n${active.title}`) {
            this.told = `${active.url}\n${active.title}`
            this.say({ type: 'watching', conversationId: id, tab: { url: active.url, title: active.title } })
          }
          return
        }
        await this.stopCast()
        const context = contextId === null ? undefined : options.pages.browserContextOf(contextId)
        const page = contextId !== null && active ? options.pages.pageOf(contextId, active.id) : undefined
        if (this.watching !== id) return
        if (!context || !page || !active) {
          this.say({
            type: 'watching', conversationId: id, tab: null,
            note: view._tag === 'Some' && view.value.state === 'parked' ? 'Set aside: resume it to see it.' : 'No page to show yet.',
          })
          return
        }
        // Only the stream of what is watched now reaches the page — including frames that come
        // before `start` answers: the cast is `this.cast` from the start, so acks reach it too.
        const cast = LiveCast.create(page, (frame) => {
          if (this.cast !== cast || this.watching !== id) return
          this.say({ type: 'frame', conversationId: id, ...frame })
        })
        this.cast = cast
        await cast.start(context)
        if (this.watching !== id) {
          await this.stopCast()
          return
        }
        this.castKey = key
        this.told = `${active.url}\n${active.title}`
        this.say({ type: 'watching', conversationId: id, tab: { url: active.url, title: active.title } })
      }

      receive(message: ClientMessage): void {
        switch (message.type) {
          case 'watch':
            return this.enqueue(() => this.watch(message.conversationId))
          case 'unwatch':
            return this.enqueue(async () => {
              await this.unwatch()
              this.say({ type: 'watching', conversationId: null, tab: null })
            })
          case 'ack':
            this.cast?.ack(message.seq)
        }
      }
    }

    const parseClient = (data: unknown): ClientMessage | undefined => {
      try {
        const m = JSON.parse(String(data)) as Record<string, unknown>
        if (m['type'] === 'watch' && typeof m['conversationId'] === 'string' && CONVERSATION_ID.test(m['conversationId'])) {
          return { type: 'watch', conversationId: m['conversationId'] }
        }
        if (m['type'] === 'unwatch') return { type: 'unwatch' }
        if (m['type'] === 'ack' && Number.isSafeInteger(m['seq'])) return { type: 'ack', seq: m['seq'] as number }
      } catch {
        // falls through
      }
      return undefined
    }

    wss.on('connection', (socket: WebSocket) => {
      const viewer = new Viewer(socket)
      viewers.add(viewer)
      socket.on('message', (data) => {
        const message = parseClient(data)
        if (message) viewer.receive(message)
        else viewer.say({ type: 'error', message: 'Messages are {"type":"watch","conversationId":…}, {"type":"unwatch"} or {"type":"ack","seq":n}.' })
      })
      socket.on('close', () => {
        viewers.delete(viewer)
        viewer.enqueue(() => viewer.unwatch())
      })
      void run(readState).then((state) => viewer.say({ type: 'state', state }), () => undefined)
    })

    const sameOrigin = (req: http.IncomingMessage, required: boolean): boolean => {
      const origin = req.headers.origin
      if (origin === undefined) {
        const site = req.headers['sec-fetch-site']
        return !required && (site === undefined || site === 'same-origin' || site === 'none')
      }
      return origin === ownOrigin
    }

    const action = async (res: http.ServerResponse, effect: Effect.Effect<unknown, unknown>): Promise<void> => {
      const outcome = await run(Effect.either(effect))
      if (outcome._tag === 'Left') {
        const f = failure(outcome.left)
        if (f.status >= 500) log(`live view: action failed with ${f.code}`)
        return refuse(res, f.status, f.code, f.message)
      }
      send(res, 200, { state: await run(readState) })
      pushState()
    }

    const api = async (req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<void> => {
      const method = req.method ?? 'GET'
      if (path === paths.state) {
        if (method !== 'GET') return refuse(res, 405, 'MethodNotAllowed', `${path} takes GET.`)
        return send(res, 200, await run(readState))
      }
      if (method !== 'POST' && method !== 'PUT') return refuse(res, 405, 'MethodNotAllowed', `${path} takes POST.`)
      const body = await readJson(req)
      if (body === 'too-large') return refuse(res, 413, 'TooLarge', 'The body is too large.')
      if (body === 'not-json' || typeof body !== 'object' || body === null) return refuse(res, 400, 'BadRequest', 'The body is not a JSON object.')
      const fields = body as Record<string, unknown>
      if (path === paths.inspector) {
        if (!options.inspector) return refuse(res, 404, 'NotFound', 'This host has no inspector switch.')
        if (typeof fields['on'] !== 'boolean') return refuse(res, 400, 'BadRequest', 'Send {"on": true} or {"on": false}.')
        return action(res, options.inspector.set(fields['on']))
      }
      const match = /^\/live\/api\/conversations\/([^/]+)\/(park|resume|close|own-browser)$/.exec(path)
      if (!match) return refuse(res, 404, 'NotFound', `There is no live-view endpoint ${path.slice(0, 200)}.`)
      let id: string
      try {
        id = decodeURIComponent(match[1]!)
      } catch {
        return refuse(res, 400, 'BadRequest', 'The conversation id is not valid percent-encoding.')
      }
      if (!CONVERSATION_ID.test(id)) return refuse(res, 400, 'BadRequest', 'A conversation id is 1–200 printable characters.')
      switch (match[2]) {
        case 'park':
          return action(res, supervisor.park(id))
        case 'resume':
          return action(res, supervisor.resume(id))
        case 'close':
          return action(res, options.release(id))
        default: {
          if (typeof fields['on'] !== 'boolean') return refuse(res, 400, 'BadRequest', 'Send {"on": true} or {"on": false}.')
          return action(res, options.ownBrowser(id, fields['on']))
        }
      }
    }

    const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> => {
      const url = req.url ?? ''
      const path = url.split('?')[0]!
      if (!isOurs(path)) return false
      if (req.headers.host !== ownHost) {
        refuse(res, 421, 'WrongHost', `The live view answers only at ${ownOrigin}.`)
        return true
      }
      const method = req.method ?? 'GET'
      const changes = method !== 'GET' && method !== 'HEAD'
      if (!sameOrigin(req, changes)) {
        refuse(res, 403, 'ForeignOrigin', 'The live view answers only its own page.')
        return true
      }
      const hasBody = Number(req.headers['content-length'] ?? '0') > 0 || req.headers['transfer-encoding'] !== undefined
      if (changes && (hasBody || req.headers['content-type'] !== undefined)) {
        const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
        if (type !== 'application/json') {
          refuse(res, 415, 'UnsupportedMediaType', 'Bodies must be JSON: send Content-Type: application/json.')
          return true
        }
      }
      try {
        if (path === paths.page && method === 'GET') {
          const html = pageHtml(options.port)
          res.writeHead(200, {
            'content-type': 'text/html; charset=utf-8',
            'cache-control': 'no-store',
            'x-content-type-options': 'nosniff',
            'x-frame-options': 'DENY',
            'referrer-policy': 'no-referrer',
            'content-security-policy':
              `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self' ws://${ownHost}; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
          })
          res.end(html)
        } else if (path === paths.script && method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' })
          res.end(assets.js)
        } else if (path === paths.style && method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' })
          res.end(assets.css)
        } else if (path === paths.signIn) {
          if (method !== 'POST') return (refuse(res, 405, 'MethodNotAllowed', `${path} takes POST.`), true)
          const body = await readJson(req)
          const token = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['token'] : undefined
          const id = typeof token === 'string' ? auth.signIn(token.trim()) : undefined
          if (id === undefined) {
            refuse(res, 401, 'WrongToken', "That is not this host's token; copy it from the host-token file in the data directory.")
          } else {
            // X4: the id goes to the page's script, which holds it in memory; no cookie is set.
            send(res, 200, { signedIn: true, id })
          }
        } else if (path === paths.signOut) {
          if (method !== 'POST') return (refuse(res, 405, 'MethodNotAllowed', `${path} takes POST.`), true)
          auth.signOut(liveIdOf(req.headers))
          send(res, 200, { signedIn: false })
        } else if (path.startsWith('/live/api/')) {
          if (!auth.isSignedIn(liveIdOf(req.headers))) {
            refuse(res, 401, 'SignInNeeded', "Sign in to the live view with the host's token first.")
          } else {
            await api(req, res, path)
          }
        } else {
          refuse(res, 404, 'NotFound', `There is no live-view page ${path.slice(0, 200)}.`)
        }
      } catch (e) {
        log(`live view: ${failure(e).code} on ${method} ${path.slice(0, 100)}`)
        if (!res.headersSent) refuse(res, 500, 'Error', 'The live view failed; see the host log.')
      }
      return true
    }

    const upgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean => {
      if ((req.url ?? '').split('?')[0] !== paths.socket) return false
      const deny = (status: string) => {
        socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`)
      }
      if (req.headers.host !== ownHost) deny('421 Misdirected Request')
      else if (req.headers.origin !== ownOrigin) deny('403 Forbidden')
      else if (!auth.isSignedIn(socketIdOf(req.headers))) deny('401 Unauthorized')
      else wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
      return true
    }

    const close = async () => {
      clearInterval(tick)
      if (pushTimer) clearTimeout(pushTimer)
      for (const u of unsubscribe) u()
      const all = [...viewers]
      viewers.clear()
      await Promise.all(all.map(async (v) => {
        v.socket.terminate()
        await v.queue
        await v.unwatch().catch(() => undefined)
      }))
      wss.close()
    }
    yield* Effect.addFinalizer(() => Effect.promise(close))

    return { handle, upgrade, viewers: () => viewers.size, close } satisfies LiveView
  })
