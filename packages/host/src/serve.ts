/**
 * Starting the host as a scoped resource: the token, the listening socket on 127.0.0.1 (first,
 * so a taken port fails before any Chromium starts, and so the policy knows the real port), the
 * engine, then the app. Until the engine is up, requests get 503 `HostUnavailable('starting')`.
 *
 * Closing the scope shuts down in this order: new requests are refused (503) and the socket
 * stops accepting; requests in flight get up to 2 s; the engine parks every open session (E5)
 * and closes every Chromium; the last connections close.
 *
 * @example
 * const host = yield* startHost({ settings, port: 0 }) // any free port (tests)
 * host.url // 'http://127.0.0.1:41234'
 */
import { DEVTOOLS_PREFIX, DevTools } from '@errands/devtools'
import { DailyBrowser, makeDailyDoor, type DailyBrowserShape } from '@errands/daily'
import { LIVE_PATHS, makeLiveView, type LiveInspector } from '@errands/liveview'
import { HealthLog, Sessions, type InspectorStatus } from '@errands/sessions'
import { dispatch, frontTable, InternalError, rawErrorResponse, type FrontTable } from '@errands/edge'
import { Context, Effect, Layer, Logger, Option, Redacted, type Scope } from 'effect'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import type { HostSettings } from './config.ts'
import { hostEngineLayer, type HostEngineOptions, type HostServices } from './engine.ts'
import { HostStartError, HostUnavailable } from './errors.ts'
import { loadAgentTokens } from './http/agentTokens.ts'
import { makeApp, type App } from './http/app.ts'
import { InFlight, nodeHandler, onClientError, type Fetcher } from './http/node.ts'
import { errorResponse } from './http/respond.ts'
import { refuseOtherUpgrade } from './http/upgrade.ts'
import { Vault } from '@errands/passwords'
import { Browsing, sessionTarget } from './browsing/Browsing.ts'
import { Placement } from './placement.ts'
import { PersonWheel } from './wheel.ts'
import { HostHealth } from './health.ts'
import { Person } from './person/Person.ts'
import { MCP_PATH, mountMcp } from './mcp.ts'
import { sessionKeyOf } from './sessionKey.ts'
import { loadToken } from './token.ts'

/**
 * A handler mounted under a loopback-only prefix (the Daily Browser door, `@errands/daily`):
 * it answers `true` when it handled the request, `false` to let the host's routes try. The door
 * checks the peer address, the Host header and its paired extension's Origin itself (B7).
 *
 * @example
 * const route: NodeRoute = async (req, res) => false
 */
export type NodeRoute = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<boolean>

/** The inspector's status as the live view shows it. */
const liveInspector = (s: InspectorStatus | undefined): LiveInspector =>
  s === undefined
    ? { on: false, howToOpen: 'This host has no XState inspector switch.' }
    : { on: s.on, howToOpen: `${s.how} ${s.network}`.trim(), url: s.url ?? undefined }

/** The prefix the Daily Browser door is mounted under. @example `${host.url}${DAILY_PREFIX}/redeem` */
export const DAILY_PREFIX = '/daily'

/** How to start the host. */
export interface StartOptions {
  readonly settings: HostSettings
  /** Listen here instead of `settings.port` (`0`: any free port, for tests). */
  readonly port?: number | undefined
  /** Receives log lines (Chromium, guard, lending); default stderr. */
  readonly log?: ((line: string) => void) | undefined
  readonly chromium?: HostEngineOptions['chromium']
  /** Several hosts as one (issue #16, `@errands/cluster`); unset: this host alone. */
  readonly cluster?: HostEngineOptions['cluster']
  /**
   * The Daily Browser door under `/daily` (D2): by default `@errands/daily`'s door on a fresh
   * `DailyBrowser` with the person's token as its admin credential; `false` leaves it out; a
   * handler replaces it.
   */
  readonly daily?: NodeRoute | false | undefined
  /** How long an MCP session whose client's event stream closed waits for it before it ends (default 30 s). */
  readonly mcpLingerMs?: number | undefined
  /** Wraps the runtime the host uses (tests count its calls). */
  readonly observeRuntime?: HostEngineOptions['observeRuntime']
  /** Hears the supervisor's journal (tests read the asks of a person and their ends from it). */
  readonly journal?: HostEngineOptions['journal']
}

/** A running host. */
export interface RunningHost {
  readonly url: string
  readonly port: number
  readonly token: Redacted.Redacted<string>
  readonly app: App
  /** The engine's services (tests reach the supervisor and the runtime through these). */
  readonly services: Context.Context<HostServices>
  /** The host's own health messages. */
  readonly notes: HealthLog
  /** Open MCP sessions at `/mcp`. */
  readonly mcpSessions: () => number
}

const starting: Fetcher = {
  fetch: async () =>
    errorResponse(new HostUnavailable({ reason: 'starting', message: 'The host is starting; try again in a second.' })),
}

