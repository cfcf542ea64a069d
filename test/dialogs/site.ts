/**
 * A site whose pages open JavaScript dialogs, for the dialog tests (#22). Each page writes the
 * dialog's outcome into its title (`answered:<value>`), so a test reads what the page got.
 *
 * - `/confirm?delay=MS` — `confirm('Sure?')` MS after load.
 * - `/prompt?delay=MS` — `prompt('Name?', 'nobody')`.
 * - `/alert?delay=MS` — `alert('Hello')`, then the title `alerted`.
 * - `/button` — a button `#b` whose click asks `confirm('Delete?')`.
 *
 * @example
 * const site = await serveDialogSite()
 * await page.goto(site.url('/confirm?delay=200'))
 * await site.close()
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** The running site. */
export interface DialogSite {
  readonly url: (path: string) => string
  readonly close: () => Promise<void>
}

const page = (script: string) =>
  `<!doctype html><html><head><title>waiting</title><link rel="icon" href="data:,"></head><body><button ` +
  `id="b">Go</button><script>${script}</script></body></html>`

const scripts: Record<string, (delay: number) => string> = {
  '/confirm': (d) => `setTimeout(function () { var r = confirm('Sure?'); document.title = 'answered:' + r }, ${d})`,
  '/prompt': (d) =>
    `setTimeout(function () { var r = prompt('Name?', 'nobody'); document.title = 'answered:' + r }, ${d})`,
  '/alert': (d) => `setTimeout(function () { alert('Hello'); document.title = 'alerted' }, ${d})`,
  '/button': () =>
    `document.getElementById('b').onclick = function () { var r = confirm('Delete?'); document.title = 'answered:' + ` +
    `r }`,
}

/**
 * Serves the dialog pages on 127.0.0.1 (a random port).
 *
 * @example
 * const site = await serveDialogSite()
 */
export const serveDialogSite = async (): Promise<DialogSite> => {
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x')
    const script = scripts[u.pathname]
    if (script === undefined) {
      res.writeHead(404).end()
      return
    }
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(page(script(Number(u.searchParams.get('delay') ?? 200))))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}
