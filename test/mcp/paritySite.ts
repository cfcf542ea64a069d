/**
 * The fixture site of the parity test (test/mcp/parity.test.ts), on a loopback address and a
 * random port. Each page shows what the agent did, so one session script can judge Errands and
 * Playwright MCP alike by what the tools print and by what the site received:
 *
 * - `/` — title `Parity`; logs `parity loaded` (console.log) and `parity warning`
 *   (console.warn) and fetches `/api/ping?from=load`; a `Say hi` button that logs `hi clicked`
 *   and fetches `/api/ping?from=click`; an `Ask` button whose `confirm('Proceed?')` answer
 *   shows as `Answer: true|false`; a form — `Name` textbox, `Agree` checkbox, `Size` select —
 *   whose values show as `Form: <name>|<agree>|<size>` on every change; an `Attachment` file
 *   input that shows `File: <name> <text>` once a file is chosen;
 *   a `Get report` link to `/files/report.txt`;
 * - `/other` — title `Other`;
 * - `/files/report.txt` — {@link REPORT} as an attachment (a download, not a page);
 * - `/api/ping` — JSON `{"pong":true}`.
 *
 * Every request is logged with its path and query.
 *
 * @example
 * const site = await serveParitySite()
 * site.log.filter((l) => l.path === '/api/ping')
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** The bytes of `/files/report.txt`. @example REPORT // 'parity report\n' */
export const REPORT = 'parity report\n'

/** A running parity site. @example site.url('/other') */
export interface ParitySite {
  readonly origin: string
  readonly url: (path: string) => string
  readonly log: Array<{ readonly path: string; readonly query: URLSearchParams }>
  readonly close: () => Promise<void>
}

const HOME = `<!doctype html><html><head><meta charset="utf-8"><title>Parity</title></head><body>
<h1>Parity home</h1>
<button id="hi" onclick="console.log('hi clicked'); fetch('/api/ping?from=click')">Say hi</button>
<button id="ask" onclick="document.getElementById('answer').textContent = 'Answer: ' + confirm('Proceed?')">Ask</button>
<p id="answer">Answer: none</p>
<form onsubmit="return false" oninput="show()" onchange="show()">
  <label>Name <input id="name" name="name"></label>
  <label><input id="agree" type="checkbox" name="agree"> Agree</label>
  <label>Size <select id="size" name="size"><option>S</option><option>M</option><option>L</option></select></label>
  <label>Attachment <input id="file" type="file" name="file"></label>
</form>
<p id="form">Form: none</p>
<p id="filetext">File: none</p>
<a href="/other">Other page</a>
<a href="/files/report.txt">Get report</a>
<script>
  function show() {
    const v = (id) => document.getElementById(id)
    v('form').textContent = 'Form: ' + v('name').value + '|' + v('agree').checked + '|' + v('size').value
  }
  document.getElementById('file').addEventListener('change', async (e) => {
    const f = e.target.files[0]
    document.getElementById('filetext').textContent = 'File: ' + f.name + ' ' + (await f.text()).trim()
  })
  console.log('parity loaded')
  console.warn('parity warning')
  fetch('/api/ping?from=load')
</script>
</body></html>`

/**
 * Starts the site on `host`.
 *
 * @example
 * const site = await serveParitySite('127.0.0.1')
 */
export const serveParitySite = async (host = '127.0.0.1'): Promise<ParitySite> => {
  const log: Array<{ path: string; query: URLSearchParams }> = []
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    log.push({ path: url.pathname, query: url.searchParams })
    const send = (type: string, body: string) => {
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' })
      res.end(body)
    }
    switch (url.pathname) {
      case '/':
        return send('text/html; charset=utf-8', HOME)
      case '/other':
        return send(
          'text/html; charset=utf-8',
          '<!doctype html><html><head><title>Other</title></head><body><h1>Other page</h1></body></html>',
        )
      case '/files/report.txt':
        res.writeHead(200, {
          'content-type': 'text/plain',
          'content-disposition': 'attachment; filename="report.txt"',
          'cache-control': 'no-store',
        })
        return res.end(REPORT)
      case '/api/ping':
        return send('application/json', '{"pong":true}')
      default:
        res.writeHead(404, { 'content-type': 'text/plain' })
        return res.end('not found')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const origin = `http://${host}:${(server.address() as AddressInfo).port}`
  return {
    origin,
    url: (path) => `${origin}${path}`,
    log,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
