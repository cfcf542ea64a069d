/**
 * The errands' browser's DevTools port (A1). Next to Playwright's pipe, the errands' browser
 * listens for CDP on `127.0.0.1:<port>` so the engine's DevTools proxy (`@errands/devtools`) has
 * a CDP WebSocket to forward to. That port reaches every errand's context, so it is one of the
 * engine's own ports: the policy blocks it for every context (G2) and for the host's stateless
 * fetch. It is chosen before the first launch — the policy is decided once, before the main
 * browser starts — and kept across relaunches.
 *
 * @example
 * const port = await reservePort()
 * const url = await browserWebSocketUrl(port, 5_000) // 'ws://127.0.0.1:41234/devtools/browser/…'
 */
import * as net from 'node:net'

/**
 * A port that was free on 127.0.0.1 a moment ago (the OS picks it; we let it go at once).
 *
 * @example
 * const port = await reservePort()
 */
export const reservePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

/**
 * The browser target's WebSocket URL of the Chromium whose DevTools HTTP endpoint is `http`
 * (`/json/version`), within `deadlineMs`.
 *
 * @example
 * await browserWebSocketUrl('http://127.0.0.1:9222', 5_000)
 */
export const browserWebSocketUrl = async (http: string, deadlineMs: number): Promise<string> => {
  const response = await fetch(new URL('/json/version', http), { signal: AbortSignal.timeout(deadlineMs) })
  if (!response.ok) throw new Error(`the DevTools endpoint answered HTTP ${response.status}`)
  const { webSocketDebuggerUrl } = (await response.json()) as { webSocketDebuggerUrl?: unknown }
  if (typeof webSocketDebuggerUrl !== 'string' || !/^wss?:\/\//.test(webSocketDebuggerUrl)) {
    throw new Error('the DevTools endpoint names no browser WebSocket')
  }
  return webSocketDebuggerUrl
}
