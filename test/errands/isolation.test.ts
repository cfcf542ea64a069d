import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { seen, startEngine, type Engine } from './harness.ts'

// Issue 3, on real Chromium: errands are apart from each other and from the main context.
let shop: Site
let engine: Engine

beforeAll(async () => {
  ;[shop] = (await serveSites(1)) as [Site]
  engine = await startEngine({ maxErrands: 4 })
})
afterAll(async () => {
  await engine?.stop()
  await closeSites([shop])
})

const addToBasket = async (contextId: string, item: string) => {
  const page = await engine.newPage(contextId, shop.url('/signin'))
  await page.goto(shop.url(`/add?item=${item}`))
  await page.evaluate((i) => localStorage.setItem('basket', i), item)
  return page
}

describe('errands on real Chromium (E1–E3)', () => {
  it(
    'two parallel tasks fill one shop basket each: each sees only its own; signing out one leaves the other; no ' +
      'shared tabs; a chat on main sees neither',
    async () => {
      const { supervisor } = engine
      const [a, b] = await Promise.all([
        engine.run(supervisor.open({ id: 'compare-a', kind: 'task' })),
        engine.run(supervisor.open({ id: 'compare-b', kind: 'task', helper: true })),
      ])
      expect(a.contextId).not.toBe(b.contextId)
      const [pageA, pageB] = await Promise.all([addToBasket(a.contextId, 'apple'), addToBasket(b.contextId, 'pear')])

      const seenA = await seen(pageA, shop.url('/echo'))
      const seenB = await seen(pageB, shop.url('/echo'))
      expect(seenA.cookie).toContain('basket=apple')
      expect(seenA.cookie).not.toContain('pear')
      expect(seenA.localBasket).toBe('apple')
      expect(seenB.cookie).toContain('basket=pear')
      expect(seenB.cookie).not.toContain('apple')
      expect(seenB.localBasket).toBe('pear')

      await pageA.goto(shop.url('/signout'))
      expect((await seen(pageA, shop.url('/echo'))).cookie).not.toContain('session=')
      expect((await seen(pageB, shop.url('/echo'))).cookie).toContain('session=')

      const tabsA = await engine.run(engine.chromium.tabs(a.contextId))
      const tabsB = await engine.run(engine.chromium.tabs(b.contextId))
      expect(tabsA.every((t) => t.session.reason === 'task')).toBe(true)
      expect(tabsB.every((t) => t.session.reason === 'helper')).toBe(true)
      const pagesA = new Set(tabsA.map((t) => engine.chromium.pageOf(a.contextId, t.id)))
      for (const t of tabsB) expect(pagesA.has(engine.chromium.pageOf(b.contextId, t.id))).toBe(false)

      const chat = await engine.run(supervisor.open({ id: 'chat-1', kind: 'chat' }))
      expect(chat.isolated).toBe(false)
      const mainPage = await engine.newPage(chat.contextId, shop.url('/'))
      const mainSeen = await seen(mainPage, shop.url('/echo'))
      expect(mainSeen.cookie).toBe('')
      expect(mainSeen.localBasket).toBeNull()
      await mainPage.close()
    },
  )

  it(
    "a chat toggled to its own context loses the main context's cookies, and gets them back when toggled off " + '(E2)',
    async () => {
      const { supervisor } = engine
      const chat = await engine.run(supervisor.open({ id: 'chat-2', kind: 'chat' }))
      const mainPage = await engine.newPage(chat.contextId, shop.url('/signin')) // the person signs in on main
      expect((await seen(mainPage, shop.url('/echo'))).cookie).toContain('session=')

      await engine.run(supervisor.setOwnBrowser('chat-2', true))
      const own = await engine.run(
        supervisor.use('chat-2', (binding) => engine.chromium.openTab(binding.contextId, shop.url('/echo'))),
      )
      const ownContext = engine.supervisor.contextOf('chat-2')!
      expect(ownContext).not.toBe(chat.contextId)
      const ownPage = engine.chromium.pageOf(ownContext, own.id)!
      expect((await seen(ownPage, shop.url('/echo'))).cookie).not.toContain('session=')
      expect(own.session.reason).toBe('own-browser')

      await engine.run(supervisor.setOwnBrowser('chat-2', false))
      const back = await engine.run(
        supervisor.use('chat-2', (binding) => engine.chromium.openTab(binding.contextId, shop.url('/echo'))),
      )
      const backPage = engine.chromium.pageOf(chat.contextId, back.id)!
      expect((await seen(backPage, shop.url('/echo'))).cookie).toContain('session=')
      expect(await engine.run(engine.chromium.isOpen(ownContext))).toBe(false)
      await mainPage.goto(shop.url('/signout'))
      await backPage.close()
      await mainPage.close()
    },
  )

  it('close forgets: after task done, a new errand of the same conversation starts empty (E3)', async () => {
    const { supervisor } = engine
    const first = await engine.run(supervisor.open({ id: 'forgetful', kind: 'task' }))
    await addToBasket(first.contextId, 'plum')
    await engine.run(supervisor.taskChanged('forgetful', 'done'))
    expect(await engine.run(engine.chromium.isOpen(first.contextId))).toBe(false)
    const second = await engine.run(supervisor.use('forgetful', (b) => engine.chromium.tabs(b.contextId)))
    const contextId = engine.supervisor.contextOf('forgetful')!
    expect(contextId).not.toBe(first.contextId)
    expect(second.map((t) => t.url)).toEqual(['about:blank'])
    const page = await engine.newPage(contextId, shop.url('/'))
    const after = await seen(page, shop.url('/echo'))
    expect(after.cookie).toBe('')
    expect(after.localBasket).toBeNull()
  })
})
