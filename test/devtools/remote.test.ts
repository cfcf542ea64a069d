// Issue #13 (A1 over R2): with ERRANDS_CDP_URL the errand's context lives in a DevTools browser
// elsewhere, and its DevTools endpoint forwards to that browser. The client sees the errand only —
// not the remote browser's own default context and tab, not another errand there — and the
// others see nothing of what it does, on the wire.
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { startTestHost, type TestHost } from '../host/harness.ts'
import { launchRemoteChromium, type RemoteChromium } from '../host/remoteBrowser.ts'
import { eventually } from '../fixtures/processes.ts'
import { RawCdp } from './raw.ts'

let remote: RemoteChromium
let host: TestHost
let sites: Array<Site>

beforeAll(async () => {
  ;[remote, sites] = await Promise.all([launchRemoteChromium(), serveSites(1)])
  host = await startTestHost({ ERRANDS_CDP_URL: remote.httpUrl })
})
afterAll(async () => {
  await host?.stop()
  await Promise.all([remote?.close(), sites ? closeSites(sites) : undefined])
})

const echoCookie = async (key: string | undefined) => {
  const site = sites[0]!
  const before = site.log.length
  const path = key === undefined ? '/v1/person/main/navigate' : '/v1/navigate'
  expect((await host.call(key, 'POST', path, { url: site.url('/echo') })).status).toBe(200)
  return site.log.slice(before).find((h) => h.path === '/echo')?.cookie ?? ''
}

describe('a DevTools endpoint of an errand in a remote DevTools browser (R2)', () => {
  it("drives exactly that errand there; the remote browser's other contexts stay out of sight", async () => {
    const site = sites[0]!
    expect((await host.call('rb', 'GET', '/v1/url')).status).toBe(200)
    const reply = await host.call('ra', 'GET', '/v1/session/devtools')
    expect(reply.status).toBe(200)
    expect(host.supervisor.contextOf('session:ra')).toMatch(/\.r\d+$/)
    const browser = await chromium.connectOverCDP(reply.body.url)
    try {
      const context = browser.contexts()[0]!
      expect(browser.contexts()).toHaveLength(1)
      const tabs = (await host.call('ra', 'GET', '/v1/tabs')).body.tabs as Array<{ url: string }>
      expect(context.pages().map((p) => p.url())).toEqual(tabs.map((t) => t.url))
      const page = await context.newPage()
      await context.addCookies([{ name: 'viaRemote', value: '1', url: site.origin }])
      await page.goto(site.url('/echo'))
      expect(site.lastCookie('/echo')).toContain('viaRemote=1')
      expect(JSON.parse(await page.locator('body').innerText()).cookie).toContain('viaRemote=1')
      await page.close()
    } finally {
      await browser.close()
    }
    expect(await echoCookie('rb')).not.toContain('viaRemote')
    expect(await echoCookie(undefined)).not.toContain('viaRemote')
  })

  it(
    'a remote errand has no files folder: a download folder a client names becomes deny, and nothing is ' + 'written',
    async () => {
      // Playwright's connectOverCDP sends Browser.setDownloadBehavior with a folder of its own while
      // it connects (above: it must connect); the remote machine's disk is not ours to name, so the
      // proxy sends `deny` with the client's events kept, never the folder.
      const cdp = await RawCdp.open((await host.call('rc', 'GET', '/v1/session/devtools')).body.url)
      try {
        const named = mkdtempSync(join(tmpdir(), 'errands-named-'))
        const set = await cdp.send('Browser.setDownloadBehavior', {
          behavior: 'allowAndName',
          downloadPath: named,
          eventsEnabled: true,
        })
        expect(set.error).toBeUndefined()
        const { sessionId } = await cdp.newPage()
        await cdp.send(
          'Runtime.evaluate',
          {
            expression:
              `const a = document.createElement('a'); a.href = URL.createObjectURL(new Blob(['x'])); ` +
              `a.download = 'r.txt'; document.body.append(a); a.click()`,
          },
          sessionId,
        )
        expect(
          await eventually(() =>
            cdp.events.some((e) => e.method === 'Browser.downloadProgress' && e.params.state === 'canceled'),
          ),
        ).toBe(true)
        expect(readdirSync(named)).toEqual([])
      } finally {
        cdp.close()
      }
    },
  )
})
