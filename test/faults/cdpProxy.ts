/**
 * A WebSocket proxy in front of a real Chromium's DevTools endpoint that can drop the
 * connection mid-call: armed with a method name (or a message count), it closes both sockets
 * when the client sends that message, before forwarding it — the call is left without an answer,
 * as when a network path to a browser elsewhere breaks.
 *
 * @example
 * const proxy = await serveCdpProxy(remote.httpUrl)
 * proxy.arm({ method: 'Page.navigate' })
 * // the host's next navigation loses its connection
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocket, WebSocketServer, type RawData } from 'ws'

/** When to drop: at the first client message with this method, or after this many more messages. */
export type DropRule = { readonly method: string } | { readonly afterMessages: number }

/** A running proxy. */
export interface CdpProxy {
  readonly httpUrl: string
  /** Client→browser methods seen, in order. */
  readonly methods: Array<string>
  /** Connections dropped on purpose so far. */
  readonly drops: () => number
  /** WebSocket connections accepted so far. */
  readonly connections: () => number
  readonly arm: (rule: DropRule) => void
  readonly close: () => Promise<void>
}

/**
 * Starts the proxy on 127.0.0.1 and a random port, in front of `upstreamHttp` (`http://host:port`).
 *
 * @example
 * const proxy = await serveCdpProxy('http://127.0.0.1:9222')
 */
export const serveCdpProxy = async (upstreamHttp: string): Promise<CdpProxy> => {
  const methods: string[] = []
  let armed: { method?: string; left?: number } | undefined
  let drops = 0
  let connections = 0
  const sockets = new Set<WebSocket>()
  const server = createServer(async (req, res) => {
    if (!(req.url ?? '').startsWith('/json/version')) {
      res.writeHead(404)
      res.end()
      return
    }
    const version = (await (await fetch(`${upstreamHttp}/json/version`)).json()) as Record<string, string>
    const port = (server.address() as AddressInfo).port
    const path = new URL(version.webSocketDebuggerUrl!).pathname
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ ...version, webSocketDebuggerUrl: `ws://127.0.0.1:${port}${path}` }))
  })
  const wss = new WebSocketServer({ server, maxPayload: 256 * 1024 * 1024 })
  wss.on('connection', (client, req) => {
    connections++
    const upstream = new WebSocket(`${upstreamHttp.replace(/^http/, 'ws')}${req.url}`, {
      maxPayload: 256 * 1024 * 1024,
    })
    sockets.add(client).add(upstream)
    const pending: RawData[] = []
    const drop = () => {
      drops++
      client.terminate()
      upstream.terminate()
    }
    // CDP speaks text frames; `ws` hands us Buffers, which it would send on as binary frames.
    upstream.on('open', () => {
      for (const m of pending.splice(0)) upstream.send(m.toString())
    })
    upstream.on('message', (data, binary) => {
      if (client.readyState === WebSocket.OPEN) client.send(binary ? data : data.toString())
    })
    client.on('message', (data) => {
      const method = (JSON.parse(data.toString()) as { method?: string }).method ?? ''
      methods.push(method)
      if (armed !== undefined) {
        if (armed.left !== undefined) armed.left--
        if (armed.method === method || armed.left === 0) {
          armed = undefined
          return drop()
        }
      }
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data.toString())
      else pending.push(data)
    })
    const end = () => {
      client.terminate()
      upstream.terminate()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('close', end).on('error', end)
    upstream.on('close', end).on('error', end)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    httpUrl: `http://127.0.0.1:${port}`,
    methods,
    drops: () => drops,
    connections: () => connections,
    arm: (rule) => {
      armed = 'method' in rule ? { method: rule.method } : { left: rule.afterMessages }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.terminate()
        wss.close()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
