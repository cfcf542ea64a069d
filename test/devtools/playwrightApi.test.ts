// Issue #22 (A1): what real clients do beyond pages, through an errand's endpoint, as against a
// plain Chromium — and the same calls tried as a way out of the errand.
// - Playwright's raw CDP sessions: `context.newCDPSession(page)` and `browser.newBrowserCDPSession()`
//   send `Target.attachToBrowserTarget` first; the browser session they get is confined exactly
//   like the connection (the errand's targets only, the same refusals).
// - `context.exposeFunction()` after `route()` + `addInitScript()` with a page open: a new page
//   sees the function (it used to say `Function "hello" is not exposed`: the engine's own
//   Playwright installs the same binding global, and V8 gave the page's calls to it), and the
//   engine's own binding (its WebSocket routing, G1) still answers in the same pages.
// - Puppeteer's `page.windowId()` / `page.resize()` (Browser.getWindowForTarget on the page's
//   session, Browser.setContentsSize): on the errand's own windows only.
// - Refusals: -32601 for a method Chromium does not know, -32000 with the reason for policy; each
//   logged once per connection and method, without the URL's token.
import { chromium } from 'playwright-core'
import puppeteer from 'puppeteer-core'
import { describe, expect, it } from 'vitest'
import { eventually } from '../fixtures/processes.ts'
import { useDevToolsHost } from './harness.ts'
import { RawCdp } from './raw.ts'

const env = useDevToolsHost(1)

type Hello = { hello: (who: string) => Promise<string> }

