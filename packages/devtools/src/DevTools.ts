/**
 * The DevTools endpoint per errand (A1) as an Effect service: `endpoint(conversationId)` hands
 * out `ws://<host>/devtools/<token>`, and `upgrade` takes the WebSocket upgrades of those URLs
 * (the host mounts it on its own port; an embedder on a server of its own).
 *
 * The lifecycle follows the errand through the one session service (`Sessions`, ADR 0027), the
 * one path for every caller (A3):
 * - a connection **drives** its errand while it is open (never parked to make room, C2) — it
 *   resumes or heals it first when needed, like every verb;
 * - a connection with no message for the idle limit is closed (code 4003), so an idle socket does
 *   not pin its errand forever; the sweep may park it then (C4);
 * - **park** closes every connection of the errand (4001) and revokes its tokens; **release** and
 *   the errand's end do too (4002); a **heal** closes connections (4004) but keeps the token, so a
 *   client reconnects with the same URL and finds the tabs back (`openProxies.ts`).
 *
 * @example
 * const devtools = yield* DevTools
 * const { url } = yield* devtools.endpoint('session:task-42')
 * const browser = await chromium.connectOverCDP(url)
 */
import type { GuardPolicy } from '@errands/guard'
import { admit, nodeHeaders, refuseUpgrade as refuseWith, sendError, sendJson } from '@errands/edge'
import { Runtime } from '@errands/runtime'
import { Sessions, type SupervisorError } from '@errands/sessions'
import { Cause, Context, Effect, Exit, Layer, Runtime as EffectRuntime, type Scope } from 'effect'
import type * as http from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer } from 'ws'
import { discover, DISCOVERY_PATH } from './discovery.ts'
import { makeErrandTargets } from './errandTargets.ts'
import type { DevToolsUnavailable } from './errors.ts'
import { OpenProxies } from './openProxies.ts'
import { ErrandProxy } from './proxy.ts'
import { CLOSE, MAX_CONNECTIONS, maxConnectionsConfig, maxFrameBytesConfig, maxInFlightConfig } from './limits.ts'
import { TokenBook } from './tokens.ts'

/** What `endpoint` answers. @example const { url } = yield* devtools.endpoint('task-1') */
export interface DevToolsEndpoint {
  /**
   * `ws://127.0.0.1:<port>/devtools/<token>`: give it to `connectOverCDP`, `puppeteer.connect` or
   * `chrome-remote-interface`.
   */
  readonly url: string
}

/**
 * How the service is set up.
 *
 * @example
 * const options: DevToolsOptions = { baseUrl: () => 'ws://127.0.0.1:7777', policy, log: console.error, idleMs: 900_000
 * }
 */
export interface DevToolsOptions {
  /** Where clients connect, without a trailing slash: `ws://127.0.0.1:7777`. */
  readonly baseUrl: () => string
  /** The containment policy (navigations a client asks for are decided first). */
  readonly policy: GuardPolicy
  readonly log: (line: string) => void
  /** A connection silent for this long is closed (default 900000 ms, the supervisor's default idle limit). */
  readonly idleMs?: number | undefined
  /**
   * `Host` headers an upgrade may carry (B7: DNS rebinding); default: `@errands/edge`'s one rule at the base URL's
   * port.
   */
  readonly hosts?: (() => ReadonlyArray<string>) | undefined
  /**
   * The largest WebSocket frame a client may send (#27); a bigger one closes the connection with
   * 1009 and a reason naming the limit, before it is buffered. Default: `ERRANDS_DEVTOOLS_MAX_FRAME_BYTES`
   * or 16 MiB.
   */
  readonly maxFrameBytes?: number | undefined
  /**
   * Open connections per errand (#27); one more is refused with 429. Default: `ERRANDS_DEVTOOLS_MAX_CONNECTIONS` or
   * {@link MAX_CONNECTIONS}.
   */
  readonly maxConnections?: number | undefined
  /**
   * Commands one connection may have waiting for the browser (#27). Default: `ERRANDS_DEVTOOLS_MAX_IN_FLIGHT` or 256
   * (`MAX_IN_FLIGHT`).
   */
  readonly maxInFlight?: number | undefined
}

