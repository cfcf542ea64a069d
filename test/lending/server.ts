/**
 * A fixture web server for the lending tests that answers on **real host names**
 * (`shop.example`, `a.shop.example`, `alice.github.io`, …) — Chromium maps them to 127.0.0.1
 * with `--host-resolver-rules` (see stack.ts) — and judges isolation on the wire: every request
 * is logged with its `Host` and the `Cookie` header received.
 *
 * Secret values are made by the server, never carried in a URL, and every one it hands out is
 * kept in `issued`, so a test can scan logs and events for all of them (L7).
 *
 * - `/signin?name=N[&domain=D]` — sets cookie `N` (host-only, or `Domain=D`) to a fresh secret and
 *   redirects to `/` (so a tab reopened on resume does not sign in again by itself).
 * - `/store?key=K` — a page whose script puts a fresh secret into localStorage `K`.
 * - `/echo?probe=P` — JSON `{ host, cookie }`; the request is logged under probe `P`.
 *
 * @example
 * const server = await serveNamedSites()
 * await page.goto(server.url('shop.example', '/signin?name=sid&domain=.shop.example'))
 * server.cookieAt('p1') // the Cookie header the request with probe p1 carried
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request as the server saw it. */
export interface Hit {
  readonly host: string
  readonly path: string
  readonly probe: string | undefined
  readonly cookie: string | undefined
}

/** The running server. */
export interface NamedSites {
  readonly port: number
  /** `http://HOST:PORT/PATH`. */
  readonly url: (host: string, path: string) => string
  readonly hits: ReadonlyArray<Hit>
  /** Every secret value handed out (cookie values and localStorage values). */
  readonly issued: ReadonlyArray<string>
  /** The cookie names the request with this probe carried, sorted (`[]` when none). */
  readonly cookieNamesAt: (probe: string) => ReadonlyArray<string>
  /** The raw Cookie header of the request with this probe. */
  readonly cookieAt: (probe: string) => string | undefined
  readonly close: () => Promise<void>
}

/**
 * Starts the server on 127.0.0.1 and a random port.
 *
 * @example
 * const server = await serveNamedSites()
 */
export const serveNamedSites = async (): Promise<NamedSites> => {
  const hits: Hit[] = []
  const issued: string[] = []
  let counter = 0
  const secret = (label: string) => {
    const value = `${label}-SECRET-${++counter}-${Math.random().toString(36).slice(2, 10)}`
    issued.push(value)
    return value
  }
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '')
    const url = new URL(req.url ?? '/', `http://${host}`)
    const probe = url.searchParams.get('probe') ?? undefined
    hits.push({ host, path: url.pathname, probe, cookie: req.headers.cookie })
    const send = (type: string, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store', ...headers })
      res.end(body)
    }
    switch (url.pathname) {
      case '/signin': {
        const name = url.searchParams.get('name') ?? 'sid'
        const domain = url.searchParams.get('domain')
        const value = secret(`${name}@${domain ?? host}`)
        res.writeHead(302, {
          location: '/',
          'cache-control': 'no-store',
          'set-cookie': `${name}=${value}; Path=/; SameSite=Lax; Max-Age=3600${domain ? `; Domain=${domain}` : ''}`,
        })
        res.end()
        return
      }
      case '/store': {
        const key = url.searchParams.get('key') ?? 'k'
        const value = secret(`ls:${key}@${host}`)
        send(
          'text/html',
          `<!doctype html><title>stored</title><script>localStorage.setItem(${JSON.stringify(key)}, ` +
            `${JSON.stringify(value)}); document.title = 'stored:done'</script>`,
        )
        return
      }
      case '/echo':
        send('application/json', JSON.stringify({ host, cookie: req.headers.cookie ?? null }))
        return
      default:
        send('text/html', `<!doctype html><title>${host}</title>`)
    }
  }
  const server = createServer(handle)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  const cookieAt = (probe: string) => hits.find((h) => h.probe === probe)?.cookie
  return {
    port,
    hits,
    issued,
    cookieAt,
    url: (host, path) => `http://${host}:${port}${path}`,
    cookieNamesAt: (probe) => {
      const hit = hits.find((h) => h.probe === probe)
      if (hit === undefined) throw new Error(`no request with probe ${probe}`)
      return (hit.cookie ?? '')
        .split(';')
        .map((p) => p.trim().split('=')[0]!)
        .filter((n) => n !== '')
        .sort()
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
