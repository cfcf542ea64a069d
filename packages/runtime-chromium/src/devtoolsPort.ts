/**
 * A loopback port for an embedder's own DevTools server (`serveDevTools` / `DevToolsServer` of
 * `@errands/devtools`): reserve it first and put it into the runtime's policy (`ownPorts`, G2)
 * so no errand's page can reach it. The engine's Chromiums themselves listen on no port at all
 * (A4, ADR 0016): the DevTools proxy rides the engine's own pipe (cdpChannel.ts).
 *
 * @example
 * const port = await reservePort()
 * const runtime = ChromiumRuntime.layer({ dataDir, policy: defaultPolicy([{ host: '127.0.0.1', port }]) })
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
