import { existsSync, readFileSync } from 'node:fs'
import { Option } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumProcesses, eventually } from '../fixtures/processes.ts'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { failureOf, type Harness, spec, startRuntime, until } from './harness.ts'

let h: Harness
let sites: Array<Site>
let shop: Site

beforeAll(async () => {
  sites = await serveSites(3)
  shop = sites[0]!
  h = await startRuntime()
})
afterAll(async () => {
  await h?.stop()
  await closeSites(sites ?? [])
})

const tmpDirOf = (pid: number): string | undefined =>
  readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .find((v) => v.startsWith('TMPDIR='))
    ?.slice('TMPDIR='.length)

const crashRenderer = async (contextId: string, tabId: string) => {
  const page = h.runtime.pageOf(contextId, tabId)!
  const session = await h.runtime.browserContextOf(contextId)!.newCDPSession(page)
  await session.send('Page.crash').catch(() => undefined) // the answer never comes: the renderer is gone
}

describe("the errands' browser is killed (T4, H2)", () => {
  it('reports BrowserCrashed with every context, keeps main, cleans up, and relaunches on next use', async () => {
    const a = await h.run(h.runtime.openContext(spec('a', { tabs: [{ url: shop.url('/title?t=a'), active: true }] })))
    const b = await h.run(h.runtime.openContext(spec('b')))
    const pid = h.runtime.errandsBrowserPid()!
    expect(pid).toBeGreaterThan(0)
    const tmpDir = tmpDirOf(pid)!
    expect(tmpDir).toMatch(/errands-chromium-/)
    expect(existsSync(tmpDir)).toBe(true)
    const before = h.events.length

    process.kill(pid, 'SIGKILL')
    expect(await until(() => h.events.slice(before).some((e) => e._tag === 'BrowserCrashed'))).toBe(true)
    const crashed = h.events.slice(before).find((e) => e._tag === 'BrowserCrashed')
    expect(crashed && crashed._tag === 'BrowserCrashed' ? [...crashed.contextIds].sort() : []).toEqual([a, b].sort())
    expect(h.runtime.errandsBrowserPid()).toBeUndefined()
    expect(await h.run(h.runtime.isOpen(a))).toBe(false)
    await h.run(h.runtime.closeContext(a)) // a no-op now
    expect(await failureOf(h.runtime.tabs(b))).toMatchObject({ _tag: 'ContextNotFound' })

    // The main browser never goes down with it.
    const [main] = await h.run(h.runtime.tabs('main'))
    expect(await h.run(h.runtime.navigate('main', main!.id, shop.url('/title?t=main-alive')))).toMatchObject({
      title: 'main-alive',
    })

    // Nothing of the dead browser is left: processes, TMPDIR (its org.chromium.Chromium.* folders).
    expect(await eventually(() => chromiumProcesses({ descendantsOf: [pid] }).length === 0, 15_000)).toBe(true)
    expect(await eventually(() => !existsSync(tmpDir), 15_000)).toBe(true)

    const c = await h.run(h.runtime.openContext(spec('c', { tabs: [{ url: shop.url('/title?t=c'), active: true }] })))
    expect(h.runtime.errandsBrowserPid()).not.toBe(pid)
    expect((await h.run(h.runtime.tabs(c)))[0]).toMatchObject({ title: 'c' })
    expect(h.logs.some((l) => l.includes('errands browser crashed'))).toBe(true)
    await h.run(h.runtime.closeContext(c))
  })
})

