import type { StorageState } from '@errands/runtime'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { type Harness, spec, until } from './harness.ts'
import { useSharedRuntime } from './shared.ts'

const shared = useSharedRuntime()
let h: Harness
let sites: Array<Site>

beforeAll(async () => {
  sites = await serveSites(4)
  h = shared().h
})
afterAll(async () => {
  await closeSites(sites ?? [])
})

const cookie = (site: Site, name: string, value: string) => ({
  name,
  value,
  domain: site.host,
  path: '/',
  expires: -1,
  httpOnly: false,
  secure: false,
  sameSite: 'Lax' as const,
})

const storageFor = (s: ReadonlyArray<Site>): StorageState => ({
  cookies: s.map((site, i) => cookie(site, 'basket', `item${i}`)),
  origins: s.map((site, i) => ({ origin: site.origin, localStorage: [{ name: 'basket', value: `stored${i}` }] })),
})

describe('restore (E4, H2)', () => {
  it('restores storage and 3 tabs on 3 origins, in order, the right one active, with one request per tab', async () => {
    const [a, b, c, d] = sites as [Site, Site, Site, Site]
    const hitsBefore = [a, b, c, d].map((s) => s.hits.get('/') ?? 0)
    const id = await h.run(
      h.runtime.openContext(
        spec('restore', {
          storage: storageFor([a, b, c, d]),
          tabs: [
            { url: a.url('/'), active: false },
            { url: b.url('/'), active: true },
            { url: c.url('/'), active: false },
          ],
        }),
      ),
    )
    const tabs = await h.run(h.runtime.tabs(id))
    expect(tabs.map((t) => [t.id, t.url, t.active])).toEqual([
      ['t1', a.url('/'), false],
      ['t2', b.url('/'), true],
      ['t3', c.url('/'), false],
    ])
    for (const [i, t] of tabs.entries()) {
      const page = h.runtime.pageOf(id, t.id)!
      await page.waitForLoadState('load')
      expect(await page.locator('#cookie-basket').textContent()).toBe(`item${i}`)
      expect(await page.locator('#storage-basket').textContent()).toBe(`stored${i}`)
    }
    // No navigation per origin: each site saw exactly its tab's request; d (no tab) saw none.
    expect([a, b, c, d].map((s, i) => (s.hits.get('/') ?? 0) - hitsBefore[i]!)).toEqual([1, 1, 1, 0])
    // The active tab is the visible one.
    expect(await h.runtime.pageOf(id, 't2')!.evaluate(() => document.visibilityState)).toBe('visible')

    // d was never visited, yet its storage is part of the state (a snapshot loses nothing).
    const snap = await h.run(h.runtime.snapshot(id))
    expect(snap.tabs).toEqual([
      { id: 't1', url: a.url('/'), active: false },
      { id: 't2', url: b.url('/'), active: true },
      { id: 't3', url: c.url('/'), active: false },
    ])
    expect(new Set(snap.storage.origins.map((o) => o.origin))).toEqual(new Set([a, b, c, d].map((s) => s.origin)))
    await h.run(h.runtime.closeContext(id))
  })

  it('writes an origin once, never again: a page change survives the next document', async () => {
    const [a] = sites as [Site]
    const id = await h.run(
      h.runtime.openContext(
        spec('once', {
          storage: storageFor([a]),
          tabs: [{ url: a.url('/'), active: true }],
        }),
      ),
    )
    const page = h.runtime.pageOf(id, 't1')!
    await page.evaluate(() => {
      localStorage.setItem('basket', 'changed')
      localStorage.setItem('other', '1')
    })
    await page.reload()
    expect(await page.locator('#storage-basket').textContent()).toBe('changed')
    await page.evaluate(() => localStorage.clear())
    const t2 = await h.run(h.runtime.openTab(id, a.url('/')))
    const page2 = h.runtime.pageOf(id, t2.id)!
    await page2.waitForLoadState('load')
    expect(await page2.locator('#storage-basket').textContent()).toBe('')
    // No marker of ours is left in the page's storage.
    const keys = await page2.evaluate(() => ({
      local: Object.keys(localStorage),
      session: Object.keys(sessionStorage),
    }))
    expect(keys).toEqual({ local: [], session: [] })
    await h.run(h.runtime.closeContext(id))
  })

  it('snapshots and restores losslessly; its IndexedDB beside the storage, never in it (L4, E7)', async () => {
    const [a, b] = sites as [Site, Site]
    const id = await h.run(h.runtime.openContext(spec('park', { tabs: [{ url: a.url('/signin'), active: true }] })))
    const page = h.runtime.pageOf(id, 't1')!
    await page.evaluate(async () => {
      localStorage.setItem('basket', 'kept')
      await new Promise<void>((resolve, reject) => {
        const req = indexedDB.open('secrets', 1)
        req.onupgradeneeded = () => req.result.createObjectStore('s').put('passkey-ish', 'k')
        req.onsuccess = () => {
          req.result.close()
          resolve()
        }
        req.onerror = () => reject(req.error)
      })
    })
    await h.run(h.runtime.navigate(id, 't1', a.url('/'))) // resuming must not sign in again
    await h.run(h.runtime.openTab(id, b.url('/title?t=second')))
    const snap = await h.run(h.runtime.snapshot(id))
    // What lending moves holds no IndexedDB (L4); the errand's own is kept beside it (E7).
    expect(JSON.stringify(snap.storage)).not.toMatch(/indexedDB|passkey-ish|secrets/)
    expect(snap.indexedDB?.map((o) => [o.origin, o.databases.map((d) => d.name)])).toEqual([[a.origin, ['secrets']]])
    expect(snap.storage.origins).toEqual([{ origin: a.origin, localStorage: [{ name: 'basket', value: 'kept' }] }])
    expect(snap.storage.cookies.map((c) => c.name)).toEqual(['session'])
    await h.run(h.runtime.closeContext(id))

    const resumed = await h.run(
      h.runtime.openContext(spec('park', { storage: snap.storage, tabs: snap.tabs, indexedDB: snap.indexedDB })),
    )
    const again = await h.run(h.runtime.snapshot(resumed))
    expect(again.tabs).toEqual(snap.tabs)
    expect(again.storage).toEqual(snap.storage)
    expect(again.indexedDB).toEqual(snap.indexedDB)
    await h.run(h.runtime.closeContext(resumed))
  })

  // Issue #15's soak: an errand parked to make room for another (C2) came back with its tabs
  // numbered afresh, so an agent's "t2" named another tab, or none.
  it("a reopened context keeps its tabs' ids; a new tab is numbered after them", async () => {
    const [a, b, c] = sites as [Site, Site, Site]
    const id = await h.run(
      h.runtime.openContext(
        spec('ids', {
          tabs: [
            { url: a.url('/title?t=1'), active: false },
            { url: b.url('/title?t=2'), active: false },
            { url: c.url('/title?t=3'), active: true },
          ],
        }),
      ),
    )
    await h.run(h.runtime.closeTab(id, 't1'))
    const snap = await h.run(h.runtime.snapshot(id))
    expect(snap.tabs.map((t) => t.id)).toEqual(['t2', 't3'])
    await h.run(h.runtime.closeContext(id))
    const again = await h.run(h.runtime.openContext(spec('ids', { storage: snap.storage, tabs: snap.tabs })))
    expect((await h.run(h.runtime.tabs(again))).map((t) => [t.id, t.url, t.active])).toEqual([
      ['t2', b.url('/title?t=2'), false],
      ['t3', c.url('/title?t=3'), true],
    ])
    expect((await h.run(h.runtime.openTab(again, a.url('/title?t=4')))).id).toBe('t4')
    // A record sealed before ids were kept: numbered afresh, as before.
    const old = await h.run(
      h.runtime.openContext(spec('ids-old', { tabs: snap.tabs.map(({ url, active }) => ({ url, active })) })),
    )
    expect((await h.run(h.runtime.tabs(old))).map((t) => t.id)).toEqual(['t1', 't2'])
    await h.run(h.runtime.closeContext(again))
    await h.run(h.runtime.closeContext(old))
  })

  // Issue #15's park-not-exact: a tab left on a page whose load writes state wrote its old value
  // again over a newer one when the errand was reopened (soak: a sign-in cookie back to an older
  // value, localStorage k0 back to its first value while k1 was there).
  it('reopening a tab whose page writes state on load leaves the storage as the record held it (E4, C2)', async () => {
    const [a, b] = sites as [Site, Site]
    const before = a.hits.get('/write') ?? 0
    const record: StorageState = {
      cookies: [cookie(a, 'basket', 'newer'), cookie(b, 'basket', 'b-only')],
      origins: [
        {
          origin: a.origin,
          localStorage: [
            { name: 'basket', value: 'newer' },
            { name: 'k1', value: 'later' },
          ],
        },
      ],
    }
    // Tab 1 was left on a page that wrote "older"; tab 2 moved on; tab 3 is another origin.
    const id = await h.run(
      h.runtime.openContext(
        spec('rewrite', {
          storage: record,
          tabs: [
            { url: a.url('/write?v=older'), active: false },
            { url: a.url('/title?t=moved-on'), active: true },
            { url: b.url('/title?t=b'), active: false },
          ],
        }),
      ),
    )
    // The tab really loaded again (its page wrote "older" once more) …
    expect((a.hits.get('/write') ?? 0) - before).toBe(1)
    // … and what it wrote is gone: cookies and localStorage are the record's, on the wire too.
    const state = await h.run(h.runtime.storageState(id))
    expect(state.cookies.map((c) => `${c.domain} ${c.name}=${c.value}`).sort()).toEqual([
      `${a.host} basket=newer`,
      `${b.host} basket=b-only`,
    ])
    expect(
      state.origins
        .find((o) => o.origin === a.origin)
        ?.localStorage.map((i) => `${i.name}=${i.value}`)
        .sort(),
    ).toEqual(['basket=newer', 'k1=later'])
    await h.run(h.runtime.navigate(id, 't2', a.url('/echo')))
    expect(a.lastCookie('/echo')).toBe('basket=newer')
    expect(await h.runtime.pageOf(id, 't1')!.evaluate(() => localStorage.getItem('basket'))).toBe('newer')
    // A cookie the reload added that the record did not hold goes too.
    const fresh = await h.run(
      h.runtime.openContext(
        spec('rewrite-add', {
          storage: { cookies: [], origins: [] },
          tabs: [{ url: a.url('/write?v=added'), active: true }],
        }),
      ),
    )
    expect((await h.run(h.runtime.storageState(fresh))).cookies).toEqual([])
    await h.run(h.runtime.closeContext(fresh))
    await h.run(h.runtime.closeContext(id))
  })
})