const listen = (server: http.Server, port: number): Effect.Effect<number, HostStartError> =>
  Effect.async<number, HostStartError>((resume) => {
    const onError = (error: NodeJS.ErrnoException) =>
      resume(
        Effect.fail(
          new HostStartError({
            reason: error.code === 'EADDRINUSE' ? 'port-in-use' : 'listen-failed',
            message:
              error.code === 'EADDRINUSE'
                ? `Port ${port} on 127.0.0.1 is in use (another errands host?); stop it or set ERRANDS_PORT to a ` +
                  `free port.`
                : `Could not listen on 127.0.0.1:${port} (${error.code ?? error.message}).`,
          }),
        ),
      )
    server.once('error', onError)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError)
      resume(Effect.succeed((server.address() as AddressInfo).port))
    })
  })

/** Any start-up failure of the engine, in its own words (the errors carry no secrets). */
const engineFailed = (e: unknown): HostStartError =>
  new HostStartError({ reason: 'engine', message: `The engine could not start: ${causeChain(e)}` })

/** A failure's message and its causes' (an `UnknownException` of `Effect.tryPromise` says nothing of its own). */
const causeChain = (e: unknown): string => {
  const parts: string[] = []
  for (let at = e, depth = 0; at !== undefined && at !== null && depth < 4; depth++) {
    const message =
      typeof at === 'object' && 'message' in at ? String((at as { message: unknown }).message) : String(at)
    if (!parts.includes(message)) parts.push(message)
    at = typeof at === 'object' && 'cause' in at ? (at as { cause: unknown }).cause : undefined
  }
  return parts.join(': ')
}

/**
 * Starts the host; it runs until the scope closes.
 *
 * @example
 * await Effect.runPromise(Effect.scoped(Effect.flatMap(startHost({ settings }), () => Effect.never)))
 */
