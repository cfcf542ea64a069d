// Issue #13 (A1): real CDP clients — playwright-core `connectOverCDP`, puppeteer-core `connect`
// and chrome-remote-interface — connect to one errand through GET /v1/session/devtools, see its
// tabs as the default context's pages, navigate, read the DOM, set a cookie, open and close a
// tab; the other errand and the person's main context see none of it on the wire (T5).
import CDP from 'chrome-remote-interface'
import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import * as http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import puppeteer from 'puppeteer-core'
import { describe, expect, it } from 'vitest'
import { eventually } from '../fixtures/processes.ts'
import { tabsOf, useDevToolsHost } from './harness.ts'

const env = useDevToolsHost(2)

/** Both others load site `i`'s /echo; neither may send `cookie`. */
const othersSendNo = async (cookie: string, i = 0) => {
  expect(await env().cookieSeenBy('b', i)).not.toContain(cookie)
  expect(await env().cookieSeenBy('main', i)).not.toContain(cookie)
}

const tabUrls = async (key: string) => (await tabsOf(env().host, key)).map((t) => t.url)

describe('a DevTools endpoint per errand, with real clients (A1)', () => {
  it("playwright-core connectOverCDP drives one errand, and its tab is the errand's (snapshots, guard)", async () => {
    const { host, sites } = env()
    const site = sites[0]!
    const url = await env().endpoint('pw')
    const browser = await chromium.connectOverCDP(url)
    try {
      // One context (the default one), holding exactly the errand's tabs.
      expect(browser.contexts()).toHaveLength(1)
      const context = browser.contexts()[0]!
      expect(context.pages().map((p) => p.url())).toEqual(await tabUrls('pw'))
      const page = await context.newPage()
      await page.goto(site.url('/title?t=via-playwright'))
      expect(await page.title()).toBe('via-playwright')
      expect(await eventually(async () => (await tabUrls('pw')).includes(site.url('/title?t=via-playwright')))).toBe(
        true,
      )

      await context.addCookies([{ name: 'viaPw', value: '1', url: site.origin }])
      await page.goto(site.url('/echo'))
      expect(JSON.parse(await page.locator('body').innerText()).cookie).toContain('viaPw=1')
      expect(site.lastCookie('/echo')).toContain('viaPw=1')
      expect((await context.cookies()).map((c) => c.name)).toEqual(['viaPw'])

      // The errand's snapshot (park, heal) has the client's tab.
      const contextId = host.supervisor.contextOf('session:pw')!
      expect((await host.run(host.runtime.snapshot(contextId))).tabs.map((t) => t.url)).toContain(site.url('/echo'))

      // The guard sees what the client's tab does (G1): the host's port is the engine's (G2). The
      // browsers have no port of their own (A4: test/devtools/noPort.test.ts).
      const reach = (url: string) =>
        page.evaluate(
          (u) =>
            fetch(u).then(
              () => 'reached',
              () => 'blocked',
            ),
          url,
        )
      expect(await reach(`${host.url}/health`)).toBe('blocked')
      expect(await reach(site.url('/title?t=ok'))).toBe('reached')
      // …and its WebSockets: one to the host's port is closed by the guard (1008), one to a site works.
      const socketTo = async (to: string) => {
        await page.goto(site.url(`/ws-page?to=${encodeURIComponent(to)}`))
        await page.waitForFunction(() => document.title !== 'ws:pending')
        return page.title()
      }
      expect(await socketTo(`ws://127.0.0.1:${host.port}/devtools/x`)).toBe('ws:closed:1008')
      expect(await socketTo(site.wsUrl)).toBe('ws:message:echo:ping')

      await page.close()
      expect(await eventually(async () => !(await tabUrls('pw')).includes(site.url('/echo')))).toBe(true)
    } finally {
      await browser.close()
    }
    await othersSendNo('viaPw')
    // L7: the URL's token is in no log line.
    expect(host.logs.some((l) => l.includes('devtools: a client connected to session:pw'))).toBe(true)
    expect(host.logs.join('\n')).not.toContain(url.slice(url.lastIndexOf('/') + 1))
    // The client's browser.close() ended its connection only: the errand goes on.
    expect((await host.call('pw', 'GET', '/v1/url')).status).toBe(200)
  })

  it('puppeteer-core connect drives one errand; its browser.close() ends only the connection', async () => {
    const { host, sites } = env()
    const site = sites[1]!
    const browser = await puppeteer.connect({ browserWSEndpoint: await env().endpoint('pp'), defaultViewport: null })
    try {
      expect(browser.browserContexts()).toHaveLength(1)
      expect((await browser.pages()).map((p) => p.url())).toEqual(await tabUrls('pp'))
      const page = await browser.newPage()
      await page.goto(site.url('/title?t=via-puppeteer'))
      expect(await page.$eval('title', (t) => t.textContent)).toBe('via-puppeteer')
      await page.setCookie({ name: 'viaPp', value: '2', url: site.origin })
      await page.goto(site.url('/echo'))
      expect(JSON.parse(await page.$eval('body', (b) => b.innerText)).cookie).toContain('viaPp=2')
      expect(site.lastCookie('/echo')).toContain('viaPp=2')
      expect(await eventually(async () => (await tabUrls('pp')).includes(site.url('/echo')))).toBe(true)
      await page.close()
      expect(await eventually(async () => !(await tabUrls('pp')).includes(site.url('/echo')))).toBe(true)
    } finally {
      await browser.close()
    }
    await othersSendNo('viaPp', 1)
    expect((await host.call('pp', 'GET', '/v1/url')).status).toBe(200)
  })

  it('chrome-remote-interface sees only the errand, drives a tab of its own, and is refused beyond it', async () => {
    const { host, sites } = env()
    const site = sites[0]!
    const client = await CDP({ target: await env().endpoint('cri'), local: true })
    try {
      const { targetInfos } = await client.send('Target.getTargets')
      expect(targetInfos.filter((t) => t.type === 'page').map((t) => t.url)).toEqual(await tabUrls('cri'))
      expect((await client.send('Target.getBrowserContexts')).browserContextIds).toEqual([])

      const { targetId } = await client.send('Target.createTarget', { url: 'about:blank' })
      const { sessionId } = await client.send('Target.attachToTarget', { targetId, flatten: true })
      await client.send('Page.enable', undefined, sessionId)
      await client.send('Network.setCookie', { name: 'viaCri', value: '3', url: site.origin }, sessionId)
      const loaded = new Promise<void>((resolve) => client.on(`Page.loadEventFired.${sessionId}`, () => resolve()))
      await client.send('Page.navigate', { url: site.url('/echo') }, sessionId)
      await loaded
      const { result } = await client.send(
        'Runtime.evaluate',
        { expression: 'document.body.innerText', returnByValue: true },
        sessionId,
      )
      expect(JSON.parse(result.value as string).cookie).toContain('viaCri=3')
      expect(await eventually(async () => (await tabUrls('cri')).includes(site.url('/echo')))).toBe(true)

      // Beyond the errand: refused, in words.
      await expect(client.send('Browser.crash')).rejects.toThrow(/not on the allowlist/)
      // A second context is a helper errand of this one (#22, E1); no other context can be disposed of.
      const { browserContextId: helper } = await client.send('Target.createBrowserContext', {})
      await expect(client.send('Target.disposeBrowserContext', { browserContextId: 'F'.repeat(32) })).rejects.toThrow(
        /only a helper context/,
      )
      await client.send('Target.disposeBrowserContext', { browserContextId: helper })
      await expect(client.send('Storage.getCookies', { browserContextId: 'F'.repeat(32) })).rejects.toThrow(
        /not this errand's/,
      )
      await expect(client.send('Page.navigate', { url: `${host.url}/health` }, sessionId)).rejects.toThrow(
        /containment policy refuses/,
      )
      await expect(client.send('Page.navigate', { url: 'file:///etc/passwd' }, sessionId)).rejects.toThrow(
        /containment policy refuses/,
      )
      // Files of the engine's machine: neither uploaded nor dropped from outside the temp folder, never from its data.
      await expect(
        client.send('DOM.setFileInputFiles', { files: ['/etc/passwd'], backendNodeId: 1 }, sessionId),
      ).rejects.toThrow(/files folder/)
      await expect(
        client.send('DOM.setFileInputFiles', { files: [`${host.dataDir}/host-token`], backendNodeId: 1 }, sessionId),
      ).rejects.toThrow(/files folder/)
      await expect(
        client.send(
          'Input.dispatchDragEvent',
          { type: 'drop', x: 1, y: 1, data: { items: [], files: ['/etc/passwd'], dragOperationsMask: 1 } },
          sessionId,
        ),
      ).rejects.toThrow(/files folder/)
      // A download folder of its own choosing is the client's view, not the errand's (Playwright names
      // one as it connects): what the page downloads lands in the errand's folder, and the client's own
      // temp folder gets its copy (test/clients/downloads.test.ts has the folders that get none).
      const named = mkdtempSync(join(tmpdir(), 'errands-named-'))
      await client.send('Page.setDownloadBehavior', { behavior: 'allow', downloadPath: named }, sessionId)
      await client.send(
        'Runtime.evaluate',
        {
          expression:
            `const a = document.createElement('a'); a.href = URL.createObjectURL(new Blob(['x'])); ` +
            `a.download = 'cri.txt'; document.body.append(a); a.click()`,
        },
        sessionId,
      )
      const folder = await host.run(host.chromium.filesDir(host.supervisor.contextOf('session:cri')!))
      expect(await eventually(() => existsSync(join(folder, 'cri.txt')))).toBe(true)
      expect(await eventually(() => readdirSync(named).includes('cri.txt'))).toBe(true)

      await client.send('Target.closeTarget', { targetId })
      expect(await eventually(async () => !(await tabUrls('cri')).includes(site.url('/echo')))).toBe(true)
    } finally {
      await client.close()
    }
    await othersSendNo('viaCri')
  })

  it("refuses a web page's upgrade, another Host, and an unknown token before touching a browser (B7)", async () => {
    const { host } = env()
    const url = new URL(await env().endpoint('guarded'))
    const status = (headers: Record<string, string>, path = url.pathname) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request({
          host: '127.0.0.1',
          port: host.port,
          path,
          headers: {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
            ...headers,
          },
        })
        req.on('response', (res) => resolve(res.statusCode ?? 0))
        req.on('upgrade', (res, socket) => (socket.destroy(), resolve(res.statusCode ?? 0)))
        req.on('error', reject)
        req.end()
      })
    expect(await status({ origin: 'http://evil.example' })).toBe(403)
    expect(await status({ host: `evil.example:${host.port}` })).toBe(421)
    expect(await status({}, `/devtools/${'x'.repeat(43)}`)).toBe(404)
    expect(await status({})).toBe(101)
  })
})