describe('storage operations', () => {
  it('adds and removes cookies and clears origins of one context only', async () => {
    const [a, b] = sites as [Site, Site]
    const x = await h.run(
      h.runtime.openContext(spec('x', { storage: storageFor([a, b]), tabs: [{ url: a.url('/'), active: true }] })),
    )
    const y = await h.run(
      h.runtime.openContext(spec('y', { storage: storageFor([a, b]), tabs: [{ url: a.url('/'), active: true }] })),
    )
    await h.run(h.runtime.addCookies(x, [cookie(a, 'extra', '1')]))
    expect((await h.run(h.runtime.storageState(x))).cookies.map((c) => c.name).sort()).toEqual([
      'basket',
      'basket',
      'extra',
    ])

    expect(await h.run(h.runtime.removeCookies(x, (c) => c.domain === a.host))).toBe(2)
    expect((await h.run(h.runtime.storageState(x))).cookies.map((c) => c.domain)).toEqual([b.host])
    expect((await h.run(h.runtime.storageState(y))).cookies).toHaveLength(2)
    await h.run(h.runtime.navigate(x, 't1', a.url('/echo')))
    expect(a.lastCookie('/echo')).toBeUndefined()

    // a is stored (visited), b still pending: both are cleared in x, neither in y.
    await h.run(h.runtime.clearOrigins(x, () => true))
    expect((await h.run(h.runtime.storageState(x))).origins).toEqual([])
    expect((await h.run(h.runtime.storageState(y))).origins.map((o) => o.origin).sort()).toEqual(
      [a.origin, b.origin].sort(),
    )
    await h.run(h.runtime.navigate(x, 't1', a.url('/')))
    expect(await h.runtime.pageOf(x, 't1')!.locator('#storage-basket').textContent()).toBe('')
    await h.run(h.runtime.navigate(x, 't1', b.url('/')))
    expect(await h.runtime.pageOf(x, 't1')!.locator('#storage-basket').textContent()).toBe('')
    await h.run(h.runtime.closeContext(x))
    await h.run(h.runtime.closeContext(y))
  })

  it('clears an origin even when the context has no tab', async () => {
    const [a] = sites as [Site]
    const id = await h.run(h.runtime.openContext(spec('notab', { tabs: [{ url: a.url('/'), active: true }] })))
    await h.runtime.pageOf(id, 't1')!.evaluate(() => localStorage.setItem('k', 'v'))
    await h.run(h.runtime.closeTab(id, 't1'))
    expect((await h.run(h.runtime.storageState(id))).origins).toHaveLength(1)
    await h.run(h.runtime.clearOrigins(id, (o) => o === a.origin))
    expect((await h.run(h.runtime.storageState(id))).origins).toEqual([])
    expect(await h.run(h.runtime.tabs(id))).toEqual([])
    expect(await until(async () => (await h.run(h.runtime.tabs(id))).length === 0)).toBe(true)
    await h.run(h.runtime.closeContext(id))
  })
})
