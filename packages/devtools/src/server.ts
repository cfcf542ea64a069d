/**
 * The DevTools endpoint for an embedder (A1), with a loopback server of its own: the Effect API
 * (`serveDevTools`, scoped) and the Promise API (`DevToolsServer.start(errands)`). Both are the
 * same `DevTools` service the host mounts on its port; only the listening socket differs.
 *
 * The server's port is one of the engine's own (G2): an embedder that wants no errand to reach it
 * reserves it first (`reservePort` from `@errands/runtime-chromium`), puts it into the runtime's
 * policy (`ownPorts`) and passes it here. Without that, a page could reach the port but not an
 * errand: every path needs a 256-bit token.
 *
 * @example
 * const errands = await Errands.create({ runtime: ChromiumRuntime.layer({ dataDir }) })
 * const devtools = await DevToolsServer.start(errands)
 * await errands.open({ id: 'task-1', kind: 'task' })
 * const browser = await chromium.connectOverCDP(await devtools.url('task-1'))
 */
import { defaultPolicy, type GuardPolicy } from '@errands/guard'
import type { Runtime } from '@errands/runtime'
import type { Sessions, SupervisorError } from '@errands/sessions'
import { Effect, Exit, Scope } from 'effect'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { makeDevTools, type DevToolsEndpoint, type DevToolsShape } from './DevTools.ts'
import type { DevToolsUnavailable } from './errors.ts'

/**
 * How an embedder's DevTools server is set up. @example await DevToolsServer.start(errands, { port: 0, idleMs: 60_000
 * })
 */
export interface DevToolsServerOptions {
  /** Listen on 127.0.0.1:<port>; default 0 (any free port). */
  readonly port?: number | undefined
  /** The containment policy clients' navigations are decided by (default: `defaultPolicy([])`). */
  readonly policy?: GuardPolicy | undefined
  readonly idleMs?: number | undefined
  readonly log?: ((line: string) => void) | undefined
  /**
   * The limits (#27), as for the host: each defaults to its `ERRANDS_DEVTOOLS_*` variable, then to the built-in value.
   */
  readonly maxFrameBytes?: number | undefined
  readonly maxConnections?: number | undefined
  readonly maxInFlight?: number | undefined
}

/** A running server: the service, and where it listens. @example (yield* serveDevTools()).baseUrl */
export interface DevToolsServing extends DevToolsShape {
  /** `ws://127.0.0.1:<port>` */
  readonly baseUrl: string
}

const notFound = (res: http.ServerResponse) => {
  const body = JSON.stringify({
    error: {
      code: 'NotFound',
      message: 'This server only takes DevTools WebSockets at /devtools/<token> (and discovery under /json/).',
    },
  })
  res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

/**
 * Serves the DevTools endpoint on a loopback port of its own until the scope closes. It acts on
 * errands through the session service in context (`Sessions`, which `engineLayer` provides).
 *
 * @example
 * const devtools = yield* serveDevTools({ port: 0 })
 * const { url } = yield* devtools.endpoint('task-1')
 */
export const serveDevTools = (
  options: DevToolsServerOptions = {},
): Effect.Effect<DevToolsServing, never, Sessions | Runtime | Scope.Scope> =>
  Effect.gen(function* () {
    let discovery: DevToolsShape['discovery'] = () => false
    const server = http.createServer((req, res) => {
      if (!discovery(req, res)) notFound(res)
    })
    const port = yield* Effect.acquireRelease(
      Effect.async<number>((resume) => {
        server.listen(options.port ?? 0, '127.0.0.1', () =>
          resume(Effect.succeed((server.address() as AddressInfo).port)),
        )
      }),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        }),
    )
    const baseUrl = `ws://127.0.0.1:${port}`
    const devtools = yield* makeDevTools({
      baseUrl: () => baseUrl,
      policy: options.policy ?? defaultPolicy([{ host: '127.0.0.1', port }]),
      log: options.log ?? (() => undefined),
      idleMs: options.idleMs,
      maxFrameBytes: options.maxFrameBytes,
      maxConnections: options.maxConnections,
      maxInFlight: options.maxInFlight,
    })
    discovery = devtools.discovery
    server.on('upgrade', (req, socket, head) => {
      if (!devtools.upgrade(req, socket, head)) socket.destroy()
    })
    return { ...devtools, baseUrl }
  })

/**
 * What runs the endpoint's effects with the session boundary and the runtime in context: the Promise API's
 * `Errands` (of @errands/supervisor), which a face does not import.
 */
export interface SessionsRunner {
  readonly runWith: <A, E>(effect: Effect.Effect<A, E, Sessions | Runtime>) => Promise<A>
}

/**
 * The DevTools endpoint for the Promise API's `Errands`.
 *
 * @example
 * const devtools = await DevToolsServer.start(errands)
 * const url = await devtools.url('task-1') // rejects with the typed error (UnknownConversation, DevToolsUnavailable …)
 * await devtools.close()
 */
export class DevToolsServer {
  private constructor(
    private readonly errands: SessionsRunner,
    private readonly serving: DevToolsServing,
    private readonly scope: Scope.CloseableScope,
  ) {}

  /** Starts serving errands' DevTools endpoints. @example await DevToolsServer.start(errands, { port: 0 }) */
  static async start(errands: SessionsRunner, options: DevToolsServerOptions = {}): Promise<DevToolsServer> {
    const scope = Effect.runSync(Scope.make())
    // The Promise API holds the session boundary over its supervisor: the endpoint acts through it.
    const serving = await errands.runWith(Scope.extend(serveDevTools(options), scope))
    return new DevToolsServer(errands, serving, scope)
  }

  /** `ws://127.0.0.1:<port>` @example devtools.baseUrl */
  get baseUrl(): string {
    return this.serving.baseUrl
  }

  /**
   * A fresh DevTools URL into the conversation's errand (opened, resumed or healed first).
   *
   * @example
   * const browser = await chromium.connectOverCDP(await devtools.url('task-1'))
   */
  async url(conversationId: string): Promise<string> {
    const endpoint: DevToolsEndpoint = await this.errands.runWith<
      DevToolsEndpoint,
      DevToolsUnavailable | SupervisorError
    >(this.serving.endpoint(conversationId))
    return endpoint.url
  }

  /** Open client connections. @example devtools.connections() */
  connections(conversationId?: string): number {
    return this.serving.connections(conversationId)
  }

  /** Closes every connection and the server. Idempotent. @example await devtools.close() */
  async close(): Promise<void> {
    await Effect.runPromise(Scope.close(this.scope, Exit.void))
  }
}
