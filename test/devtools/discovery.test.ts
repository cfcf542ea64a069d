// HTTP discovery under an errand's DevTools URL (A1, docs/devtools-endpoint.md): `/json/version`,
// `/json/list` (`/json`) and `/json/protocol` answer under `/devtools/<token>/` with that errand
// alone — its own WebSocket URL, its own targets — so `connectOverCDP('http://…')` connects. The
// attacks: another errand's targets and token never appear, a wrong or revoked token is 404, a
// web page (Origin) 403, a rebound name (Host) 421, and nothing else of the browser is listed.
import { request } from 'node:http'
import { chromium } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { useDevToolsHost } from './harness.ts'

const env = useDevToolsHost(1)

const httpOf = (wsUrl: string) => wsUrl.replace(/^ws:/, 'http:')

const get = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as any) }
}

describe("HTTP discovery under an errand's DevTools URL (A1)", () => {
  it("answers /json/version, /json/list, /json and /json/protocol with the errand's own URL and targets", async () => {
    const { host, sites } = env()
    const a = await env().endpoint('da')
    const b = await env().endpoint('db')
    const site = sites[0]!
    expect((await host.call('da', 'POST', '/v1/navigate', { url: site.url('/title?t=mine') })).status).toBe(200)
    expect((await host.call('db', 'POST', '/v1/navigate', { url: site.url('/title?t=theirs') })).status).toBe(200)

    // Playwright asks with a trailing slash, Puppeteer without.
    for (const path of ['/json/version', '/json/version/']) {
      const version = await get(`${httpOf(a)}${path}`)
      expect(version.status).toBe(200)
      expect(version.body.webSocketDebuggerUrl).toBe(a)
      expect(version.body.Browser).toMatch(/Chrom/)
      expect(version.body['Protocol-Version']).toBe('1.3')
    }

    for (const path of ['/json/list', '/json', '/json/list/']) {
      const list = await get(`${httpOf(a)}${path}`)
      expect(list.status).toBe(200)
      const urls = (list.body as Array<{ url: string }>).map((t) => t.url)
      expect(urls).toContain(site.url('/title?t=mine'))
      // Attack: nothing of the other errand, no browser or tab target, no socket but the errand's own.
      expect(urls.join(' ')).not.toContain('theirs')
      const text = JSON.stringify(list.body)
      expect(text).not.toContain(b.split('/').at(-1))
      expect(text).not.toContain('webSocketDebuggerUrl')
      expect((list.body as Array<{ type: string }>).every((t) => t.type !== 'browser' && t.type !== 'tab')).toBe(true)
    }
    const theirs = (await get(`${httpOf(b)}/json/list`)).body as Array<{ id: string; url: string }>
    const mine = (await get(`${httpOf(a)}/json/list`)).body as Array<{ id: string }>
    expect(theirs.map((t) => t.url)).toContain(site.url('/title?t=theirs'))
    expect(mine.map((t) => t.id).filter((id) => theirs.some((t) => t.id === id))).toEqual([])

    const protocol = await get(`${httpOf(a)}/json/protocol`)
    expect(protocol.status).toBe(200)
    const page = (protocol.body.domains as Array<{ domain: string; commands: Array<{ name: string }> }>).find(
      (d) => d.domain === 'Page',
    )
    expect(page?.commands.map((c) => c.name)).toContain('navigate')
  })

  it("connectOverCDP('http://…/devtools/<token>') connects into the errand and sees only its tabs", async () => {
    const { host, sites } = env()
    const url = await env().endpoint('dc')
    await env().endpoint('dd')
    expect((await host.call('dd', 'POST', '/v1/navigate', { url: sites[0]!.url('/title?t=other') })).status).toBe(200)
    const browser = await chromium.connectOverCDP(httpOf(url))
    try {
      const context = browser.contexts()[0]!
      const page = context.pages()[0] ?? (await context.newPage())
      await page.goto(sites[0]!.url('/title?t=through-http'))
      expect(await page.title()).toBe('through-http')
      expect(
        context
          .pages()
          .map((p) => p.url())
          .join(' '),
      ).not.toContain('other')
      expect((await host.call('dc', 'GET', '/v1/url')).body.url).toBe(sites[0]!.url('/title?t=through-http'))
    } finally {
      await browser.close()
    }
  })

  it('refuses a wrong or revoked token (404), a web page (403), a rebound name (421), a PUT (405)', async () => {
    const { host } = env()
    const url = await env().endpoint('de')
    const base = httpOf(url)
    const wrong = base.replace(/[^/]+$/, 'A'.repeat(43))
    expect((await get(`${wrong}/json/version`)).status).toBe(404)
    expect((await get(`${wrong}/json/list`)).body.error.code).toBe('UnknownDevToolsToken')
    // Not under a token: nothing of the browser is listed at the host's root.
    const root = new URL(base).origin
    for (const path of ['/json/version', '/json/list', '/devtools/json/version', '/devtools//json/list'])
      expect((await get(`${root}${path}`)).status).toBe(404)
    expect((await get(`${base}/json/version`, { origin: 'http://evil.example' })).status).toBe(403)
    // fetch will not send another Host: a plain request does, as a rebound DNS name would arrive.
    const rebound = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${base}/json/version`)
      request(
        { host: u.hostname, port: u.port, path: u.pathname, headers: { host: `evil.example:${u.port}` } },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        },
      )
        .on('error', reject)
        .end()
    })
    expect(rebound).toBe(421)
    expect((await fetch(`${base}/json/version`, { method: 'PUT' })).status).toBe(405)
    // Parked: the token is revoked with it.
    expect((await host.call('de', 'POST', '/v1/session/task', { status: 'interrupted' })).status).toBe(200)
    expect((await get(`${base}/json/version`)).status).toBe(404)
  })
})
