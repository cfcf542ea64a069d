// Issue #22 (A1, E1): `browser.newContext()` — the first line of most Playwright scripts — through
// an errand's endpoint opens a helper errand of that errand: a context of its own (its cookies are
// not the errand's, nor another errand's, on the wire), counted like every errand, released when
// the client closes the context or disconnects. Another context id (another errand's, main's) is
// still refused, and other errands stay invisible.
import { chromium } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { eventually } from '../fixtures/processes.ts'
import { useDevToolsHost } from './harness.ts'
import { RawCdp } from './raw.ts'

const env = useDevToolsHost(1)

describe('a second browser context through an errand is a helper errand (#22, E1)', () => {
  it(
    'browser.newContext() opens a helper of the errand with cookies of its own; closing it releases the ' + 'helper',
    async () => {
      const { host, sites } = env()
      const site = sites[0]!
      const browser = await chromium.connectOverCDP(await env().endpoint('hc'))
      try {
        const errand = browser.contexts()[0]!
        await errand.addCookies([{ name: 'inErrand', value: '1', url: site.origin }])
        const helper = await browser.newContext()
        expect(browser.contexts()).toHaveLength(2)
        expect(host.supervisor.contextOf('session:hc/devtools-1')).toBeDefined()
        await helper.addCookies([{ name: 'inHelper', value: '1', url: site.origin }])
        const page = await helper.newPage()
        await page.goto(site.url('/echo'))
        const sent = site.lastCookie('/echo') ?? ''
        expect(sent).toContain('inHelper=1')
        expect(sent).not.toContain('inErrand')
        expect((await helper.cookies()).map((c) => c.name)).toEqual(['inHelper'])
        expect((await errand.cookies()).map((c) => c.name)).toEqual(['inErrand'])
        // The errand's own tabs are not the helper's, and the helper's page is not in the errand.
        expect(errand.pages().map((p) => p.url())).not.toContain(site.url('/echo'))
        expect(helper.pages()).toHaveLength(1)
        await helper.close()
        expect(await eventually(() => host.supervisor.contextOf('session:hc/devtools-1') === undefined)).toBe(true)
      } finally {
        await browser.close()
      }
      // Neither another errand nor main sends the helper's cookie.
      expect(await env().cookieSeenBy('b', 0)).not.toContain('inHelper')
      expect(await env().cookieSeenBy('main', 0)).not.toContain('inHelper')
    },
  )

  it('a helper ends with the connection, and no other context can be named', async () => {
    const { host } = env()
    const other = await RawCdp.open(await env().endpoint('hc-other'))
    const cdp = await RawCdp.open(await env().endpoint('hc2'))
    try {
      const created = await cdp.send('Target.createBrowserContext', {})
      const helperId = created.result!.browserContextId as string
      expect((await cdp.send('Target.getBrowserContexts')).result!.browserContextIds).toEqual([helperId])
      const helperConversation = [...Array(5).keys()]
        .map((i) => `session:hc2/devtools-${i + 1}`)
        .find((id) => host.supervisor.contextOf(id) !== undefined)
      expect(helperConversation).toBeDefined()
      const tab = await cdp.send('Target.createTarget', { url: 'about:blank', browserContextId: helperId })
      expect(tab.error).toBeUndefined()
      // Another errand's context id, and a made-up one, stay refused.
      const theirs = await other.send('Target.createTarget', { url: 'about:blank' })
      // Their context as the browser names it (their client sees an alias), and main's.
      const theirs2 = (await host.run(host.chromium.devtools(host.supervisor.contextOf('session:hc-other')!)))
        .browserContextId
      for (const id of [theirs2, 'F'.repeat(32)]) {
        expect(
          (await cdp.send('Target.createTarget', { url: 'about:blank', browserContextId: id })).error?.message,
        ).toMatch(/not this errand's/)
        expect((await cdp.send('Target.disposeBrowserContext', { browserContextId: id })).error?.code).toBe(-32000)
      }
      const targets = (await cdp.send('Target.getTargets')).result!.targetInfos as Array<{ targetId: string }>
      expect(targets.map((t) => t.targetId)).not.toContain(theirs.result!.targetId)
      cdp.close()
      expect(await eventually(() => host.supervisor.contextOf(helperConversation!) === undefined)).toBe(true)
      // The other errand's tab is still there.
      expect((await other.send('Target.getTargetInfo', { targetId: theirs.result!.targetId })).error).toBeUndefined()
    } finally {
      cdp.close()
      other.close()
    }
  })
})
