/**
 * The soak's fixture web server: real host names (`shop.example`, `bank.example`, `news.example`)
 * that the host's Chromium maps to 127.0.0.1 with `--host-resolver-rules`, all on one port. It is
 * the soak's witness on the wire: every request is kept with the `Cookie` header it carried and the
 * soak tag `s=<session>~<generation>.<request>` the driver puts in every URL it sends.
 *
 * Values are tagged with their owner, so a wrong one is visible in the header itself:
 * - `/signin?v=V` — cookie `sid=V` (V starts with the owner's tag), then a page;
 * - `/add?item=I` — appends I to the `basket` cookie (`<tag>.a.b.c`), the new value is computed
 *   from the Cookie header the server received, so a lost or foreign basket shows; idempotent
 *   per request tag (a restored tab reloads its URL);
 * - `/store?k=K&v=V` — a page whose script puts V into localStorage K;
 * - `/show` — text `cookie=<Cookie header> local=<localStorage items, sorted>`;
 * - `/page?t=T` — a plain page titled T.
 *
 * @example
 * const sites = await serveSoakSites()
 * sites.url('shop.example', '/signin?v=k1~0.7', 'k1~0.3')
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** Host names the soak's sites answer on. @example SITES.includes('bank.example') // true */
export const SITES = ['shop.example', 'bank.example', 'news.example'] as const

/** What `--host-resolver-rules` maps. @example `--host-resolver-rules=${SOAK_RESOLVER_RULES}` */
export const SOAK_RESOLVER_RULES = 'MAP *.example 127.0.0.1'

/** One request as the server saw it. */
export interface Hit {
  readonly at: number
  readonly host: string
  readonly path: string
  /** The driver's tag: `<session>~<generation>.<request number>`, or undefined (a page's own request). */
  readonly tag: string | undefined
  readonly cookies: ReadonlyArray<{ readonly name: string; readonly value: string }>
}

/** The running server. */
export interface SoakSites {
  readonly port: number
  readonly url: (host: string, path: string, tag: string) => string
  /** Hits since the last `drain` (the checker reads them in batches). */
  readonly drain: () => Array<Hit>
  readonly requests: () => number
  /** The basket value the server set for the `/add` request with this tag (read once). */
  readonly basketSet: (tag: string) => string | undefined
  readonly close: () => Promise<void>
}

const parseCookies = (header: string | undefined) =>
  (header ?? '')
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => {
      const i = p.indexOf('=')
      return { name: i < 0 ? p : p.slice(0, i), value: i < 0 ? '' : decodeURIComponent(p.slice(i + 1)) }
    })

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title></head><body>${body}</body></html>`

/**
 * Starts the server on 127.0.0.1 and a random port.
 *
 * @example
 * const sites = await serveSoakSites()
 */
export const serveSoakSites = async (): Promise<SoakSites> => {
  let pending: Hit[] = []
  let total = 0
  const baskets = new Map<string, string>()
  const added = new Map<string, string>()
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '')
    const url = new URL(req.url ?? '/', `http://${host}`)
    const cookies = parseCookies(req.headers.cookie)
    total++
    pending.push({ at: Date.now(), host, path: url.pathname, tag: url.searchParams.get('s') ?? undefined, cookies })
    const q = (name: string) => url.searchParams.get(name) ?? ''
    const html = (body: string, headers: Record<string, string> = {}) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers })
      res.end(body)
    }
    const cookie = (name: string, value: string) =>
      `${name}=${encodeURIComponent(value)}; Path=/; SameSite=Lax; Max-Age=86400`
    switch (url.pathname) {
      case '/signin':
        return html(page('signed in', '<p>signed in</p>'), { 'set-cookie': cookie('sid', q('v')) })
      case '/add': {
        const before = cookies.find((c) => c.name === 'basket')?.value
        const owner = q('s').split('.')[0] ?? ''
        // A reload of the same request (a tab restored on resume or heal) adds nothing again.
        const basket = added.get(q('s')) ?? `${before ?? owner}.${q('item')}`
        added.set(q('s'), basket)
        baskets.set(q('s'), basket)
        return html(page('basket', `<p>basket ${esc(basket)}</p>`), { 'set-cookie': cookie('basket', basket) })
      }
      case '/store':
        return html(
          page(
            'stored',
            `<p>stored</p><script>localStorage.setItem(${JSON.stringify(q('k'))}, ${JSON.stringify(q('v'))})</script>`,
          ),
        )
      case '/show':
        return html(
          page(
            'show',
            `<p id="out">cookie=${esc(req.headers.cookie ?? '')} local=</p><script>
const items = []
for (let i = 0; i < localStorage.length; i++) {
  const k = localStorage.key(i)
  items.push(k + ':' + localStorage.getItem(k))
}
document.getElementById('out').textContent += items.sort().join(',')
</script>`,
          ),
        )
      case '/page':
        return html(page(q('t'), `<h1>page ${esc(q('t'))}</h1>`))
      default:
        res.writeHead(404, { 'content-type': 'text/plain' })
        res.end('not found')
    }
  }
  const server = createServer(handle)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  return {
    port,
    url: (host, path, tag) =>
      `http://${host}:${port}${path}${path.includes('?') ? '&' : '?'}s=${encodeURIComponent(tag)}`,
    drain: () => {
      const out = pending
      pending = []
      return out
    },
    requests: () => total,
    basketSet: (tag) => {
      const value = baskets.get(tag)
      baskets.delete(tag)
      return value
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
