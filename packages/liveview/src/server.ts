/**
 * The live view (V1–V3, E2, E6, H3, C1), served by the host at `/`: the page, its script and
 * style, a small JSON API for the person's buttons, and one WebSocket per open page that pushes
 * the state when it changes and the screencast of the conversation being watched.
 *
 * Who may use it: the person, signed in once with the host's token (`auth.ts`): the sign-in id
 * travels in the page's `X-Errands-Live` header and the socket's subprotocol, never in a cookie
 * (X4). Every request and socket is checked before anything else runs, by `@errands/edge`
 * (`gate.ts`: Host, Origin, JSON bodies), and refused with the edge's JSON error.
 *
 * Watching: a page that watches a conversation marks its errand watched (never parked while on
 * screen, C1) and gets the active tab's screencast — the runtime's `screencast`, so no browser
 * library is needed here — frames acknowledged by the page (`cast.ts`).
 * Switching to another conversation stops the old stream before the new one starts, and closing
 * the page stops it and unwatches.
 *
 * @example
 * const live = yield* makeLiveView({ port, token, ownBrowser, release, health })
 * server.on('request', (req, res) => void live.handle(req, res).then((mine) => mine || next(req, res)))
 * server.on('upgrade', (req, socket, head) => live.upgrade(req, socket, head) || socket.destroy())
 */
import { Runtime as RuntimeTag, type RuntimeShape } from '@errands/runtime'
import { Sessions, type HealthMessage, type SessionsShape } from '@errands/sessions'
import { InternalError, NotFound, refuseUpgrade, sendError, toFailure } from '@errands/edge'
import { Effect, Runtime, type Redacted, type Scope } from 'effect'
import type * as http from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import { makeLiveApi } from './api.ts'
import { LiveAuth } from './auth.ts'
import { parseClient } from './clientMessages.ts'
import { Viewer, type ViewerDeps } from './viewer.ts'
import { bundleAssets, type Assets } from './bundle.ts'
import { heldAt, holdsTabs, markDriving, tabsOf, unknownHere } from './conversations.ts'
import type { RemoteErrand } from './remoteCast.ts'
import { requestRefusal, upgradeRefusal } from './gate.ts'
import { pageHtml } from './html.ts'
import type { LiveWheel } from './wheel.ts'
import type { LivePasswords } from './passwords.ts'
import { LIVE_PROTOCOL, paths, type LiveConversation, type LiveInspector, type LiveState } from './protocol.ts'

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
  /** A chat's own-browser toggle (E2); the host's registers an unknown chat first. */
  readonly ownBrowser: (conversationId: string, on: boolean) => Effect.Effect<unknown, unknown>
  /** Closes and forgets a conversation's errand (the host also drops a session's own state). */
  readonly release: (conversationId: string) => Effect.Effect<unknown, unknown>
  /**
   * Parks / resumes a conversation's errand where it lives: the session service here, unless the host
   * routes it (a session held by another host of a cluster is parked and resumed by its owner).
   * Unset: this host's session service.
   */
  readonly park?: ((conversationId: string) => Effect.Effect<unknown, unknown>) | undefined
  /** Errands open on other hosts of a cluster: conversation id → the host that holds it. */
  readonly heldElsewhere?: Effect.Effect<ReadonlyMap<string, string>> | undefined
  /** An errand open on another host of a cluster, streamed from its owner (`undefined`: none is). */
  readonly remote?: ((conversationId: string) => Effect.Effect<RemoteErrand | undefined, unknown>) | undefined
  readonly resume?: ((conversationId: string) => Effect.Effect<unknown, unknown>) | undefined
  /** Recent health messages, the supervisor's and the host's own (H3). */
  readonly health: Effect.Effect<ReadonlyArray<HealthMessage>>
  readonly inspector?: LiveInspectorSwitch | undefined
  /** Where the wheel is taken and driven (K4: a cluster's owner); unset, this host's sessions. */
  readonly wheel?: LiveWheel | undefined
  /** The person's saved sign-ins (W1, the Passwords page); unset, the page says the host keeps none. */
  readonly passwords?: LivePasswords | undefined
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

/** The paths the live view owns on the host's port (its front in the host's table, docs/edge.md). */
export const LIVE_PATHS: ReadonlyArray<string> = ['/', ...LIVE_PREFIXES]

/** An error from a service, as a log line and the page are told it (the edge's reading of it). */
const failure = (error: unknown) => toFailure(error)

const isOurs = (url: string): boolean => url === '/' || LIVE_PREFIXES.some((p) => url.startsWith(p))

/**
 * Builds the live view over the session boundary (every conversation verb, capacity and health; ADR 0044) and
 * the runtime in context.
 *
 * @example
 * const live = yield* makeLiveView(options)
 */