export const startHost = (options: StartOptions): Effect.Effect<RunningHost, HostStartError, Scope.Scope> => {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`))
  const logger = Logger.replace(
    Logger.defaultLogger,
    Logger.make((o) => log(Logger.stringLogger.log(o))),
  )
  return Effect.gen(function* () {
    const settings = options.settings
    const token = yield* loadToken(settings.supervisor.dataDir)
    const agentTokens =
      settings.agentTokensFile === undefined ? undefined : yield* loadAgentTokens(settings.agentTokensFile)
    const inFlight = new InFlight()
    let current: Fetcher = starting
    let door: NodeRoute | undefined
    let port = 0
    const handler = nodeHandler(
      () => current,
      inFlight,
      () => port,
    )
    // Every front of this port in one table (docs/edge.md): set once the engine is up; until then
    // every request is the /v1 app's (503 starting) and every upgrade is refused.
    let fronts: FrontTable | undefined
    const { request, upgrade } = dispatch(() => fronts, {
      request: handler,
      upgrade: (req, socket) => refuseOtherUpgrade(req, socket, { port }),
      failed: (front, error, left) => {
        log(`${front.name} failed: ${error instanceof Error ? error.message : String(error)}`)
        if (left._tag === 'upgrade') left.socket.destroy()
        else if (!left.res.headersSent)
          left.res.socket?.end(rawErrorResponse(InternalError.of(`The ${front.name} failed.`)))
      },
    })
    const server = http.createServer(
      { requestTimeout: 300_000, headersTimeout: 30_000, keepAliveTimeout: 5_000 },
      request,
    )
    server.on('clientError', onClientError)
    server.on('upgrade', upgrade)
    port = yield* Effect.acquireRelease(listen(server, options.port ?? settings.port), () =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      }),
    )

    const notes = new HealthLog(50)
    const services = yield* Layer.build(
      hostEngineLayer({
        settings,
        port,
        log,
        notes,
        chromium: options.chromium,
        cluster: options.cluster,
        observeRuntime: options.observeRuntime,
        journal: options.journal,
      }),
    ).pipe(Effect.mapError(engineFailed))
    const app = yield* makeApp({ port, token, agentTokens, log, maxRawBodyBytes: settings.files.maxFileBytes }).pipe(
      Effect.provide(services),
    )
    const endpoint = Context.get(services, DevTools)
    let dailyBrowser: DailyBrowserShape | undefined
    if (options.daily === undefined) {
      // The Daily Browser lives as long as the host; its leases vanish with it (D6).
      const daily = yield* Layer.build(DailyBrowser.layer()).pipe(Effect.mapError(engineFailed))
      dailyBrowser = Context.get(daily, DailyBrowser)
      door = yield* makeDailyDoor({ prefix: DAILY_PREFIX, adminToken: Redacted.value(token), log }).pipe(
        Effect.provide(daily),
      )
    } else if (options.daily !== false) door = options.daily
    // The live view at `/` (V1): closed before the engine, so its watchers are let go first.
    const view = yield* Effect.gen(function* () {
      const person = yield* Person
      const browsing = yield* Browsing
      const health = yield* HostHealth
      const sessions = yield* Sessions
      const placement = yield* Placement
      return yield* makeLiveView({
        port,
        token,
        log,
        ownBrowser: person.ownBrowser,
        release: (id) => {
          const key = sessionKeyOf(id)
          return key === undefined ? person.release(id) : browsing.release(key)
        },
        // A session's errand through the page verbs' service, which in a cluster reaches its owner:
        // this host's own sessions would open a second context for an errand held elsewhere.
        park: (id) => {
          const key = sessionKeyOf(id)
          return key === undefined ? sessions.park(id) : browsing.park(key)
        },
        resume: (id) => {
          const key = sessionKeyOf(id)
          return key === undefined ? sessions.resume(id) : browsing.resume(key)
        },
        // Errands other hosts of a cluster hold open: listed with the host that holds them.
        heldElsewhere: placement.heldElsewhere,
        // A session with no page here that is active where it is (another host of a cluster):
        // streamed through the page verbs, whose frame verb runs the owner's own screencast.
        remote: (id) => {
          const key = sessionKeyOf(id)
          if (key === undefined) return Effect.succeed(undefined)
          const target = sessionTarget(key)
          return Effect.map(browsing.state(target), (s) => {
            if (s.lifecycle !== 'active') return undefined
            const size = s.viewport ?? { width: 1280, height: 720 }
            const tab = s.tabs.find((t) => t.active) ?? s.tabs[0]
            return {
              tab: tab === undefined ? null : { url: tab.url, title: tab.title },
              // Only while it is active there: a frame call brings an errand up, and one the person
              // parked must stay parked (the poll finds nothing and looks again later).
              frame: () =>
                Effect.runPromise(
                  Effect.flatMap(browsing.state(target), (now) =>
                    now.lifecycle === 'active'
                      ? Effect.map(browsing.frame(target), (f) => ({ data: f.data, seq: f.seq, ...size }))
                      : Effect.fail(new Error(`the errand is ${now.lifecycle}`)),
                  ),
                ),
            }
          })
        },
        health: Effect.map(health.report, (r) => r.messages),
        inspector: {
          status: Effect.map(
            Effect.orElseSucceed(person.inspector, () => undefined),
            liveInspector,
          ),
          set: (on) => Effect.map(person.setInspector(on), liveInspector),
        },
        // K4: in a cluster, the wheel of a session's errand is taken and driven on its owner.
        wheel: Option.getOrUndefined(yield* Effect.serviceOption(PersonWheel)),
        // W1: the Passwords page over this host's sealed vault (docs/passwords.md).
        passwords: Option.getOrUndefined(yield* Effect.serviceOption(Vault)),
      })
    }).pipe(Effect.provide(services), Effect.mapError(engineFailed))
    // MCP at /mcp (A2): its sessions end, parking their errands, before the engine shuts down.
    const mcp = yield* mountMcp({
      port,
      log,
      idleMs: settings.supervisor.idleMs,
      lingerMs: options.mcpLingerMs,
      daily: dailyBrowser,
      agentTokens,
      caps: settings.mcpCaps,
    }).pipe(Effect.provide(services))
    current = app
    /** A front's path it does not take after all: the /v1 app's 404, or the edge's refusal of an upgrade. */
    const orRequest = (req: http.IncomingMessage, res: http.ServerResponse) => (mine: boolean) => {
      if (!mine) handler(req, res)
    }
    const orUpgrade = (taken: boolean, req: http.IncomingMessage, socket: Duplex) => {
      if (!taken) refuseOtherUpgrade(req, socket, { port })
    }
    const daily = door
    fronts = frontTable([
      {
        name: 'live view',
        paths: LIVE_PATHS,
        request: (req, res) => view.handle(req, res).then(orRequest(req, res)),
        upgrade: (req, socket, head) => orUpgrade(view.upgrade(req, socket, head), req, socket),
      },
      // MCP's Streamable HTTP (docs/mcp.md) streams its answers: served on the socket, not buffered.
      { name: 'MCP endpoint', paths: [MCP_PATH], request: (req, res) => mcp.route(req, res) },
      ...(daily === undefined
        ? []
        : [
            {
              name: 'Daily Browser door',
              paths: [DAILY_PREFIX, `${DAILY_PREFIX}/`],
              request: (req: http.IncomingMessage, res: http.ServerResponse) =>
                daily(req, res).then(orRequest(req, res)),
            },
          ]),
      {
        name: 'DevTools endpoint',
        paths: [DEVTOOLS_PREFIX],
        // HTTP discovery under an errand's DevTools URL (`/devtools/<token>/json/…`, A1); else the /v1 app's 404.
        request: (req, res) => {
          if (!endpoint.discovery(req, res)) handler(req, res)
        },
        upgrade: (req, socket, head) => orUpgrade(endpoint.upgrade(req, socket, head), req, socket),
      },
    ])
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        app.close()
        server.close()
        server.closeIdleConnections()
        await inFlight.drain(2_000)
      }),
    )
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      token,
      app,
      services,
      notes,
      mcpSessions: mcp.sessions,
    } satisfies RunningHost
  }).pipe(Effect.provide(logger))
}
