/**
 * Regression (found by the model suite, test/model/regressions.test.ts "issue #9", flaky under
 * load): reading a context's storage while a tab opens in it must not turn Playwright's own
 * storage-reading page into an errand tab.
 *
 * `BrowserContext.storageState()` visits origins that have no open page in a hidden page of
 * the context. Playwright (1.65) marks that page hidden with a flag on the whole context while
 * it creates it, so a `newPage()` of the same context at that moment clears the flag: the
 * storage page is announced as an ordinary page (`context.on('page')`), the runtime registered
 * it as the errand's active tab, a snapshot could record it, and it closed under whoever read it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { type Harness, spec, startRuntime } from './harness.ts'

let h: Harness
let sites: Array<Site>

beforeAll(async () => {
  sites = await serveSites(3)
  h = await startRuntime({ extra: { warmSpare: false } })
})
afterAll(async () => {
  await h?.stop()
  await closeSites(sites ?? [])
})

describe('storage reads and new tabs (runtime)', () => {
  it("a storage read while a tab opens never adds Playwright's storage page as a tab, nor a snapshot's", async () => {
    const [a, b, c] = sites as [Site, Site, Site]
    const id = await h.run(h.runtime.openContext(spec('race', { tabs: [{ url: a.url('/'), active: true }] })))
    // b and c visited, then their tabs closed: a storage read must visit them in its own page.
    for (const site of [b, c]) {
      const tab = await h.run(h.runtime.openTab(id, site.url('/')))
      await h.run(h.runtime.closeTab(id, tab.id))
    }
    const context = h.runtime.browserContextOf(id)!
    const announced: Array<string> = []
    context.on('page', (page) => announced.push(page.url()))
    const opened: Array<string> = []
    for (let round = 0; round < 12; round++) {
      const [tab, snapshot] = await Promise.all([
        h.run(h.runtime.openTab(id, 'about:blank')),
        h.run(h.runtime.snapshot(id)),
        h.run(h.runtime.storageState(id)),
      ])
      opened.push(tab.id)
      expect(snapshot.tabs.map((t) => t.url).filter((u) => u !== 'about:blank' && u !== a.url('/'))).toEqual([])
      const tabs = await h.run(h.runtime.tabs(id))
      expect(tabs.map((t) => t.url).sort()).toEqual(['about:blank', a.url('/')])
      // The tab just opened is the active one, not a storage page.
      expect(tabs.find((t) => t.active)?.id).toBe(tab.id)
      await h.run(h.runtime.closeTab(id, tab.id))
    }
    expect(announced.length).toBe(opened.length)
    await h.run(h.runtime.closeContext(id))
  })
})
