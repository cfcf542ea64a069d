/**
 * The DevTools endpoint's cost (A1): the same Playwright task — open a page, go to a fixture
 * page, read its title, set a cookie, close the page — through an errand's DevTools endpoint (the
 * proxy: one more hop per message, its checks, and the engine's own work on every page of an
 * errand: guard, scripts) and with `connectOverCDP` straight to the same Chromium (the errands'
 * browser's DevTools port) in a fresh context of its own. A second comparison isolates the hop:
 * CDP round trips on one and the same tab, through the proxy and straight. Both connections are
 * made once; the sides run interleaved in one process.
 *
 * @example
 * rows.push(...(await benchDevtools(15)))
 */
import { Effect } from 'effect'
import { chromium, type Browser, type Page } from 'playwright-core'
import { closeSites, serveSites } from '../test/fixtures/sites.ts'
import { startTestHost } from '../test/host/harness.ts'
import { interleave } from './common.ts'
import { median, type Row } from './table.ts'

const SECTION = 'devtools: open, goto, title, set cookie, close page (Playwright connectOverCDP)'
const HOP = 'devtools: one CDP round trip on the same tab (page.evaluate, median of 50 in a row)'

/**
 * Measures both sides `rounds` times.
 *
 * @example
 * const rows = await benchDevtools(15)
 */
export const benchDevtools = async (rounds: number): Promise<Row[]> => {
  const [site] = await serveSites(1)
  const host = await startTestHost()
  const browsers: Array<Browser> = []
  try {
    const url = (await host.call('bench', 'GET', '/v1/session/devtools')).body.url as string
    const contextId = host.supervisor.contextOf('session:bench')!
    const { browserUrl } = await Effect.runPromise(host.runtime.devtools!(contextId))
    const [proxied, direct] = await Promise.all([chromium.connectOverCDP(url), chromium.connectOverCDP(browserUrl)])
    browsers.push(proxied, direct)
    const onPage = async (page: Page) => {
      await page.goto(site!.url('/title?t=bench'))
      if ((await page.title()) !== 'bench') throw new Error('wrong page')
    }
    const viaProxy = async () => {
      const context = proxied.contexts()[0]!
      const page = await context.newPage()
      await onPage(page)
      await context.addCookies([{ name: 'bench', value: String(Math.random()), url: site!.origin }])
      await page.close()
    }
    // A context of its own: the errand's pages also show up straight there, and waiting for "the
    // new page" among them raced the proxy side's closing ones.
    const own = await direct.newContext({ viewport: null })
    // Like the errand (a context with no viewport emulation, as connectOverCDP's default one),
    // which keeps its first (blank) tab open between rounds.
    await own.newPage()
    const straight = async () => {
      const page = await own.newPage()
      await onPage(page)
      await own.addCookies([{ name: 'bench', value: String(Math.random()), url: site!.origin }])
      await page.close()
    }
    const times = await interleave({ direct: straight, proxy: viaProxy }, rounds, 200)
    // The hop alone: one CDP round trip (page.evaluate) on the same tab, 50 in a row.
    const tab = proxied.contexts()[0]!.pages()[0]!
    const sameTab = direct.contexts()[0]!.pages().find((p) => p.url() === tab.url())!
    const trips = (page: Page) => async () => {
      for (let i = 0; i < 50; i++) await page.evaluate('1 + 1')
    }
    const hop = await interleave({ direct: trips(sameTab), proxy: trips(tab) }, rounds, 100)
    const base = median(times['direct']!)
    const hopBase = median(hop['direct']!) / 50
    return [
      { section: SECTION, name: 'connectOverCDP straight to Chromium', median: base, ratio: 1 },
      { section: SECTION, name: "through the errand's DevTools endpoint", median: median(times['proxy']!), ratio: median(times['proxy']!) / base },
      { section: HOP, name: 'straight to Chromium', median: hopBase, ratio: 1 },
      { section: HOP, name: "through the errand's DevTools endpoint", median: median(hop['proxy']!) / 50, ratio: median(hop['proxy']!) / 50 / hopBase },
    ]
  } finally {
    await Promise.all(browsers.map((b) => b.close()))
    await host.stop()
    await closeSites([site!])
  }
}
