/**
 * A fixture site for the host's real-Chromium tests, on a loopback address and a random port.
 * Everything a test needs to see isolation on the page and on the wire:
 *
 * - `/page?t=T&bg=C` — title `T`, text `page T`, background colour `C`;
 * - `/big?t=T` — title `T`, text `T` in letters 160 px high (what a screencast must show);
 * - `/store?v=V` — sets cookie `basket=V` and localStorage `basket=V`;
 * - `/paste` — a focused field; the text shows `value:<what the field holds>` after each input;
 * - `/show` — text `cookie=<Cookie header the server saw> storage=<localStorage basket>`;
 * - `/input` — an input `#q` and a log `#log` of the key and mouse events the page received;
 * - `/form` — input `#q` and button `#go` that puts `clicked:<value>` into the title;
 * - `/tall` — a 6000 px page (scrolling);
 * - `/slow?ms=N` — answers after N ms (in-flight work);
 * - `/redirect?to=URL` — 302; `/probe?to=URL` — the page fetches URL, its text says how it went;
 * - `/popup` — a link `#open` with `target=_blank` to `/page?t=popup`;
 * - `/signup` — a big form (input `#q`, button `#send`) that submits `q` to `/submitted`, whose
 *   queries the fixture keeps in `submitted`; `/submitted` signs the browser in (cookie `member=q`).
 *
 * @example
 * const site = await serveFixture('127.0.0.1')
 * site.url('/page?t=a')
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A running fixture site. */
export interface Fixture {
  readonly origin: string
  readonly port: number
  readonly url: (path: string) => string
  /** Cookie headers received, by path. */
  readonly cookies: Array<{ readonly path: string; readonly cookie: string | undefined }>
  /** The `q` of every form `/signup` submitted, in order. */
  readonly submitted: string[]
  readonly close: () => Promise<void>
}

const page = (title: string, body: string, bg = 'white') =>
  `<!doctype html><html><head><meta ` +
  `charset="utf-8"><title>${title}</title><style>body{background:${bg};margin:0}</style></head>` +
  `<body>${body}</body></html>`

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * Starts the fixture on `host` (a loopback address) and a random port.
 *
 * @example
 * const a = await serveFixture('127.0.0.1'); const b = await serveFixture('127.0.0.2')
 */
export const serveFixture = async (host = '127.0.0.1'): Promise<Fixture> => {
  const cookies: Array<{ path: string; cookie: string | undefined }> = []
  const submitted: string[] = []
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    cookies.push({ path: url.pathname, cookie: req.headers.cookie })
    const html = (body: string, headers: Record<string, string> = {}) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers })
      res.end(body)
    }
    const q = (name: string) => url.searchParams.get(name) ?? ''
    switch (url.pathname) {
      case '/page':
        return html(page(esc(q('t')), `<h1>page ${esc(q('t'))}</h1>`, /^[a-z]+$/.test(q('bg')) ? q('bg') : 'white'))
      case '/big':
        return html(page(esc(q('t')), `<p style="font:bold 160px/1 sans-serif;margin:40px">${esc(q('t'))}</p>`))
      case '/store':
        return html(
          page('stored', `<p>stored</p><script>localStorage.setItem('basket', ${JSON.stringify(q('v'))})</script>`),
          {
            'set-cookie': `basket=${encodeURIComponent(q('v'))}; Path=/; SameSite=Lax`,
          },
        )
      case '/show':
        return html(
          page(
            'show',
            `<p id="out">cookie=${esc(req.headers.cookie ?? '')} ` +
              `storage=</p><script>document.getElementById('out').textContent += (localStorage.getItem('basket') ?? ` +
              `'')</script>`,
          ),
        )
      case '/input':
        return html(
          page(
            'input',
            `<input id="q"><div id="log"></div><script>
const log = document.getElementById('log')
addEventListener('keydown', (e) => { log.textContent += 'k:' + e.key + ' ' })
addEventListener('mousedown', (e) => { log.textContent += 'm:' + e.clientX + ',' + e.clientY + ' ' })
</script>`,
          ),
        )
      case '/paste':
        return html(
          page(
            'paste',
            `<textarea id="q" autofocus></textarea><p id="out">value:</p><script>
const q = document.getElementById('q')
q.addEventListener('input', () => { document.getElementById('out').textContent = 'value:' + q.value })
</script>`,
          ),
        )
      case '/form':
        return html(
          page(
            'form',
            `<input id="q"><button id="go" onclick="document.title='clicked:' + ` +
              `document.getElementById('q').value">go</button>`,
          ),
        )
      case '/tall':
        return html(page('tall', '<div style="height:6000px">tall</div>'))
      case '/slow': {
        const ms = Math.min(Number(q('ms')) || 1000, 30_000)
        setTimeout(() => html(page('slow', `<p>slow ${ms}</p>`)), ms)
        return
      }
      case '/redirect':
        res.writeHead(302, { location: q('to'), 'cache-control': 'no-store' })
        res.end()
        return
      case '/probe':
        return html(
          page(
            'probe',
            `<p id="out">probe:pending</p><script>
const out = document.getElementById('out')
fetch(${JSON.stringify(q('to'))}).then((r) => { out.textContent = 'probe:ok:' + r.status }, () => {
  out.textContent = 'probe:failed'
})
</script>`,
          ),
        )
      case '/signup':
        return html(
          page(
            'signup',
            `<form action="/submitted" method="get" style="margin:40px;font:32px sans-serif">
<input id="q" name="q" autocomplete="off" style="font:32px sans-serif;width:520px;padding:10px">
<button id="send" style="font:32px sans-serif;padding:10px 30px;margin-top:30px;display:block">Send</button></form>`,
          ),
        )
      case '/submitted':
        submitted.push(q('q'))
        // A sign-up signs in: the browser that submitted the form gets the site's cookie.
        return html(page('submitted', `<h1>thanks</h1>`), {
          'set-cookie': `member=${encodeURIComponent(q('q'))}; Path=/; SameSite=Lax`,
        })
      case '/popup':
        return html(page('popup', `<a id="open" href="/page?t=popup" target="_blank">open</a>`))
      default:
        res.writeHead(404, { 'content-type': 'text/plain' })
        res.end('not found')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const port = (server.address() as AddressInfo).port
  const origin = `http://${host}:${port}`
  return {
    origin,
    port,
    cookies,
    submitted,
    url: (path) => `${origin}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
