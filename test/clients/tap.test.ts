// A tap on the wire (A1, docs/devtools-endpoint.md): Playwright, Puppeteer and chrome-devtools-mcp
// run the matrix's agent task through errands of a real host, and the endpoint's own log — where
// every refusal is written, once per method and connection — shows none. The methods Chromium
// answers (`Runtime.runIfWaitingForDebugger`, `Target.getDevToolsTarget`, a browser-level
// `Page.enable`'s -32601) are answered as Chromium does; Puppeteer's browser-target session
// (`browser.target().createCDPSession()`) attaches and reaches `Errands.getFilesFolder`.
import { chromium } from 'playwright-core'
import puppeteer from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RawCdp } from '../devtools/raw.ts'
import { startTestHost } from '../host/harness.ts'
import { client as chromeDevtoolsMcp } from './chrome-devtools-mcp.ts'
import { NOT_OFFERED, serveTaskSite, STEPS, type TaskSite } from './matrix.ts'
import { client as playwrightCore } from './playwright-core.ts'
import { client as puppeteerCore } from './puppeteer-core.ts'

let host: Awaited<ReturnType<typeof startTestHost>>
let site: TaskSite

beforeAll(async () => {
  ;[host, site] = await Promise.all([startTestHost({ ERRANDS_MAX_SESSIONS: '8' }), serveTaskSite()])
})
afterAll(async () => {
  await Promise.all([host?.stop(), site?.close()])
})

const refusals = () => host.logs.filter((l) => /devtools: .* refused for /.test(l))

describe('a tap on the wire: no refusal in an ordinary run (A1)', () => {
  for (const client of [playwrightCore, puppeteerCore, chromeDevtoolsMcp]) {
    it(`${client.name}: the task works and the endpoint refused nothing`, async () => {
      const before = refusals().length
      const outcome = await client.task(await host.devtoolsUrl(`tap-${client.key}`), 'errand', site)
      for (const step of STEPS) if (!outcome[step].startsWith(NOT_OFFERED)) expect(outcome[step], step).toBe('ok')
      expect(refusals().slice(before)).toEqual([])
    })
  }

  it("Playwright's browser session: a page's domain is -32601 as in Chromium, its detach refuses nothing", async () => {
    const before = refusals().length
    const browser = await chromium.connectOverCDP(await host.devtoolsUrl('tap-browser-session'))
    try {
      const session = await browser.newBrowserCDPSession()
      await expect(session.send('Page.enable')).rejects.toThrow("'Page.enable' wasn't found")
      const { targetInfos } = await session.send('Target.getTargets')
      const page = targetInfos.find((t) => t.type === 'page')!
      // chrome-devtools-mcp asks this of every page: no DevTools window is open for it.
      expect(await session.send('Target.getDevToolsTarget' as never, { targetId: page.targetId } as never)).toEqual({})
      // Playwright sends Runtime.runIfWaitingForDebugger on the session before it detaches it.
      await session.detach()
    } finally {
      await browser.close()
    }
    expect(refusals().slice(before)).toEqual([])
  })

  it("Puppeteer's browser-target session attaches and answers Errands.getFilesFolder", async () => {
    const browser = await puppeteer.connect({ browserWSEndpoint: await host.devtoolsUrl('tap-browser-target') })
    try {
      const session = await browser.target().createCDPSession()
      const { path } = (await session.send('Errands.getFilesFolder' as never)) as { path: string }
      expect(path).toMatch(/errands-files-/)
      const version = await session.send('Browser.getVersion')
      expect(version.product).toMatch(/Chrom/)
      await session.detach()
    } finally {
      await browser.disconnect()
    }
  })

  it("attack: the browser target's session is confined as the connection; other errands' ids don't exist", async () => {
    const mine = await RawCdp.open(await host.devtoolsUrl('tap-attack-a'))
    const theirs = await RawCdp.open(await host.devtoolsUrl('tap-attack-b'))
    try {
      const { targetId: theirTab } = await theirs.newPage()
      await mine.newPage()
      await mine.send('Target.setDiscoverTargets', { discover: true, filter: [{}] })
      const browserTarget = mine.events.find(
        (e) => e.method === 'Target.targetCreated' && (e.params.targetInfo as { type: string }).type === 'browser',
      )
      expect(browserTarget).toBeDefined()
      const browserId = (browserTarget!.params.targetInfo as { targetId: string }).targetId
      expect((await mine.send('Target.attachToTarget', { targetId: browserId })).error?.message).toMatch(/flatten/)
      const attached = await mine.send('Target.attachToTarget', { targetId: browserId, flatten: true })
      const session = attached.result!.sessionId as string
      const listed = await mine.send('Target.getTargets', {}, session)
      const ids = (listed.result!.targetInfos as Array<{ targetId: string }>).map((t) => t.targetId)
      expect(ids.length).toBeGreaterThan(0)
      expect(ids).not.toContain(theirTab)
      for (const sessionId of [undefined, session]) {
        const attach = await mine.send('Target.attachToTarget', { targetId: theirTab, flatten: true }, sessionId)
        expect(attach.error?.message).toMatch(/no target with this id belongs to this errand/)
        const devtools = await mine.send('Target.getDevToolsTarget', { targetId: theirTab }, sessionId)
        const bogus = await mine.send('Target.getDevToolsTarget', { targetId: 'F'.repeat(32) }, sessionId)
        // Another errand's tab is answered exactly as a target that does not exist.
        expect(devtools.error).toEqual(bogus.error)
        expect(devtools.error?.code).toBe(-32602)
      }
      expect((await mine.send('Browser.crash', {}, session)).error?.code).toBe(-32000)
    } finally {
      mine.close()
      theirs.close()
    }
  })
})
