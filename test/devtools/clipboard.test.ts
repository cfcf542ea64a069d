/**
 * T5: the clipboard is the errand's in every world a DevTools client can make. Chromium keeps
 * one clipboard per browser process and the errands' clipboard script runs in each page's main
 * world only (docs/shared-surfaces.md). Before, errand A's client granted itself
 * `clipboardReadWrite` (`Browser.grantPermissions`), made an isolated world
 * (`Page.createIsolatedWorld`) and read there, with the native `navigator.clipboard.readText()`,
 * what errand B had just copied. Through the host's real DevTools endpoint, with
 * playwright-core as the client: the grant of clipboard reading is refused with its reason,
 * other grants are kept inside the errand, and the isolated world reads nothing of B's.
 */
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { useDevToolsHost } from './harness.ts'

const env = useDevToolsHost(1)
const browsers: Array<Browser> = []
afterAll(async () => {
  await Promise.all(browsers.map((b) => b.close().catch(() => undefined)))
})

/** Errand `key`'s page over its DevTools URL, on the fixture site, holding a focused field. */
const open = async (key: string): Promise<{ browser: Browser; page: Page }> => {
  const browser = await chromium.connectOverCDP(await env().endpoint(key))
  browsers.push(browser)
  const context = browser.contexts()[0]!
  const page = context.pages()[0] ?? (await context.newPage())
  await page.goto(env().sites[0]!.url(`/title?t=${key}`))
  await page.evaluate('document.body.innerHTML = \'<textarea id="f"></textarea>\'')
  await page.bringToFront()
  await page.focus('#f')
  return { browser, page }
}

describe("a DevTools client's own worlds and grants (T5)", () => {
  it(
    "read nothing of another errand's clipboard: a clipboard-read grant is refused, an isolated world reads " +
      'nothing',
    async () => {
      const b = await open('clip-iso-b')
      const copied = `b-copied-${Math.random().toString(36).slice(2)}`
      await b.page.fill('#f', copied)
      await b.page.focus('#f')
      await b.page.keyboard.press('Control+A')
      await b.page.keyboard.press('Control+C')

      const a = await open('clip-iso-a')
      const browserSession = await a.browser.newBrowserCDPSession()
      // Playwright's own spelling of the grant is refused, with its reason …
      await expect(a.browser.contexts()[0]!.grantPermissions(['clipboard-read', 'clipboard-write'])).rejects.toThrow(
        /clipboard/,
      )
      // … and so is the raw one, and a per-permission grant.
      await expect(
        browserSession.send('Browser.grantPermissions', { permissions: ['clipboardReadWrite'] }),
      ).rejects.toThrow(/errands share one browser's clipboard/)
      await expect(
        browserSession.send('Browser.setPermission', { permission: { name: 'clipboard-read' }, setting: 'granted' }),
      ).rejects.toThrow(/errands share one browser's clipboard/)

      const page = await a.browser.contexts()[0]!.newCDPSession(a.page)
      const { frameTree } = await page.send('Page.getFrameTree')
      const { executionContextId } = await page.send('Page.createIsolatedWorld', {
        frameId: frameTree.frame.id,
        worldName: 'reader',
        grantUniveralAccess: true,
      })
      await a.page.bringToFront()
      const read = await page.send('Runtime.evaluate', {
        expression: "navigator.clipboard.readText().then((t) => 'read: ' + t, (e) => 'refused: ' + e.name)",
        contextId: executionContextId,
        awaitPromise: true,
        userGesture: true,
      })
      expect(String(read.result.value)).not.toContain(copied)
      expect(read.result.value).toMatch(/^refused: /)

      // The copy happened: B pastes its own text back (so A's refusal means isolation).
      await b.page.fill('#f', '')
      await b.page.focus('#f')
      await b.page.keyboard.press('Control+V')
      expect(await b.page.inputValue('#f')).toBe(copied)
    },
  )

  it('keeps the grants it allows inside the errand: a write-only clipboard grant and geolocation', async () => {
    const a = await open('clip-iso-c')
    const session = await a.browser.newBrowserCDPSession()
    await session.send('Browser.grantPermissions', { permissions: ['clipboardSanitizedWrite', 'geolocation'] })
    const state = await a.page.evaluate("navigator.permissions.query({ name: 'geolocation' }).then((s) => s.state)")
    expect(state).toBe('granted')
    const other = await open('clip-iso-d')
    const elsewhere = await other.page.evaluate(
      "navigator.permissions.query({ name: 'geolocation' }).then((s) => s.state)",
    )
    expect(elsewhere).not.toBe('granted')
  })
})
