import type { TabInfo } from '@errands/runtime'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { failureOf, type Harness, spec, until } from './harness.ts'
import { useSharedRuntime } from './shared.ts'

const shared = useSharedRuntime()
let h: Harness
let sites: Array<Site>
let shop: Site

beforeAll(async () => {
  sites = await serveSites(2)
  shop = sites[0]!
  h = shared().h
})
afterAll(async () => {
  await closeSites(sites ?? [])
})

const text = async (contextId: string, tabId: string, selector: string) =>
  h.runtime.pageOf(contextId, tabId)!.locator(selector).textContent()

describe('isolation between contexts (E1, T5)', () => {
  it('never shares cookies, localStorage or tabs between two errands or with main', async () => {
    const a = await h.run(h.runtime.openContext(spec('a')))
    const b = await h.run(h.runtime.openContext(spec('b')))
    const [ta] = await h.run(h.runtime.tabs(a))
    await h.run(h.runtime.navigate(a, ta!.id, shop.url('/signin')))
    await h.run(h.runtime.navigate(a, ta!.id, shop.url('/add?item=apple')))
    await h.runtime.pageOf(a, ta!.id)!.evaluate(() => localStorage.setItem('basket', 'pear'))

    // On the wire: the fixture server sees a's cookies from a only.
    const [tb] = await h.run(h.runtime.tabs(b))
    await h.run(h.runtime.navigate(b, tb!.id, shop.url('/echo')))
    expect(shop.lastCookie('/echo')).toBeUndefined()
    await h.run(h.runtime.navigate(a, ta!.id, shop.url('/echo')))
    expect(shop.lastCookie('/echo')).toMatch(/session=s3cr3t/)
    const [tm] = await h.run(h.runtime.tabs('main'))
    await h.run(h.runtime.navigate('main', tm!.id, shop.url('/echo')))
    expect(shop.lastCookie('/echo')).toBeUndefined()

    await h.run(h.runtime.navigate(b, tb!.id, shop.url('/')))
    expect(await text(b, tb!.id, '#storage-basket')).toBe('')
    expect(await text(b, tb!.id, '#cookie-basket')).toBe('')

    const stateA = await h.run(h.runtime.storageState(a))
    const stateB = await h.run(h.runtime.storageState(b))
    const stateMain = await h.run(h.runtime.storageState('main'))
    expect(stateA.cookies.map((c) => c.name).sort()).toEqual(['basket', 'session'])
    expect(stateA.origins).toEqual([{ origin: shop.origin, localStorage: [{ name: 'basket', value: 'pear' }] }])
    expect(stateB).toEqual({ cookies: [], origins: [] })
    expect(stateMain).toEqual({ cookies: [], origins: [] })

    await h.run(h.runtime.openTab(a, shop.url('/title?t=second')))
    expect((await h.run(h.runtime.tabs(a))).length).toBe(2)
    expect((await h.run(h.runtime.tabs(b))).length).toBe(1)
    await h.run(h.runtime.closeContext(a))
    await h.run(h.runtime.closeContext(b))
  })
})