export const makeLiveView = (
  options: LiveViewOptions,
): Effect.Effect<LiveView, unknown, Sessions | RuntimeTag | Scope.Scope> =>
  Effect.gen(function* () {
    const sessions: SessionsShape = yield* Sessions
    const runtime: RuntimeShape = yield* RuntimeTag
    const run = Runtime.runPromise(yield* Effect.runtime<never>())
    const assets: Assets = yield* Effect.tryPromise(() => bundleAssets())
    const auth = new LiveAuth(options.token)
    const log = options.log ?? (() => undefined)
    const ownHost = `127.0.0.1:${options.port}`
    const followMs = options.followMs ?? 500
    // The socket opens with our subprotocol; the sign-in id offered beside it is never echoed back.
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: 4 * 1024,
      handleProtocols: (offered) => (offered.has(LIVE_PROTOCOL) ? LIVE_PROTOCOL : false),
    })
    const viewers = new Set<Viewer>()

    const readState: Effect.Effect<LiveState> = Effect.gen(function* () {
      const views = yield* sessions.list
      const elsewhere = new Map(options.heldElsewhere ? yield* options.heldElsewhere : [])
      const conversations: LiveConversation[] = []
      for (const view of views) {
        const tabs = holdsTabs(view) ? yield* tabsOf(runtime, view.contextId!) : []
        const { contextId: _, ...seen } = view
        conversations.push({ ...seen, tabs, ...heldAt(elsewhere, view.conversationId) })
      }
      for (const id of elsewhere.keys()) conversations.push({ ...unknownHere(id), tabs: [], ...heldAt(elsewhere, id) })
      yield* markDriving(conversations, options.wheel?.driving, options.wheel?.view)
      conversations.sort((a, b) => b.lastUsedAt - a.lastUsedAt || a.conversationId.localeCompare(b.conversationId))
      return {
        at: Date.now(),
        capacity: yield* sessions.capacity,
        conversations,
        main: { tabs: yield* tabsOf(runtime, runtime.mainContext) },
        health: [...(yield* options.health)].sort((a, b) => b.at - a.at).slice(0, 20),
        inspector: options.inspector ? yield* options.inspector.status : null,
        // P4: the boundary's one book of questions, pushed with the state and answered by the card.
        questions: yield* sessions.questions,
      }
    })

    // State pushes: on any errand's change, health message or page load, coalesced; and a slow
    // tick for what changes without an event (a tab's title).
    let pushTimer: NodeJS.Timeout | undefined
    const pushState = () => {
      if (pushTimer !== undefined || viewers.size === 0) return
      pushTimer = setTimeout(() => {
        pushTimer = undefined
        void run(readState).then(
          (state) => {
            for (const v of viewers) v.say({ type: 'state', state })
          },
          (e) => log(`live view: could not read the state (${failure(e).code})`),
        )
      }, 100)
    }
    const unsubscribe = [
      sessions.onChange(() => pushState()),
      sessions.onHealth(() => pushState()),
      yield* runtime.subscribe(() => pushState()),
      sessions.onQuestions(() => pushState()),
    ]
    const tick = setInterval(pushState, 2_000)
    tick.unref()

    const viewerDeps: ViewerDeps = { sessions, runtime, run, log, followMs, remote: options.remote }
    wss.on('connection', (socket: WebSocket) => {
      const viewer = new Viewer(socket, viewerDeps)
      viewers.add(viewer)
      socket.on('message', (data) => {
        const message = parseClient(data)
        if (message) viewer.receive(message)
        else
          viewer.say({
            type: 'error',
            message: 'Messages are {"type":"watch","conversationId":…}, {"type":"unwatch"} or {"type":"ack","seq":n}.',
          })
      })
      socket.on('close', () => {
        viewers.delete(viewer)
        viewer.enqueue(() => viewer.unwatch())
      })
      void run(readState).then(
        (state) => viewer.say({ type: 'state', state }),
        () => undefined,
      )
    })

    const api = makeLiveApi({ sessions, runtime, auth, options, run, readState, pushState, log })

    const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> => {
      const url = req.url ?? ''
      const path = url.split('?')[0]!
      if (!isOurs(path)) return false
      const refusal = requestRefusal(req, options)
      if (refusal) {
        sendError(res, refusal)
        return true
      }
      const method = req.method ?? 'GET'
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
              `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' ` +
              `data: blob:; connect-src 'self' ws://${ownHost} ws://localhost:${options.port}; form-action 'none'; ` +
              `frame-ancestors 'none'; base-uri 'none'`,
          })
          res.end(html)
        } else if (path === paths.script && method === 'GET') {
          res.writeHead(200, {
            'content-type': 'text/javascript; charset=utf-8',
            'cache-control': 'no-cache',
            'x-content-type-options': 'nosniff',
          })
          res.end(assets.js)
        } else if (path === paths.style && method === 'GET') {
          res.writeHead(200, {
            'content-type': 'text/css; charset=utf-8',
            'cache-control': 'no-cache',
            'x-content-type-options': 'nosniff',
          })
          res.end(assets.css)
        } else if (path === paths.signIn || path === paths.signOut || path.startsWith('/live/api/')) {
          // The declared API (endpoints.ts): route, sign-in, body, call and answer in the edge's one order.
          await api(req, res, path)
        } else {
          sendError(
            res,
            new NotFound({ reason: 'no-route', message: `There is no live-view page ${path.slice(0, 200)}.` }),
          )
        }
      } catch (e) {
        log(`live view: ${failure(e).code} on ${method} ${path.slice(0, 100)}`)
        if (!res.headersSent) sendError(res, InternalError.of('The live view failed; see the host log.'))
      }
      return true
    }

    const upgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean => {
      if ((req.url ?? '').split('?')[0] !== paths.socket) return false
      const refusal = upgradeRefusal(req, options, auth)
      if (refusal) refuseUpgrade(socket, refusal)
      else wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
      return true
    }

    const close = async () => {
      clearInterval(tick)
      if (pushTimer) clearTimeout(pushTimer)
      for (const u of unsubscribe) u()
      const all = [...viewers]
      viewers.clear()
      await Promise.all(
        all.map(async (v) => {
          v.socket.terminate()
          await v.queue
          await v.unwatch().catch(() => undefined)
        }),
      )
      wss.close()
    }
    yield* Effect.addFinalizer(() => Effect.promise(close))

    return { handle, upgrade, viewers: () => viewers.size, close } satisfies LiveView
  })
