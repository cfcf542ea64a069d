/**
 * The sign-in sites of the passwords tests (W2, W3), on **real host names** (Chromium maps them
 * to 127.0.0.1 with `--host-resolver-rules`): one server on one port answers by `Host`.
 *
 * - `shop.example` (and any host name, so a look-alike serves the same pages):
 *   `/login` — a form posted to `/session`; `/api-login` — a form whose script sends JSON with
 *   `fetch`; `/totp` — a form with a one-time code, its code checked with `otpauth` at `/session`;
 *   `/frame` — the login form inside an iframe of `evil.test`; `/bounce` — a 307 to `?to=`.
 * - Every request is kept (`hits`): host, method, path with query, body, and the upgrade
 *   requests of WebSockets — the wire as a site sees it.
 *
 * @example
 * const site = await serveSignInSites({ password: 'pw', totp: 'JBSWY3DPEHPK3PXP' })
 * site.url('shop.example', '/login') // 'http://shop.example:PORT/login'
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Secret, TOTP } from 'otpauth'

/** One request as a site received it. */
export interface Hit {
  readonly host: string
  readonly method: string
  /** Path and query. */
  readonly path: string
  readonly body: string
}

const form = (action: string, fields: string, script = '') => `<!doctype html><title>Sign in</title>
<form id="f" method="post" action="${action}">
  <input id="user" name="user" autocomplete="username" aria-label="User">
  <input id="pass" name="pass" type="password" autocomplete="current-password" aria-label="Password">
  ${fields}
  <button id="go" type="submit">Sign in</button>
</form><p id="out"></p>${script}`

const API_SCRIPT = `<script>
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault()
  const value = (id) => document.getElementById(id).value
  const body = JSON.stringify({ user: value('user'), pass: value('pass') })
  const r = await fetch('/api/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  document.getElementById('out').textContent = (await r.json()).ok ? 'welcome' : 'refused'
  document.title = document.getElementById('out').textContent
})
</script>`

/**
 * Starts the sites on 127.0.0.1 and a random port.
 *
 * @example
 * const site = await serveSignInSites({ password, totp })
 */
export const serveSignInSites = async (secrets: { readonly password: string; readonly totp: string }) => {
  const hits: Array<Hit> = []
  const totp = new TOTP({ secret: Secret.fromBase32(secrets.totp) })
  const page = (title: string) => `<!doctype html><title>${title}</title><p>${title}</p>`
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = ''
      req.setEncoding('utf8')
      req.on('data', (d: string) => (body += d))
      req.on('end', () => resolve(body))
    })
  const server = createServer(async (req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '')
    const url = new URL(req.url ?? '/', `http://${host}`)
    const body = await read(req)
    hits.push({ host, method: req.method ?? 'GET', path: url.pathname + url.search, body })
    const html = (text: string) =>
      res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' }).end(text)
    switch (url.pathname) {
      case '/login':
        return html(form('/session', ''))
      case '/api-login':
        return html(form('/session', '', API_SCRIPT))
      case '/totp':
        return html(form('/session', '<input id="code" name="code" inputmode="numeric" maxlength="6">'))
      case '/frame':
        return html(`<!doctype html><title>framed</title><iframe src="http://evil.test:${port()}/login"></iframe>`)
      case '/session': {
        const f = new URLSearchParams(body)
        const codeOk = !f.has('code') || totp.validate({ token: f.get('code') ?? '', window: 1 }) !== null
        return html(page(f.get('pass') === secrets.password && codeOk ? 'welcome' : 'refused'))
      }
      case '/api/session': {
        let ok = false
        try {
          ok = (JSON.parse(body) as { pass?: unknown }).pass === secrets.password
        } catch {}
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok }))
      }
      case '/bounce':
        return res.writeHead(307, { location: url.searchParams.get('to') ?? '/' }).end()
      default:
        // Anything else (the exfiltration targets): 200 with CORS open, so a page's fetch completes.
        return res
          .writeHead(200, {
            'access-control-allow-origin': '*',
            'content-type': 'text/plain',
            'cache-control': 'no-store',
          })
          .end('ok')
    }
  })
  // A WebSocket's opening request is a site's too (its URL carries what the page put there).
  server.on('upgrade', (req, socket) => {
    hits.push({
      host: (req.headers.host ?? '').replace(/:\d+$/, ''),
      method: 'UPGRADE',
      path: req.url ?? '/',
      body: '',
    })
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const port = () => (server.address() as AddressInfo).port
  return {
    port: port(),
    hits,
    url: (host: string, path: string) => `http://${host}:${port()}${path}`,
    /** Every hit on `host`. */
    at: (host: string) => hits.filter((h) => h.host === host),
    close: async () => {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    },
  }
}

/** The running sites. */
export type SignInSites = Awaited<ReturnType<typeof serveSignInSites>>
