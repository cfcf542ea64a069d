/**
 * A DevTools endpoint that cannot make browser contexts — like a cloud endpoint that hands out
 * one fixed context: it answers the handshake Playwright's `connectOverCDP` needs, and refuses
 * `Target.createBrowserContext` (R2's fallback case).
 *
 * @example
 * const fake = await serveFakeCdp()
 * fake.wsUrl // 'ws://127.0.0.1:PORT/devtools/browser/fake'
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer } from 'ws'

/** A running fake endpoint and the methods it was asked. */
export interface FakeCdp {
  readonly wsUrl: string
  readonly httpUrl: string
  readonly methods: Array<string>
  readonly close: () => Promise<void>
}

/**
 * Starts the fake on 127.0.0.1 and a random port.
 *
 * @example
 * const fake = await serveFakeCdp()
 */
export const serveFakeCdp = async (): Promise<FakeCdp> => {
  const methods: Array<string> = []
  const server = createServer((req, res) => {
    if ((req.url ?? '').startsWith('/json/version')) {
      const port = (server.address() as AddressInfo).port
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          Browser: 'Chrome/156.0.0.0',
          'Protocol-Version': '1.3',
          webSocketDebuggerUrl: `ws://127.0.0.1:${port}/devtools/browser/fake`,
        }),
      )
      return
    }
    res.writeHead(404)
    res.end()
  })
  const wss = new WebSocketServer({ server })
  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { id: number; method: string; sessionId?: string }
      methods.push(message.method)
      const reply = (body: object) =>
        socket.send(
          JSON.stringify({ id: message.id, ...(message.sessionId ? { sessionId: message.sessionId } : {}), ...body }),
        )
      switch (message.method) {
        case 'Browser.getVersion':
          return reply({
            result: {
              protocolVersion: '1.3',
              product: 'Chrome/156.0.0.0',
              revision: '0',
              userAgent: 'Mozilla/5.0 HeadlessChrome/156.0.0.0',
              jsVersion: '13.0',
            },
          })
        case 'Target.createBrowserContext':
          return reply({
            error: { code: -32000, message: 'Creating browser contexts is not allowed on this endpoint' },
          })
        case 'Target.attachToBrowserTarget':
          return reply({ result: { sessionId: 'fake-browser-session' } })
        case 'Target.getTargetInfo':
          return reply({
            result: {
              targetInfo: {
                targetId: 'browser',
                type: 'browser',
                title: '',
                url: '',
                attached: true,
                canAccessOpener: false,
              },
            },
          })
        default:
          return reply({ result: {} })
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    wsUrl: `ws://127.0.0.1:${port}/devtools/browser/fake`,
    httpUrl: `http://127.0.0.1:${port}`,
    methods,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate()
        wss.close()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
