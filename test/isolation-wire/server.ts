/**
 * The fixture server of the wire-level isolation tests (T5): **one port that speaks both HTTP and
 * HTTPS** (the first byte of a connection tells: `0x16` is a TLS handshake), on real-looking host
 * names that Chromium maps to 127.0.0.1 with `--host-resolver-rules`. One port for both matters
 * for HSTS: Chromium upgrades `http://host:PORT/` to `https://host:PORT/` (the port is kept when
 * it is not 80), so the upgraded request reaches the same server, over TLS, and the server can
 * tell whether the plain-HTTP one ever arrived.
 *
 * The certificate is self-signed and made at start-up with `openssl`; {@link WireServer.spki} is
 * the base64 SHA-256 of its public key, for Chromium's `--ignore-certificate-errors-spki-list`,
 * which makes the certificate count as valid (a certificate error would make Chromium ignore
 * `Strict-Transport-Security`, and service workers refuse to register on such origins).
 *
 * Every request is logged with its scheme, host, path, `probe` query, the `Cookie` header and the
 * connection it came on (the client's port).
 *
 * - `/page?t=T` — a page titled `T`.
 * - `/set-cookie?name=N&value=V[&maxAge=S]` — `Set-Cookie` (a session cookie without `maxAge`).
 * - `/echo?probe=P` — JSON `{ cookie }`; the request is logged under probe `P`.
 * - `/cached?key=K` — `Cache-Control: max-age=3600`, body `K:<n>` where n counts hits of key K.
 * - `/hsts` — over HTTPS sends `Strict-Transport-Security: max-age=3600`; over HTTP it does not.
 * - `/sw.js` — a service worker answering `/sw-probe` itself with `from-sw`.
 * - `/sw-page` — registers `/sw.js`; title `sw:controlled` once it controls the page.
 * - `/sw-probe` — `from-network` (the server's own answer).
 * - `/shared-worker.js` — a SharedWorker that answers each message with its random id, how many
 *   pages connected to it and the value last sent to it as `{ set }` (web-storage.test.ts).
 *
 * @example
 * const server = await serveWire()
 * await page.goto(server.url('shop.wire.test', '/echo?probe=p1', 'https'))
 * server.cookieAt('p1') // the Cookie header that request carried
 * await server.close()
 */
import { execFileSync } from 'node:child_process'
import { createHash, createPublicKey } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Fixed host names (any `*.wire.test` works), all mapped to 127.0.0.1. @example server.url(HOSTS.shop, '/echo') */
export const HOSTS = { shop: 'shop.wire.test', hsts: 'hsts.wire.test' } as const

/**
 * The `--host-resolver-rules` value that sends every `*.wire.test` name to 127.0.0.1. @example
 * `--host-resolver-rules=${RESOLVER_RULES}`
 */
export const RESOLVER_RULES = 'MAP *.wire.test 127.0.0.1'

/** One request as the server saw it. @example server.hits.filter((h) => h.scheme === 'http') */
export interface WireHit {
  readonly scheme: 'http' | 'https'
  readonly host: string
  readonly path: string
  readonly probe: string | undefined
  readonly cookie: string | undefined
  /** The client's port of the TCP connection it came on: equal ports, same connection. */
  readonly connection: number | undefined
}

/** The running server. @example server.count('/sw-probe', { host: 'sw-a.wire.test' }) */
export interface WireServer {
  readonly port: number
  /** Base64 SHA-256 of the certificate's SubjectPublicKeyInfo. */
  readonly spki: string
  /** `SCHEME://HOST:PORT/PATH`. */
  readonly url: (host: string, path: string, scheme?: 'http' | 'https') => string
  readonly hits: ReadonlyArray<WireHit>
  /** How many requests matched (path without query; scheme and host when given). */
  readonly count: (path: string, where?: { readonly scheme?: 'http' | 'https'; readonly host?: string }) => number
  /** The Cookie header of the request with this probe (`''` when it carried none; undefined when it never came). */
  readonly cookieAt: (probe: string) => string | undefined
  /** How many requests for `/cached?key=K` reached the server (cache misses). */
  readonly cacheCount: (key: string) => number
  readonly close: () => Promise<void>
}

const page = (title: string, body = ''): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`

const SERVICE_WORKER = `
self.addEventListener('install', () => self.skipWaiting())
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()))
self.addEventListener('fetch', (event) => {
  if (new URL(event.request.url).pathname === '/sw-probe') event.respondWith(new Response('from-sw'))
})`

// A SharedWorker with a random id per instance, so a page can tell whether it got a running worker
// or a fresh one; `no-store`, so the server counts one fetch per worker started.
const SHARED_WORKER = `
const id = Math.random().toString(36).slice(2)
let connections = 0
let value = null
self.addEventListener('connect', (event) => {
  connections++
  const port = event.ports[0]
  port.onmessage = (message) => {
    if (message.data && 'set' in message.data) value = message.data.set
    port.postMessage({ id, connections, value })
  }
})`

const SW_PAGE = page(
  'sw:pending',
  `<script>
navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready).then(() => {
  if (navigator.serviceWorker.controller) document.title = 'sw:controlled'
  else navigator.serviceWorker.addEventListener('controllerchange', () => { document.title = 'sw:controlled' })
}, (error) => { document.title = 'sw:error:' + error.message })
</script>`,
)

/** A self-signed certificate for `*.wire.test` made with openssl; returns PEMs and the SPKI hash. */
const makeCertificate = (): { readonly key: string; readonly cert: string; readonly spki: string } => {
  const dir = mkdtempSync(join(tmpdir(), 'errands-wire-cert-'))
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=wire.test',
        '-addext',
        `subjectAltName=DNS:*.wire.test,DNS:wire.test`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    )
    const key = readFileSync(join(dir, 'key.pem'), 'utf8')
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8')
    const der = createPublicKey(cert).export({ type: 'spki', format: 'der' })
    return { key, cert, spki: createHash('sha256').update(der).digest('base64') }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Starts the server on 127.0.0.1 and a random port.
 *
 * @example
 * const server = await serveWire()
 */
export const serveWire = async (): Promise<WireServer> => {
  const { key, cert, spki } = makeCertificate()
  const hits: WireHit[] = []
  const cacheCounts = new Map<string, number>()

  const handle = (scheme: 'http' | 'https') => (req: IncomingMessage, res: ServerResponse) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '')
    const url = new URL(req.url ?? '/', `${scheme}://${req.headers.host ?? 'x'}`)
    hits.push({
      scheme,
      host,
      path: url.pathname,
      probe: url.searchParams.get('probe') ?? undefined,
      cookie: req.headers.cookie,
      connection: req.socket.remotePort,
    })
    const send = (type: string, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store', ...headers })
      res.end(body)
    }
    const q = (name: string) => url.searchParams.get(name) ?? ''
    switch (url.pathname) {
      case '/page':
        return send('text/html', page(q('t') || 'page'))
      case '/set-cookie': {
        const maxAge = q('maxAge') ? `; Max-Age=${Number(q('maxAge'))}` : ''
        return send('text/html', page('set'), {
          'set-cookie': `${q('name')}=${q('value')}; Path=/; SameSite=Lax${maxAge}`,
        })
      }
      case '/echo':
        return send('application/json', JSON.stringify({ cookie: req.headers.cookie ?? null }))
      case '/cached': {
        const n = (cacheCounts.get(q('key')) ?? 0) + 1
        cacheCounts.set(q('key'), n)
        res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'public, max-age=3600' })
        res.end(`${q('key')}:${n}`)
        return
      }
      case '/hsts':
        return send(
          'text/html',
          page(`hsts:${scheme}`),
          scheme === 'https' ? { 'strict-transport-security': 'max-age=3600' } : {},
        )
      case '/sw.js':
        return send('text/javascript', SERVICE_WORKER)
      case '/sw-page':
        return send('text/html', SW_PAGE)
      case '/sw-probe':
        return send('text/plain', 'from-network')
      case '/shared-worker.js':
        return send('text/javascript', SHARED_WORKER)
      default:
        res.writeHead(404, { 'content-type': 'text/plain' })
        res.end('not found')
    }
  }

  const http = createHttpServer(handle('http'))
  const https = createHttpsServer({ key, cert }, handle('https'))
  // Idle keep-alive connections stay open for a minute, not Node's 5 s: the connection tests
  // expect a context's next request on a connection it opened, and a loaded machine can take
  // longer than 5 s between two requests (the server would close it, and a new one be opened).
  http.keepAliveTimeout = https.keepAliveTimeout = 60_000
  const sockets = new Set<Socket>()
  // Peek at the first byte and hand the connection to the HTTPS or the HTTP server.
  const door = createNetServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.once('data', (first: Buffer) => {
      socket.pause()
      socket.unshift(first)
      ;(first[0] === 0x16 ? https : http).emit('connection', socket)
      process.nextTick(() => socket.resume())
    })
  })
  await new Promise<void>((resolve, reject) => {
    door.once('error', reject)
    door.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (door.address() as AddressInfo).port

  return {
    port,
    spki,
    hits,
    url: (host, path, scheme = 'http') => `${scheme}://${host}:${port}${path}`,
    count: (path, where = {}) =>
      hits.filter(
        (h) =>
          h.path === path &&
          (where.scheme === undefined || h.scheme === where.scheme) &&
          (where.host === undefined || h.host === where.host),
      ).length,
    cookieAt: (probe) => {
      const hit = hits.find((h) => h.probe === probe)
      return hit === undefined ? undefined : (hit.cookie ?? '')
    },
    cacheCount: (cacheKey) => cacheCounts.get(cacheKey) ?? 0,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      http.closeAllConnections()
      https.closeAllConnections()
      await new Promise<void>((resolve) => door.close(() => resolve()))
    },
  }
}