describe('tabs', () => {
  it('keeps stable ids, decides the active tab, and carries the session label (E6)', async () => {
    const id = await h.run(
      h.runtime.openContext({ errandId: 'tabs', label: { reason: 'helper', lentSites: ['z.example', 'a.example'] } }),
    )
    const ids = (tabs: ReadonlyArray<TabInfo>) => tabs.map((t) => `${t.id}${t.active ? '*' : ''}`)
    expect(ids(await h.run(h.runtime.tabs(id)))).toEqual(['t1*'])
    const t2 = await h.run(h.runtime.openTab(id, shop.url('/title?t=two')))
    expect(t2).toMatchObject({
      id: 't2',
      active: true,
      title: 'two',
      session: { reason: 'helper', lentSites: ['a.example', 'z.example'] },
    })
    await h.run(h.runtime.openTab(id, shop.url('/title?t=three')))
    await h.run(h.runtime.activateTab(id, 't2'))
    expect(ids(await h.run(h.runtime.tabs(id)))).toEqual(['t1', 't2*', 't3'])
    await h.run(h.runtime.closeTab(id, 't2'))
    expect(ids(await h.run(h.runtime.tabs(id)))).toEqual(['t1', 't3*'])
    await h.run(h.runtime.closeTab(id, 't2')) // idempotent
    const nav = await h.run(h.runtime.navigate(id, 't1', shop.url('/title?t=moved')))
    expect(nav).toMatchObject({ id: 't1', title: 'moved', active: false, url: shop.url('/title?t=moved') })
    await h.run(h.runtime.setLabel(id, { reason: 'task', lentSites: ['b.example'] }))
    expect((await h.run(h.runtime.tabs(id))).every((t) => t.session.lentSites[0] === 'b.example')).toBe(true)
    await h.run(h.runtime.closeTab(id, 't1'))
    await h.run(h.runtime.closeTab(id, 't3'))
    expect(await h.run(h.runtime.tabs(id))).toEqual([])
    expect(await h.run(h.runtime.isOpen(id))).toBe(true) // closing the last tab leaves the context
    const t4 = await h.run(h.runtime.openTab(id, 'about:blank'))
    expect(t4).toMatchObject({ id: 't4', active: true })
    expect(await failureOf(h.runtime.activateTab(id, 't9'))).toMatchObject({ _tag: 'RuntimeError', reason: 'invalid' })
    await h.run(h.runtime.closeContext(id))
  })

  it('reports the title of a document that commits before its title arrives', async () => {
    // The head commits the document; the title comes 300 ms later. Answering at commit said "".
    const late = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.write(`<!doctype html><html><head><meta charset="utf-8">${' '.repeat(2048)}`)
      setTimeout(() => res.end('<title>late</title></head><body>late</body></html>'), 300)
    })
    await new Promise<void>((resolve) => late.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(late.address() as AddressInfo).port}/`
    try {
      const id = await h.run(h.runtime.openContext(spec('late-title')))
      expect(await h.run(h.runtime.navigate(id, 't1', url))).toMatchObject({ title: 'late' })
      expect(await h.run(h.runtime.openTab(id, url))).toMatchObject({ title: 'late' })
      await h.run(h.runtime.closeContext(id))
    } finally {
      late.closeAllConnections()
      await new Promise((resolve) => late.close(resolve))
    }
  })

  it('turns a popup into an active tab', async () => {
    const id = await h.run(
      h.runtime.openContext(spec('popup', { tabs: [{ url: shop.url('/title?t=opener'), active: true }] })),
    )
    await h.runtime.pageOf(id, 't1')!.evaluate((u) => window.open(u), shop.url('/title?t=popup'))
    expect(await until(async () => (await h.run(h.runtime.tabs(id))).length === 2)).toBe(true)
    const tabs = await h.run(h.runtime.tabs(id))
    expect(tabs.map((t) => [t.id, t.active])).toEqual([
      ['t1', false],
      ['t2', true],
    ])
    await h.run(h.runtime.closeContext(id))
  })

  it('reports PageLoaded for each main-frame load, with context and tab', async () => {
    const before = h.events.length
    const id = await h.run(h.runtime.openContext(spec('loads')))
    await h.run(h.runtime.navigate(id, 't1', shop.url('/title?t=x')))
    await h.run(h.runtime.navigate('main', (await h.run(h.runtime.tabs('main')))[0]!.id, shop.url('/title?t=y')))
    expect(
      await until(
        () =>
          h.events.slice(before).some((e) => e._tag === 'PageLoaded' && e.contextId === id && e.tabId === 't1') &&
          h.events.slice(before).some((e) => e._tag === 'PageLoaded' && e.contextId === 'main'),
      ),
    ).toBe(true)
    await h.run(h.runtime.closeContext(id))
  })
})

describe('closing', () => {
  it('is idempotent and forgets the context', async () => {
    const id = await h.run(h.runtime.openContext(spec('close')))
    await h.run(h.runtime.closeContext(id))
    await h.run(h.runtime.closeContext(id))
    await h.run(h.runtime.closeContext('never-opened'))
    expect(await h.run(h.runtime.isOpen(id))).toBe(false)
    expect(await failureOf(h.runtime.tabs(id))).toMatchObject({ _tag: 'ContextNotFound', contextId: id })
    await h.run(h.runtime.closeContext('main')) // main lives as long as the runtime
    expect(await h.run(h.runtime.isOpen('main'))).toBe(true)
  })
  it('maps a failed navigation to a RuntimeError without the query', async () => {
    const id = await h.run(h.runtime.openContext(spec('fail')))
    const dead = `http://127.0.0.1:9/x?token=S3CR3T`
    const failure = await failureOf(h.runtime.navigate(id, 't1', dead))
    expect(failure).toMatchObject({ _tag: 'RuntimeError', reason: 'unavailable' })
    expect(String((failure as { message: string }).message)).not.toContain('S3CR3T')
    await h.run(h.runtime.closeContext(id))
  })
})