describe('a renderer crashes', () => {
  it('reports ContextCrashed, forgets that context and leaves the others alone', async () => {
    const victim = await h.run(
      h.runtime.openContext(spec('victim', { tabs: [{ url: shop.url('/title?t=v'), active: true }] })),
    )
    const bystander = await h.run(
      h.runtime.openContext(spec('bystander', { tabs: [{ url: shop.url('/title?t=b'), active: true }] })),
    )
    // Storage on origins with no tab left makes the last words slow to read (Playwright visits
    // each such origin in a hidden page), slower than opening a context.
    for (const site of sites.slice(1)) {
      const tab = await h.run(h.runtime.openTab(victim, site.url('/title?t=x')))
      await h.runtime.pageOf(victim, tab.id)!.evaluate(() => localStorage.setItem('k', 'v'))
      await h.run(h.runtime.closeTab(victim, tab.id))
    }
    const order: Array<string> = []
    h.runtime.browserContextOf(victim)!.on('close', () => order.push('crashed context closed'))
    // Its last words are read while it stays open; a context opened at the moment it crashed waits
    // for its close, so the browser never holds more contexts than the open errands (C1).
    let opening: Promise<string> | undefined
    const stop = await h.run(
      h.runtime.subscribe((e) => {
        if (e._tag === 'ContextCrashed' && e.contextId === victim)
          opening = h.run(h.runtime.openContext(spec('next'))).then((id) => (order.push('next opened'), id))
      }),
    )
    const before = h.events.length
    await crashRenderer(victim, 't1')
    expect(
      await until(() => h.events.slice(before).some((e) => e._tag === 'ContextCrashed' && e.contextId === victim)),
    ).toBe(true)
    expect(await h.run(h.runtime.isOpen(victim))).toBe(false)
    const next = await opening!
    stop()
    expect(order).toEqual(['crashed context closed', 'next opened'])
    expect(Option.isSome(await h.run(h.runtime.lastWords(victim))), h.logs.slice(-3).join(' | ')).toBe(true)
    expect(Option.isNone(await h.run(h.runtime.lastWords(victim)))).toBe(true) // read once
    await h.run(h.runtime.closeContext(next))
    await h.run(h.runtime.closeContext(victim))
    expect(await h.run(h.runtime.isOpen(bystander))).toBe(true)
    expect(await h.run(h.runtime.navigate(bystander, 't1', shop.url('/title?t=still')))).toMatchObject({
      title: 'still',
    })
    expect(h.events.slice(before).some((e) => e._tag === 'BrowserCrashed')).toBe(false)
    await h.run(h.runtime.closeContext(bystander))
  })

  // The 60-minute soak saw a context with no pages outlive its use until the browser died: a
  // warm spare whose renderer was killed stayed the spare, was handed out with a dead page, and
  // its close after the failed open could hang.
  it('of the warm spare: the spare goes at once, and the next errand gets a live context', async () => {
    const warm = await h.run(
      h.runtime.openContext(spec('warm', { tabs: [{ url: shop.url('/title?t=w'), active: true }] })),
    )
    expect(await until(() => h.runtime.hasWarmSpare(), 10_000)).toBe(true)
    const page = h.runtime.warmSparePage()!
    const session = await page.context().newCDPSession(page)
    await session.send('Page.crash').catch(() => undefined)
    expect(await until(() => page.isClosed(), 10_000)).toBe(true)
    expect(h.runtime.hasWarmSpare()).toBe(false)
    const next = await h.run(
      h.runtime.openContext(spec('after-spare', { tabs: [{ url: shop.url('/title?t=alive'), active: true }] })),
    )
    expect((await h.run(h.runtime.tabs(next)))[0]).toMatchObject({ title: 'alive' })
    await h.run(h.runtime.closeContext(next))
    // A spare handed out is an errand's: its page crashing is that errand's crash, and the
    // context stays open until its last words are read (it was closed under them at first).
    expect(await until(() => h.runtime.hasWarmSpare(), 10_000)).toBe(true)
    const sparePage = h.runtime.warmSparePage()!
    const taker = await h.run(
      h.runtime.openContext(spec('takes-spare', { tabs: [{ url: shop.url('/title?t=taken'), active: true }] })),
    )
    expect(h.runtime.pageOf(taker, 't1')).toBe(sparePage)
    const before = h.events.length
    await crashRenderer(taker, 't1')
    expect(
      await until(() => h.events.slice(before).some((e) => e._tag === 'ContextCrashed' && e.contextId === taker)),
    ).toBe(true)
    const words = await h.run(h.runtime.lastWords(taker))
    expect(Option.map(words, (w) => w.tabs.map((t) => t.url))).toEqual(Option.some([shop.url('/title?t=taken')]))
    await h.run(h.runtime.closeContext(warm))
  })

  it('in the main context drops only the crashed tab', async () => {
    const tab = await h.run(h.runtime.openTab('main', shop.url('/title?t=doomed')))
    const before = h.events.length
    await crashRenderer('main', tab.id)
    expect(
      await until(() => h.events.slice(before).some((e) => e._tag === 'ContextCrashed' && e.contextId === 'main')),
    ).toBe(true)
    expect(await h.run(h.runtime.isOpen('main'))).toBe(true)
    expect((await h.run(h.runtime.tabs('main'))).map((t) => t.id)).not.toContain(tab.id)
    expect(await h.run(h.runtime.openTab('main', shop.url('/title?t=fine')))).toMatchObject({ title: 'fine' })
  })
})