/** The service. @example if (!devtools.upgrade(req, socket, head)) socket.destroy() */
export interface DevToolsShape {
  /** A fresh URL into the conversation's errand (opened, resumed or healed through the session service first). */
  readonly endpoint: (conversationId: string) => Effect.Effect<DevToolsEndpoint, DevToolsUnavailable | SupervisorError>
  /** Takes an HTTP upgrade when its path is `/devtools/…` (`true`); anything else is not its own. */
  readonly upgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => boolean
  /**
   * Answers an HTTP request for `/devtools/<token>/json/…` (discovery.ts: `version`, `list`, `protocol`) and answers
   * `true`; anything else is not its own (`false`).
   */
  readonly discovery: (req: http.IncomingMessage, res: http.ServerResponse) => boolean
  /** Open client connections (of one conversation, or all). */
  readonly connections: (conversationId?: string) => number
}

/** The path prefix the endpoint owns on the host's port (its front in the host's table, docs/edge.md). */
export const DEVTOOLS_PREFIX = '/devtools/'
const PATH = /^\/devtools\/([^/?#]*)$/

/** The endpoint's own refusals, answered by the edge's renderer like every other front's. */
const refuseUpgrade = (socket: Duplex, status: number, code: string, message: string): void =>
  refuseWith(socket, { _tag: code, message, status })

/**
 * Builds the service; closing the scope closes every connection and revokes every token.
 *
 * @example
 * const devtools = yield* makeDevTools({ baseUrl: () => 'ws://127.0.0.1:7777', policy, log: console.error })
 */
export const makeDevTools = (
  options: DevToolsOptions,
): Effect.Effect<DevToolsShape, never, Sessions | Runtime | Scope.Scope> =>
  Effect.gen(function* () {
    const sessions = yield* Sessions
    const runtime = yield* Runtime
    const effects = yield* Effect.runtime<never>()
    const run = EffectRuntime.runPromiseExit(effects)
    const { target, openHelper } = makeErrandTargets({ sessions, runtime, effects, log: options.log })
    const tokens = new TokenBook()
    const proxies = new OpenProxies(tokens, options.idleMs ?? 900_000)
    const port = () => Number(new URL(options.baseUrl().replace(/^ws/, 'http')).port || 80)
    // A bad value of the variable is the operator's to see, not a silent default.
    const maxFrameBytes = options.maxFrameBytes ?? (yield* Effect.orDie(maxFrameBytesConfig))
    const maxConnections = options.maxConnections ?? (yield* Effect.orDie(maxConnectionsConfig))
    const maxInFlight = options.maxInFlight ?? (yield* Effect.orDie(maxInFlightConfig))
    // allowSynchronousEvents: false — ws hands over one client message per turn of the event loop
    // instead of every message of a socket read at once (a 64 KiB read is ~1,000 small commands):
    // a flooding client then waits behind its own messages, and another errand's requests are
    // served between them (#27: a flood on one errand must not starve another).
    const wss = new WebSocketServer({
      noServer: true,
      perMessageDeflate: false,
      maxPayload: maxFrameBytes,
      allowSynchronousEvents: false,
    })
    const frameLimit =
      `The message was over ${maxFrameBytes} bytes, the frame limit of an errand's DevTools ` +
      `endpoint (ERRANDS_DEVTOOLS_MAX_FRAME_BYTES).`
    /** Connections of an errand being set up, counted against its limit with the open ones. */
    const connecting = new Map<string, number>()
    let closed = false

    const stopFollowing = proxies.follow(sessions)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        stopFollowing()
        tokens.clear()
        proxies.closeEvery(CLOSE.shutdown)
        wss.close()
      }),
    )

    const endpoint = (conversationId: string) =>
      Effect.gen(function* () {
        // Proves the errand can be reached (opening, resuming or healing it), then lets it go.
        yield* target(conversationId)
        yield* sessions.undrive(conversationId)
        const token = tokens.mint(conversationId)
        return { url: `${options.baseUrl()}/devtools/${token}` } satisfies DevToolsEndpoint
      })

    const connect = async (
      conversationId: string,
      token: string,
      req: http.IncomingMessage,
      socket: Duplex,
      head: Buffer,
    ) => {
      const found = await run(target(conversationId))
      if (Exit.isFailure(found)) {
        const error = Cause.squash(found.cause)
        return refuseUpgrade(
          socket,
          503,
          'DevToolsUnavailable',
          error instanceof Error ? error.message : 'The errand is not available; try again.',
        )
      }
      let proxy: ErrandProxy
      try {
        proxy = await ErrandProxy.connect({
          maxInFlight,
          connect: found.value.connect,
          browserContextId: found.value.browserContextId,
          policy: options.policy,
          log: options.log,
          name: conversationId,
          filesDir: found.value.filesDir,
          download: found.value.download,
          openHelper: () => openHelper(conversationId),
          // P3: what POST /v1/session/help asks, for Errands.requestHelp.
          requestHelp: (reason, timeoutMs, signal) =>
            run(sessions.askForHelp(conversationId, reason, timeoutMs), { signal }).then((exit) => {
              if (Exit.isSuccess(exit)) return exit.value
              const error = Cause.squash(exit.cause)
              throw error instanceof Error ? error : new Error('the errand is gone')
            }),
        })
      } catch (error) {
        await run(sessions.undrive(conversationId))
        return refuseUpgrade(
          socket,
          503,
          'DevToolsUnavailable',
          `${error instanceof Error ? error.message : "the errand's browser cannot be reached"}; try again.`,
        )
      }
      proxies.add(conversationId, proxy)
      // A4: while this client is connected, the engine leaves the errand's dialogs to it.
      const detach = found.value.attach()
      proxy.onClose((why) => {
        detach()
        options.log(`devtools: a client of ${conversationId} disconnected (${why.code})`)
        void run(sessions.undrive(conversationId))
      })
      // Parked, released or shut down while we connected: the token is gone.
      if (closed || tokens.conversationOf(token) !== conversationId) {
        proxy.close(closed ? CLOSE.shutdown : CLOSE.parked)
        return refuseUpgrade(
          socket,
          404,
          'UnknownDevToolsToken',
          'This DevTools URL was revoked; ask GET /v1/session/devtools for a new one.',
        )
      }
      // The client may have left while we connected: then nothing drives the errand on its behalf.
      let attached = false
      const left = () => {
        if (!attached) proxy.close({ code: 1006, reason: 'the client left before the connection was up' })
      }
      if (socket.destroyed || !socket.writable) return left()
      socket.once('close', left)
      wss.handleUpgrade(req, socket, head, (ws) => {
        attached = true
        socket.off('close', left)
        // ws closes an oversized frame with 1009 and no words; the client gets the limit named.
        const close = ws.close.bind(ws)
        ws.close = (code?: number, reason?: string | Buffer) =>
          close(code, code === 1009 && reason === undefined ? frameLimit.slice(0, 120) : reason)
        proxy.attach(ws)
        // Connected while a person drives: paused from the start (#26).
        proxy.wheel.set(sessions.personDriving(conversationId))
        options.log(`devtools: a client connected to ${conversationId}`)
      })
    }

    // B7: a web page may try to reach us; CDP clients send no Origin, and the Host is ours.
    const admitted = (req: http.IncomingMessage) =>
      admit(
        nodeHeaders(req.headers),
        { port: port() },
        { host: options.hosts ? { exactly: options.hosts } : 'own', origin: { own: false } },
      )

    const unknownToken =
      'This DevTools URL is unknown or was revoked (park, release); ask GET /v1/session/devtools for a new one.'

    const discovery = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
      const match = DISCOVERY_PATH.exec(req.url ?? '')
      if (match === null) return false
      const refusal = admitted(req)
      if (refusal) {
        sendError(res, refusal)
        return true
      }
      const fail = (status: number, code: string, message: string) => sendError(res, { _tag: code, status, message })
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        // Chromium's PUT /json/new opens a tab; a client opens one over the WebSocket (Target.createTarget).
        fail(405, 'MethodNotAllowed', "Only GET is answered under an errand's DevTools URL.")
        return true
      }
      const token = match[1]!
      const conversationId = closed ? undefined : tokens.conversationOf(token)
      if (conversationId === undefined) {
        fail(404, 'UnknownDevToolsToken', unknownToken)
        return true
      }
      void run(target(conversationId))
        .then(async (found) => {
          if (Exit.isFailure(found)) {
            const error = Cause.squash(found.cause)
            return fail(503, 'DevToolsUnavailable', error instanceof Error ? error.message : 'try again.')
          }
          try {
            const answer = await discover(match[2], { target: found.value, baseUrl: options.baseUrl(), token })
            sendJson(res, answer.status, answer.body)
          } finally {
            await run(sessions.undrive(conversationId))
          }
        })
        .catch((error: unknown) =>
          fail(
            503,
            'DevToolsUnavailable',
            `The errand's browser did not answer (${error instanceof Error ? error.message : String(error)}); ` +
              'try again.',
          ),
        )
      return true
    }

    const upgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean => {
      const match = PATH.exec(req.url ?? '')
      if (match === null) return false
      const refusal = admitted(req)
      if (refusal) {
        refuseWith(socket, refusal)
        return true
      }
      const token = match[1]!
      const conversationId = closed ? undefined : tokens.conversationOf(token)
      if (conversationId === undefined) {
        refuseUpgrade(socket, 404, 'UnknownDevToolsToken', unknownToken)
        return true
      }
      const busy = proxies.count(conversationId) + (connecting.get(conversationId) ?? 0)
      if (busy >= maxConnections) {
        options.log(
          `devtools: a connection to ${conversationId} refused: ${maxConnections} are open (the per-errand limit)`,
        )
        refuseUpgrade(
          socket,
          429,
          'TooManyConnections',
          `This errand has ${maxConnections} DevTools connections open, the limit; close one first.`,
        )
        return true
      }
      connecting.set(conversationId, (connecting.get(conversationId) ?? 0) + 1)
      connect(conversationId, token, req, socket, head)
        .catch(() => {
          if (socket.writable)
            refuseUpgrade(socket, 503, 'DevToolsUnavailable', 'The DevTools endpoint failed; try again.')
        })
        .finally(() => {
          const left = (connecting.get(conversationId) ?? 1) - 1
          if (left > 0) connecting.set(conversationId, left)
          else connecting.delete(conversationId)
        })
      return true
    }

    return {
      endpoint,
      upgrade,
      discovery,
      connections: (conversationId) => proxies.count(conversationId),
    } satisfies DevToolsShape
  })

/**
 * The DevTools endpoint service (`@errands/devtools/DevTools`).
 *
 * @example
 * const layer = DevTools.layer({ baseUrl: () => 'ws://127.0.0.1:7777', policy, log: console.error })
 */
export class DevTools extends Context.Tag('@errands/devtools/DevTools')<DevTools, DevToolsShape>() {
  /** The service over the session service and runtime in context. @example DevTools.layer(options) */
  static layer(options: DevToolsOptions): Layer.Layer<DevTools, never, Sessions | Runtime> {
    return Layer.scoped(DevTools, makeDevTools(options))
  }

  /**
   * A fake for router tests: the given methods, and every missing one dies loudly.
   *
   * @example
   * DevTools.layerTest({ endpoint: () => Effect.succeed({ url: 'ws://127.0.0.1:7777/devtools/x' }) })
   */
  static layerTest(methods: Partial<DevToolsShape>): Layer.Layer<DevTools> {
    return Layer.succeed(DevTools, {
      endpoint: () => Effect.dieMessage('DevTools fake: endpoint is not provided'),
      upgrade: () => false,
      discovery: () => false,
      connections: () => 0,
      ...methods,
    })
  }
}