describe('Playwright and Puppeteer APIs beyond pages, through an errand (#22)', () => {
  it(
    "context.exposeFunction() after route() and addInitScript() with a page open: new pages see it; the engine's " +
      'own binding still answers',
    async () => {
      const site = env().sites[0]!
      const browser = await chromium.connectOverCDP(await env().endpoint('expose'))
      try {
        const context = browser.contexts()[0]!
        const first = await context.newPage()
        await first.goto(site.url('/title?t=first'))
        await context.route('**/never-loaded', (route) => route.abort())
        await context.addInitScript('window.__init = 1')
        await context.exposeFunction('hello', (who: string) => `hello ${who}`)
        // Several new pages: which session installed the global last was a race.
        for (const n of [1, 2, 3]) {
          const page = await context.newPage()
          await page.goto(site.url(`/title?t=second-${n}`))
          expect(await page.evaluate((w) => (window as unknown as Hello).hello(w), `p${n}`)).toBe(`hello p${n}`)
          expect(await page.evaluate(() => (window as unknown as { __init?: number }).__init)).toBe(1)
          await page.close()
        }
        expect(await first.evaluate(() => (window as unknown as Hello).hello('a'))).toBe('hello a')
        const page = await context.newPage()
        // The engine's WebSocket routing (a binding of its own Playwright) in the same page (G1).
        await page.goto(site.url(`/ws-page?to=${encodeURIComponent(site.wsUrl)}`))
        await page.waitForFunction(() => document.title !== 'ws:pending')
        expect(await page.title()).toBe('ws:message:echo:ping')
        expect(await page.evaluate(() => (window as unknown as Hello).hello('c'))).toBe('hello c')
        // Not asserted: a popup the page opens by itself. New targets are not held for the client
        // (docs/devtools-endpoint.md, "Limits"), so its first document may load before the client's
        // init scripts, its exposeFunction wrapper among them, are in.
      } finally {
        await browser.close()
      }
    },
  )

  it(
    'newCDPSession(page) and newBrowserCDPSession() work; the browser session sees the errand only and is refused ' +
      'beyond it',
    async () => {
      const { host } = env()
      const other = await RawCdp.open(await env().endpoint('cdp-other'))
      const browser = await chromium.connectOverCDP(await env().endpoint('cdp'))
      try {
        const { targetId: foreign } = await other.newPage()
        const context = browser.contexts()[0]!
        const page = await context.newPage()
        const pageSession = await context.newCDPSession(page)
        const evaluated = await pageSession.send('Runtime.evaluate', { expression: '6 * 7', returnByValue: true })
        expect(evaluated.result.value).toBe(42)

        const session = await browser.newBrowserCDPSession()
        expect((await session.send('Browser.getVersion')).product).toMatch(/Chrome/)
        const { targetInfos } = await session.send('Target.getTargets')
        const tabs = ((await host.call('cdp', 'GET', '/v1/tabs')).body.tabs as Array<{ url: string }>).map((t) => t.url)
        expect(
          targetInfos
            .filter((t) => t.type === 'page')
            .map((t) => t.url)
            .sort(),
        ).toEqual(tabs.sort())
        expect(targetInfos.map((t) => t.targetId)).not.toContain(foreign)
        expect((await session.send('Target.getBrowserContexts')).browserContextIds).toEqual([])
        await expect(session.send('Target.attachToTarget', { targetId: foreign, flatten: true })).rejects.toThrow(
          /no target with this id belongs to this errand/,
        )
        await expect(session.send('Target.closeTarget', { targetId: foreign })).rejects.toThrow(
          /no target with this id belongs to this errand/,
        )
        await expect(session.send('Browser.crash')).rejects.toThrow(/not on the allowlist/)
        await expect(session.send('Storage.getCookies', { browserContextId: 'F'.repeat(32) })).rejects.toThrow(
          /not this errand's/,
        )
        // Its own targets: attach, drive, detach, as against Chromium.
        const mine = targetInfos.find((t) => t.type === 'page')!
        const { sessionId } = await session.send('Target.attachToTarget', { targetId: mine.targetId, flatten: true })
        expect(typeof sessionId).toBe('string')
        await session.detach()
        // The other errand's tab is still there and still works.
        expect(
          (
            await other.send(
              'Runtime.evaluate',
              { expression: '1' },
              (
                await other.send('Target.attachToTarget', { targetId: foreign, flatten: true })
              ).result!.sessionId as string,
            )
          ).error,
        ).toBeUndefined()
      } finally {
        await browser.close()
        other.close()
      }
    },
  )

  it(
    'a raw browser session: the same view of targets, -32601 for unknown methods, -32000 for policy, each refusal ' +
      'logged once',
    async () => {
      const { host } = env()
      const url = await env().endpoint('raw-bs')
      const cdp = await RawCdp.open(url)
      try {
        const attached = await cdp.send('Target.attachToBrowserTarget')
        const bs = attached.result!.sessionId as string
        expect(
          cdp.events.some(
            (e) =>
              e.method === 'Target.attachedToTarget' &&
              e.params.sessionId === bs &&
              (e.params.targetInfo as { type: string }).type === 'browser',
          ),
        ).toBe(true)
        const root = (await cdp.send('Target.getTargets')).result!.targetInfos as Array<{ targetId: string }>
        const viaSession = (await cdp.send('Target.getTargets', {}, bs)).result!.targetInfos as Array<{
          targetId: string
        }>
        expect(viaSession.map((t) => t.targetId).sort()).toEqual(root.map((t) => t.targetId).sort())
        // A tab opened through the browser session is the errand's and attaches on it.
        const created = await cdp.send('Target.createTarget', { url: 'about:blank' }, bs)
        const page = await cdp.send('Target.attachToTarget', { targetId: created.result!.targetId, flatten: true }, bs)
        const ps = page.result!.sessionId as string
        expect(
          (await cdp.send('Runtime.evaluate', { expression: '1 + 1', returnByValue: true }, ps)).result!.result,
        ).toMatchObject({ value: 2 })
        const pages = (root as Array<{ type?: string }>).filter((t) => t.type === 'page').length
        expect(
          await eventually(async () => (await host.call('raw-bs', 'GET', '/v1/tabs')).body.tabs.length === pages + 1),
        ).toBe(true)

        for (const session of [undefined, bs]) {
          const unknown = await cdp.send('Foo.bar', {}, session)
          expect(unknown.error).toEqual({ code: -32601, message: "'Foo.bar' wasn't found" })
          const policy = await cdp.send('Browser.crash', {}, session)
          expect(policy.error?.code).toBe(-32000)
          expect(policy.error?.message).toMatch(/not on the allowlist/)
        }
        expect((await cdp.send('Browser.nope', {}, ps)).error?.code).toBe(-32601)
        expect((await cdp.send('Browser.close', {}, ps)).error?.code).toBe(-32000)
        // A session's own methods Chromium does not know answer as Chromium answers them.
        expect((await cdp.send('Page.nope', {}, ps)).error?.code).toBe(-32601)

        // Logged once per connection and method, with the errand's name and the reason; no token.
        const lines = host.logs.filter((l) => l.startsWith('devtools: ') && l.includes('session:raw-bs'))
        expect(lines.filter((l) => l.startsWith('devtools: Browser.crash refused for session:raw-bs: '))).toHaveLength(
          1,
        )
        expect(lines.filter((l) => l.startsWith('devtools: Foo.bar refused for session:raw-bs: '))).toHaveLength(1)
        expect(host.logs.join('\n')).not.toContain(url.slice(url.lastIndexOf('/') + 1))

        // Detaching the browser session ends it (Chromium's detachedFromTarget), the connection goes on.
        expect((await cdp.send('Target.detachFromTarget', { sessionId: bs })).error).toBeUndefined()
        expect(cdp.events.some((e) => e.method === 'Target.detachedFromTarget' && e.params.sessionId === bs)).toBe(true)
        expect((await cdp.send('Target.getTargets', {}, bs)).error?.message).toMatch(/no session/)
        expect((await cdp.send('Browser.getVersion')).error).toBeUndefined()
      } finally {
        cdp.close()
      }
    },
  )

  it(
    "Puppeteer's page.windowId() and page.resize() work on the errand's windows; another window is " + 'refused',
    async () => {
      const other = await RawCdp.open(await env().endpoint('win-other'))
      const browser = await puppeteer.connect({ browserWSEndpoint: await env().endpoint('win'), defaultViewport: null })
      try {
        const page = await browser.newPage()
        const windowId = Number(await page.windowId())
        await page.resize({ contentWidth: 640, contentHeight: 480 })
        // The window is resized (the page itself keeps the engine's viewport emulation, 1280×720).
        const cdp = await page.createCDPSession()
        const { bounds } = await cdp.send('Browser.getWindowBounds', { windowId })
        // The contents are 640×480; the window's height has its own toolbar on top.
        expect(bounds.width).toBe(640)
        expect(bounds.height).toBeGreaterThanOrEqual(480)
        expect(bounds.height).toBeLessThan(720)

        // The other errand's window, asked through its own endpoint, is not ours to move.
        const { sessionId } = await other.newPage()
        const theirs = (await other.send('Browser.getWindowForTarget', {}, sessionId)).result!.windowId as number
        expect(theirs).not.toBe(windowId)
        await expect(
          cdp.send('Browser.setWindowBounds', { windowId: theirs, bounds: { width: 300, height: 300 } }),
        ).rejects.toThrow(/not one of this errand's/)
        await expect(
          cdp.send('Browser.setContentsSize', { windowId: theirs, width: 300, height: 300 }),
        ).rejects.toThrow(/not one of this errand's/)
        await expect(cdp.send('Browser.getWindowForTarget', { targetId: 'F'.repeat(32) })).rejects.toThrow(
          /targetId of this errand/,
        )
        expect((await other.send('Browser.getWindowBounds', { windowId: theirs })).result!.bounds).not.toMatchObject({
          width: 300,
          height: 300,
        })
      } finally {
        await browser.disconnect()
        other.close()
      }
    },
  )
})
