/**
 * How the runtime reads a context's storage (packages/runtime-chromium/src/storage.ts and
 * localStorageBook.ts), on real Chromium: only the origins that may have changed are read, what
 * changed is never missed, and nothing else waits for a read.
 *
 * Found by CI (features.test.ts, the clipboard): an errand that had shown twenty origins took 16 s
 * to read on a loaded machine, every storage read visited all of them one by one, and the
 * agent's "open tab" waited behind it until it timed out.
 *
 * And a regression found by the model suite (test/model/regressions.test.ts "issue #9", flaky
 * under load): reading a context's storage while a tab opens in it must not turn the read's own
 * page into an errand tab. Playwright's `storageState()`, which the runtime used then, marks its
 * storage page hidden with a flag on the whole context while it creates it, so a `newPage()` at
 * that moment cleared the flag: the storage page became the errand's active tab, a snapshot could
 * record it, and it closed under whoever read it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
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

/** The localStorage items of `origin` in a storage read of `id`. */
const itemsOf = async (id: string, origin: string) =>
  (await h.run(h.runtime.storageState(id))).origins.find((o) => o.origin === origin)?.localStorage ?? []

/** Pages the context announces while `work` runs (a read's own visit page is one). */
const pagesAnnouncedDuring = async (id: string, work: () => Promise<unknown>) => {
  const context = h.runtime.browserContextOf(id)!
  let announced = 0
  const count = () => announced++
  context.on('page', count)
  try {
    await work()
  } finally {
    context.off('page', count)
  }
  return announced
}

const write = (page: Page, value: string) => page.evaluate((v) => localStorage.setItem('k', v), value)

describe('storage reads (runtime)', () => {
  it('a new tab never waits for a storage read, even one stuck on a busy page', async () => {
    const [a, b] = sites as [Site, Site]
    const id = await h.run(h.runtime.openContext(spec('busy', { tabs: [{ url: a.url('/'), active: true }] })))
    const page = h.runtime.pageOf(id, 't1')!
    await write(page, 'a')
    // The tab's renderer blocks in a synchronous request the site holds: a read of its origin
    // (it has a document open, so it is always read) cannot finish until the test lets it go.
    const release = a.hold('/held')
    const before = a.hits.get('/held') ?? 0
    const blocked = page.evaluate(() => {
      const request = new XMLHttpRequest()
      request.open('GET', '/held', false)
      request.send()
    })
    await expect.poll(() => a.hits.get('/held') ?? 0).toBeGreaterThan(before)
    let readDone = false
    const read = h.run(h.runtime.snapshot(id)).finally(() => {
      readDone = true
    })
    const tab = await h.run(h.runtime.openTab(id, b.url('/')))
    expect(tab.url).toBe(b.url('/'))
    expect(readDone, 'the tab opened only after the read').toBe(false)
    release()
    await blocked
    const snapshot = await read
    expect(snapshot.storage.origins.find((o) => o.origin === a.origin)?.localStorage).toEqual([
      { name: 'k', value: 'a' },
    ])
    await h.run(h.runtime.closeContext(id))
  })

  it(
    'what a tab wrote before it closed is read after; an origin no document showed since is not visited ' + 'again',
    async () => {
      const [a, b] = sites as [Site, Site]
      const id = await h.run(h.runtime.openContext(spec('left', { tabs: [{ url: a.url('/'), active: true }] })))
      const tab = await h.run(h.runtime.openTab(id, b.url('/')))
      const page = h.runtime.pageOf(id, tab.id)!
      await write(page, '1')
      expect(await itemsOf(id, b.origin)).toEqual([{ name: 'k', value: '1' }])
      // Written after that read, by a document that then goes away without another navigation.
      await write(page, '2')
      await h.run(h.runtime.closeTab(id, tab.id))
      let items: unknown
      expect(
        await pagesAnnouncedDuring(id, async () => {
          items = await itemsOf(id, b.origin)
        }),
        'visited in a page of its own',
      ).toBe(1)
      expect(items).toEqual([{ name: 'k', value: '2' }])
      // Nothing of b has opened since: the next read takes it from what it knew.
      expect(
        await pagesAnnouncedDuring(id, async () => {
          items = await itemsOf(id, b.origin)
        }),
      ).toBe(0)
      expect(items).toEqual([{ name: 'k', value: '2' }])
      // A document of b again (in a frame this time) makes it read again.
      await h.runtime.pageOf(id, 't1')!.evaluate(
        (src) =>
          new Promise((done) => {
            const frame = document.createElement('iframe')
            frame.onload = done
            frame.src = src
            document.body.append(frame)
          }),
        b.url('/'),
      )
      expect(await itemsOf(id, b.origin)).toEqual([{ name: 'k', value: '2' }])
      await h.run(h.runtime.closeContext(id))
    },
  )

  it(
    'clearing an origin with no document empties it for good, and a DevTools client makes every origin read ' + 'again',
    async () => {
      const [a, b, c] = sites as [Site, Site, Site]
      const id = await h.run(h.runtime.openContext(spec('cleared', { tabs: [{ url: a.url('/'), active: true }] })))
      for (const site of [b, c]) {
        const tab = await h.run(h.runtime.openTab(id, site.url('/')))
        await write(h.runtime.pageOf(id, tab.id)!, site.origin)
        await h.run(h.runtime.closeTab(id, tab.id))
      }
      expect(await itemsOf(id, b.origin)).toEqual([{ name: 'k', value: b.origin }])
      await h.run(h.runtime.clearOrigins(id, (o) => o === b.origin))
      expect(await itemsOf(id, b.origin)).toEqual([])
      expect(await itemsOf(id, c.origin)).toEqual([{ name: 'k', value: c.origin }])

      // A client attaches and clears c out of the runtime's sight (c has no document); it leaves.
      const target = await h.run(h.runtime.devtools!(id))
      const leave = target.attach()
      const session = await h.runtime.browserContextOf(id)!.newCDPSession(h.runtime.pageOf(id, 't1')!)
      await session.send('Storage.clearDataForOrigin', { origin: c.origin, storageTypes: 'local_storage' })
      await session.detach()
      leave()
      expect(await itemsOf(id, c.origin)).toEqual([])
      await h.run(h.runtime.closeContext(id))
    },
  )

  it("a storage read while a tab opens never makes its own page a tab, nor a snapshot's", async () => {
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
    // The first read visits b and c in pages of its own: announced (they are pages), never tabs —
    // localStorage in one page for both, IndexedDB in a page per origin (indexedDb.ts, E7). Later
    // reads have nothing to visit: no document of b or c has existed since (localStorageBook.ts).
    expect(announced.length - opened.length).toBe(1 + 2)
    await h.run(h.runtime.closeContext(id))
  })
})
