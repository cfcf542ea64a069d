/**
 * The fixture shop the MCP tests drive, on a loopback address and a random port. What an agent
 * does shows on the wire, where the tests judge it:
 *
 * - `/` — the shop: a button per item (`Add apple`, `Add pear` … — a form GET to `/add`), a
 *   "Gift note" field with a Send button (a form GET to `/note`), a "Size" select whose choice
 *   shows in `#size`, a "Help" item whose hover shows `Hover help shown`, links to `/basket` and
 *   `/other`, and a `#dismiss` button that removes itself;
 * - `/add?item=x` — appends `x` to the `basket` cookie and redirects to `/`;
 * - `/note?text=T` — the note the server received, shown as `Note received: T`;
 * - `/basket` — `Basket: <items>` from the Cookie header;
 * - `/other` — a second page (tabs, back).
 *
 * Every request is logged with its path, query and the Cookie header received.
 *
 * @example
 * const shop = await serveShop()
 * shop.cookiesAt('/basket') // ['basket=apple', …]
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A running shop. @example shop.cookiesAt('/basket').at(-1) // 'basket=apple' */
export interface Shop {
  readonly origin: string
  readonly port: number
  readonly url: (path: string) => string
  readonly log: Array<{ readonly path: string; readonly query: URLSearchParams; readonly cookie: string | undefined }>
  /** Cookie headers received at `path`, in order. */
  readonly cookiesAt: (path: string) => ReadonlyArray<string | undefined>
  readonly close: () => Promise<void>
}

const html = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
const basketOf = (cookie: string | undefined) => /(?:^|;\s*)basket=([^;]*)/.exec(cookie ?? '')?.[1]

/**
 * Starts the shop on `host`.
 *
 * @example
 * const shop = await serveShop('127.0.0.3')
 */
export const serveShop = async (host = '127.0.0.1'): Promise<Shop> => {
  const log: Array<{ path: string; query: URLSearchParams; cookie: string | undefined }> = []
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    log.push({ path: url.pathname, query: url.searchParams, cookie: req.headers.cookie })
    const send = (body: string, headers: Record<string, string> = {}) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers })
      res.end(body)
    }
    switch (url.pathname) {
      case '/': {
        const items = ['apple', 'pear', 'plum']
          .map(
            (i) =>
              `<form action="/add" method="get"><input type="hidden" name="item" value="${i}"><button>Add ` +
              `${i}</button></form>`,
          )
          .join('')
        return send(
          html(
            'Shop',
            `<h1>Shop</h1>${items}
<form action="/note" method="get"><input name="text" aria-label="Gift note"><button>Send note</button></form>
<select aria-label="Size" onchange="document.getElementById('size').textContent = 'Size chosen: ' + this.value">
<option>S</option><option>M</option><option>L</option></select>
<p id="size">Size chosen: none</p>
<p><span role="button" tabindex="0"
  onmouseenter="document.getElementById('help').textContent = 'Hover help shown'">Help</span>
  <span id="help"></span></p>
<p><a href="/basket">Basket</a> <a href="/other">Other page</a></p>
<button id="dismiss" onclick="this.remove()">Dismiss offer</button>`,
          ),
        )
      }
      case '/add': {
        const basket = [basketOf(req.headers.cookie), url.searchParams.get('item') ?? 'thing'].filter(Boolean).join('.')
        res.writeHead(302, {
          location: '/',
          'set-cookie': `basket=${basket}; Path=/; SameSite=Lax`,
          'cache-control': 'no-store',
        })
        return res.end()
      }
      case '/note':
        return send(
          html('Note', `<p>Note received: ${esc(url.searchParams.get('text') ?? '')}</p><a href="/">Back to shop</a>`),
        )
      case '/basket':
        return send(html('Basket', `<p>Basket: ${esc(basketOf(req.headers.cookie) ?? 'empty')}</p>`))
      case '/other':
        return send(html('Other', '<h1>Other page</h1>'))
      default:
        res.writeHead(404, { 'content-type': 'text/plain' })
        return res.end('not found')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const port = (server.address() as AddressInfo).port
  const origin = `http://${host}:${port}`
  return {
    origin,
    port,
    url: (path) => `${origin}${path}`,
    log,
    cookiesAt: (path) => log.filter((l) => l.path === path).map((l) => l.cookie),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
