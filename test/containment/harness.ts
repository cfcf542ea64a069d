/**
 * The hostile-page suite's fixtures (G3, G4): a listener on an engine port that counts every
 * byte reaching it (TCP and UDP, every local address), the hostile site, and the host on its real
 * port with that listener's port declared as an engine port (the inspector's port, which the
 * policy holds as the engine's whether the inspector is on or off).
 *
 * @example
 * const engine = await enginePortListener()
 * const host = await startHostileHost({ enginePort: engine.port, egress: true })
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Chromium } from '@errands/engine'
import { hostSettingsFrom, startHost } from '@errands/host'
import { Context, Effect, Exit, Redacted, Scope } from 'effect'
import { client } from '../host/harness.ts'
import { HOSTILE_HTML, SHARED_JS, SW_JS, WORKER_JS } from './page.ts'

/** What an engine-port listener saw. */
export interface Seen {
  tcpConnections: number
  tcpBytes: number
  udpBytes: number
  /** First request lines (method, path) of what reached it over TCP, for the failure message. */
  readonly lines: Array<string>
}

/** The secret an engine port answers with: a page must never read it. */
export const ENGINE_SECRET = 'ENGINE-SECRET-7f3a'

/**
 * A TCP and a UDP listener on one port on every local address (`::`, dual-stack), answering any
 * HTTP request with {@link ENGINE_SECRET} and counting everything.
 *
 * @example
 * const engine = await enginePortListener()
 * engine.seen.tcpBytes // 0 — nothing reached it
 */
export const enginePortListener = async () => {
  const seen: Seen = { tcpConnections: 0, tcpBytes: 0, udpBytes: 0, lines: [] }
  const sockets = new Set<import('node:net').Socket>()
  for (let attempt = 0; ; attempt++) {
    const tcp: Server = createServer((socket) => {
      seen.tcpConnections++
      sockets.add(socket)
      socket.on('data', (d: Buffer) => {
        seen.tcpBytes += d.length
        // Where it came from and to which address: a failure says whether the page or a stray client reached it.
        const where = `${socket.remoteAddress} → ${socket.localAddress}`
        seen.lines.push(`${where}: ${d.toString('latin1').split('\r\n')[0]!.slice(0, 80)}`)
        socket.end(
          `HTTP/1.1 200 OK\r\naccess-control-allow-origin: *\r\ncontent-type: text/event-stream\r\ncontent-length: ` +
            `${ENGINE_SECRET.length + 7}\r\n\r\ndata: ${ENGINE_SECRET}\n\n`,
        )
      })
      socket.on('error', () => undefined)
    })
    await new Promise<void>((r) => tcp.listen(0, '::', () => r()))
    const port = (tcp.address() as { port: number }).port
    const udp: UdpSocket = createSocket({ type: 'udp6' })
    udp.on('message', (m) => (seen.udpBytes += m.length))
    const bound = await new Promise<boolean>((r) => {
      udp.once('error', () => r(false))
      udp.bind(port, '::', () => r(true))
    })
    if (!bound) {
      tcp.close()
      udp.close()
      if (attempt > 5) throw new Error('no port free for TCP and UDP')
      continue
    }
    return {
      port,
      seen,
      close: async () => {
        udp.close()
        for (const s of sockets) s.destroy()
        await new Promise((r) => tcp.close(r))
      },
    }
  }
}

/** A report the hostile page posted, and the site that served it. */
export interface HostileSite {
  readonly port: number
  readonly reports: Array<Record<string, unknown>>
  readonly close: () => Promise<void>
}

/**
 * The hostile site on 127.0.0.1 (loopback, a port not the engine's: allowed): the page, its
 * workers, a redirect, and `/report`.
 *
 * @example
 * const site = await hostileSite()
 */
export const hostileSite = async (): Promise<HostileSite> => {
  const reports: Array<Record<string, unknown>> = []
  const js = (body: string) => ({ type: 'text/javascript', body })
  const files: Record<string, { type: string; body: string }> = {
    '/hostile': { type: 'text/html', body: HOSTILE_HTML },
    '/worker.js': js(WORKER_JS),
    '/shared.js': js(SHARED_JS),
    '/sw.js': js(SW_JS),
  }
  const server: HttpServer = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/report') {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        reports.push(JSON.parse(body) as Record<string, unknown>)
        res.end('ok')
      })
      return
    }
    if (url.pathname === '/redirect') {
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end()
      return
    }
    const file = files[url.pathname]
    if (!file) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  return {
    port: (server.address() as { port: number }).port,
    reports,
    close: async () => {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    },
  }
}

/** Names Chromium (and so the egress) resolves by rule: one to loopback, one to a private address. */
export const RESOLVER_RULES = 'MAP engine.test 127.0.0.1, MAP intranet.test 10.0.0.1'

/**
 * The host on its real port, its policy holding `enginePort` as the engine's (the inspector's
 * port, off), with the egress on or off.
 *
 * @example
 * const host = await startHostileHost({ enginePort: 41000, egress: false })
 */
export const startHostileHost = async (o: {
  readonly enginePort: number
  readonly egress: boolean
  /**
   * A data dir to start on (kept at stop: a restart starts a second host on it); default a fresh one, removed at stop.
   */
  readonly dataDir?: string | undefined
  /** More `ERRANDS_*` variables (e.g. ERRANDS_UPSTREAM_PROXY). */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** More `MAP name address` rules beside {@link RESOLVER_RULES}. */
  readonly resolverRules?: string | undefined
}) => {
  const dataDir = o.dataDir ?? mkdtempSync(join(tmpdir(), 'errands-containment-'))
  const logs: Array<string> = []
  const settings = Effect.runSync(
    hostSettingsFrom({ ...o.env, ERRANDS_DATA_DIR: dataDir, ERRANDS_INSPECT_PORT: String(o.enginePort) }),
  )
  const scope = Effect.runSync(Scope.make())
  const host = await Effect.runPromise(
    startHost({
      settings,
      port: 0,
      log: (line) => logs.push(line),
      daily: false,
      chromium: {
        warmSpare: false,
        egress: o.egress,
        extraArgs: [`--host-resolver-rules=${[RESOLVER_RULES, o.resolverRules].filter(Boolean).join(', ')}`],
      },
    }).pipe(Scope.extend(scope)),
  )
  return {
    ...host,
    logs,
    chromium: Context.get(host.services, Chromium),
    call: client(host.url, Redacted.value(host.token)),
    stop: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      if (o.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Every spelling of the engine's port a page may write (the list), plus names that resolve to loopback. */
export const spellings = (port: number): ReadonlyArray<string> =>
  ['127.0.0.1', '127.1', '0x7f000001', '[::ffff:127.0.0.1]', '0.0.0.0', 'localhost.', 'engine.test', 'vm'].map(
    (h) => `${h}:${port}`,
  )
