import type { ContextId } from '@errands/runtime'
import type { CDPSession, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { beats, beatsHeld, closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { failureOf, type Harness, spec, startRuntime, until } from './harness.ts'

// The first step of setting an errand aside (C4, docs/parking.md) on real Chromium: `freeze` stops
// every page of the context (lifecycle.ts) and `thaw` starts them again, the context, its tabs and
// all its storage untouched. A frozen page's main thread is held, so the test reads it through a
// CDP session of its own (Runtime.evaluate answers while a page is paused).

let h: Harness
let sites: Array<Site>

beforeAll(async () => {
  sites = await serveSites(2)
  h = await startRuntime()
})
afterAll(async () => {
  await h?.stop()
  await closeSites(sites ?? [])
})

/** Opens a context on `site` whose page counts on a 10 ms timer into `window.ticks`. */
const counting = async (errandId: string, site: Site): Promise<{ id: ContextId; page: Page }> => {
  const id = await h.run(h.runtime.openContext(spec(errandId, { tabs: [{ url: site.url('/'), active: true }] })))
  const [tab] = await h.run(h.runtime.tabs(id))
  const page = h.runtime.pageOf(id, tab!.id)!
  await page.waitForLoadState('load')
  await page.evaluate(() => {
    const w = window as unknown as { ticks: number }
    w.ticks = 0
    setInterval(() => w.ticks++, 10)
  })
  return { id, page }
}

const readers = new WeakMap<Page, Promise<CDPSession>>()
const ticks = async (page: Page): Promise<number> => {
  if (!readers.has(page)) readers.set(page, page.context().newCDPSession(page))
  const session = await readers.get(page)!
  const { result } = await session.send('Runtime.evaluate', { expression: 'window.ticks', returnByValue: true })
  return result.value as number
}

/** What the page's storage holds: its cookie, localStorage and an IndexedDB record, read by the page itself. */
const storageOf = (page: Page) =>
  page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((ok, no) => {
      const r = indexedDB.open('frozen', 1)
      r.onupgradeneeded = () => r.result.createObjectStore('s')
      r.onsuccess = () => ok(r.result)
      r.onerror = () => no(r.error)
    })
    const value = await new Promise((ok) => {
      const r = db.transaction('s').objectStore('s').get('k')
      r.onsuccess = () => ok(r.result)
    })
    db.close()
    return { cookie: document.cookie, local: localStorage.getItem('draft'), idb: value }
  })

describe('freeze and thaw on real Chromium', () => {
  it("a frozen page's timers stop while another context's run; thawed, they resume; storage untouched", async () => {
    const frozen = await counting('fz', sites[0]!)
    const witness = await counting('fz-witness', sites[1]!)
    await frozen.page.evaluate(async () => {
      document.cookie = 'basket=apple; path=/'
      localStorage.setItem('draft', 'a letter')
      const db = await new Promise<IDBDatabase>((ok, no) => {
        const r = indexedDB.open('frozen', 1)
        r.onupgradeneeded = () => r.result.createObjectStore('s')
        r.onsuccess = () => ok(r.result)
        r.onerror = () => no(r.error)
      })
      await new Promise((ok) => {
        const tx = db.transaction('s', 'readwrite')
        tx.objectStore('s').put({ when: new Date(5), blob: 'b'.repeat(1000) }, 'k')
        tx.oncomplete = ok
      })
      db.close()
    })
    expect(await until(async () => (await ticks(frozen.page)) > 5)).toBe(true)
    const before = await h.run(h.runtime.storageState(frozen.id))

    await h.run(h.runtime.freeze(frozen.id))
    const atFreeze = await ticks(frozen.page)
    // The witness's timer, in the same browser, runs 30 more times: the frozen one's does not run once.
    const witnessAt = await ticks(witness.page)
    expect(await until(async () => (await ticks(witness.page)) >= witnessAt + 30)).toBe(true)
    expect(await ticks(frozen.page)).toBe(atFreeze)
    // Listing the tabs reads no frozen page (its title comes from the browser's side).
    const [listed] = await h.run(h.runtime.tabs(frozen.id))
    expect(listed).toMatchObject({ url: sites[0]!.url('/'), title: 'shop' })
    // Freezing twice is freezing once.
    await h.run(h.runtime.freeze(frozen.id))
    expect(await ticks(frozen.page)).toBe(atFreeze)

    await h.run(h.runtime.thaw(frozen.id))
    expect(await until(async () => (await ticks(frozen.page)) > atFreeze + 5)).toBe(true)
    expect(await h.run(h.runtime.storageState(frozen.id))).toEqual(before)
    expect(await storageOf(frozen.page)).toEqual({
      cookie: 'basket=apple',
      local: 'a letter',
      idb: { when: new Date(5), blob: 'b'.repeat(1000) },
    })
    expect((await h.run(h.runtime.tabs(frozen.id))).map((t) => t.url)).toEqual([sites[0]!.url('/')])
    await h.run(h.runtime.closeContext(frozen.id))
    await h.run(h.runtime.closeContext(witness.id))
  })

  it('a page the frozen context opens is frozen too, and thawed with the others', async () => {
    const { id, page } = await counting('fz-new', sites[0]!)
    await h.run(h.runtime.freeze(id))
    // The page itself cannot open one while frozen: another client of the context does.
    const second = await page.context().newPage()
    const reader = await page.context().newCDPSession(second)
    await reader.send('Runtime.evaluate', { expression: 'window.ticks = 0; setInterval(() => window.ticks++, 10)' })
    readers.set(second, Promise.resolve(reader))
    const witness = await counting('fz-new-witness', sites[1]!)
    // Its freeze is on its way as it is registered: once it holds, two witness windows see no tick.
    const steady = async () => {
      const from = await ticks(second)
      const w = await ticks(witness.page)
      await until(async () => (await ticks(witness.page)) >= w + 30)
      return (await ticks(second)) === from
    }
    expect(await until(steady, 15_000, 0)).toBe(true)
    const held = await ticks(second)
    await h.run(h.runtime.thaw(id))
    expect(await until(async () => (await ticks(second)) > held + 5)).toBe(true)
    await h.run(h.runtime.closeContext(id))
    await h.run(h.runtime.closeContext(witness.id))
  })

  it("a hostile page's worker is held with it: no beacon while frozen, beacons again after the thaw", async () => {
    /** A context on `site` whose page's worker beacons to the site, beating already. */
    const beating = async (errandId: string, site: Site) => {
      const id = await h.run(
        h.runtime.openContext(spec(errandId, { tabs: [{ url: site.url('/worker-page'), active: true }] })),
      )
      expect(await until(async () => beats(site) > 5)).toBe(true)
      return id
    }
    const [hostile, other] = [sites[0]!, sites[1]!]
    const frozen = await beating('fz-worker', hostile)
    const witness = await beating('fz-worker-witness', other)
    await h.run(h.runtime.freeze(frozen))
    const held = await beatsHeld(hostile, other)
    expect(held).toBeDefined()
    await h.run(h.runtime.thaw(frozen))
    expect(await until(async () => beats(hostile) > held! + 5)).toBe(true)
    await h.run(h.runtime.closeContext(frozen))
    await h.run(h.runtime.closeContext(witness))
  })

  it('a freeze asked while a page verb waits on the page lands after the verb answered, never under it', async () => {
    // The race of the idle sweep with a verb in flight, made deterministic: the verb's page waits on
    // a request the test answers when it says. Paused under the verb, the page would never run the
    // answer's callback and the verb would wait out its deadline with nothing.
    const site = sites[0]!
    const { id, page } = await counting('fz-race', site)
    const witness = await counting('fz-race-witness', sites[1]!)
    const answer = site.hold('/echo')
    const asked = site.hits.get('/echo') ?? 0
    const order: Array<string> = []
    const verb = h
      .run(
        h.runtime.pages.read(id, {
          type: 'evaluate',
          expression: "fetch('/echo').then((r) => r.json()).then((j) => j.path + ' at ' + window.ticks)",
          limit: 1000,
        }),
      )
      .then((r) => {
        order.push('verb answered')
        return r
      })
    expect(await until(() => (site.hits.get('/echo') ?? 0) > asked)).toBe(true)
    const freezing = h.run(h.runtime.freeze(id)).then(() => order.push('frozen'))
    // The freeze waits: the page keeps running (30 more ticks of its own timer) while the verb is in flight.
    const from = await ticks(page)
    expect(await until(async () => (await ticks(page)) >= from + 30)).toBe(true)
    expect(order).toEqual([])
    answer()
    const { value, url } = await verb
    expect(value.value).toMatch(/^\/echo at \d+$/)
    expect(url).toBe(site.url('/'))
    await freezing
    expect(order).toEqual(['verb answered', 'frozen'])
    // Frozen after it: the page's timer stands while the witness's runs 30 times.
    const atFreeze = await ticks(page)
    const w = await ticks(witness.page)
    expect(await until(async () => (await ticks(witness.page)) >= w + 30)).toBe(true)
    expect(await ticks(page)).toBe(atFreeze)
    // A verb reaching the frozen context thaws it first and answers (no deadline waited out).
    const { value: now } = await h.run(
      h.runtime.pages.read(id, { type: 'evaluate', expression: 'window.ticks', limit: 100 }),
    )
    expect(now.value as number).toBeGreaterThanOrEqual(atFreeze)
    expect(await until(async () => (await ticks(page)) > atFreeze + 5)).toBe(true)
    await h.run(h.runtime.closeContext(id))
    await h.run(h.runtime.closeContext(witness.id))
  })

  it("a frozen page's compositor animation stands still, its picture too; thawed, it goes on from there", async () => {
    const { id, page } = await counting('fz-anim', sites[0]!)
    const witness = await counting('fz-anim-witness', sites[1]!)
    // A transform animation runs on the compositor's thread, which the page's pause does not reach.
    await page.evaluate(() => {
      const style = document.createElement('style')
      style.textContent =
        '@keyframes slide { from { transform: translateX(0) } to { transform: translateX(600px) } }' +
        '#slider { position: fixed; top: 0; left: 0; width: 40px; height: 40px; background: red;' +
        ' animation: slide 4s linear infinite }'
      document.head.append(style)
      const slider = document.createElement('div')
      slider.id = 'slider'
      document.body.append(slider)
    })
    await ticks(page)
    const session = await readers.get(page)!
    const progress = async () => {
      const expression = 'document.getAnimations()[0].currentTime'
      const { result } = await session.send('Runtime.evaluate', { expression, returnByValue: true })
      return result.value as number
    }
    const clip = { x: 0, y: 0, width: 700, height: 40, scale: 1 }
    const picture = async () => (await session.send('Page.captureScreenshot', { clip })).data
    expect(await until(async () => (await progress()) > 100)).toBe(true)
    const [before, startedAt] = [await progress(), Date.now()]

    await h.run(h.runtime.freeze(id))
    const frozenPicture = await picture()
    // At least a second passes (100 of the witness's 10 ms ticks): the frozen page's picture stays.
    const w = await ticks(witness.page)
    expect(await until(async () => (await ticks(witness.page)) >= w + 100)).toBe(true)
    expect(await picture()).toBe(frozenPicture)
    await h.run(h.runtime.thaw(id))
    const [after, endedAt] = [await progress(), Date.now()]

    // The animation moved by the time it was not frozen only: the frozen second is missing from it.
    expect(endedAt - startedAt - (after - before)).toBeGreaterThan(900)
    expect(await until(async () => (await progress()) > after + 100)).toBe(true)
    await h.run(h.runtime.closeContext(id))
    await h.run(h.runtime.closeContext(witness.id))
  })

  it('an unknown context is ContextNotFound, for both', async () => {
    expect((await failureOf(h.runtime.freeze('nope')))._tag).toBe('ContextNotFound')
    expect((await failureOf(h.runtime.thaw('nope')))._tag).toBe('ContextNotFound')
  })
})
