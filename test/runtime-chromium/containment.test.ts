import { defaultPolicy, type GuardPolicy } from '@errands/guard'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { failureOf, type Harness, spec, startRuntime, until } from './harness.ts'

let h: Harness
let sites: Array<Site>
let shop: Site // allowed
let own: Site // plays the engine's own port
let blocked: Site // a blocked host
let errand: string

beforeAll(async () => {
  sites = await serveSites(3)
  ;[shop, own, blocked] = sites as [Site, Site, Site]
  const policy: GuardPolicy = {
    ...defaultPolicy([{ host: '127.0.0.1', port: own.port }]),
    blockedHosts: [blocked.host],
  }
  h = await startRuntime({ policy })
  errand = await h.run(h.runtime.openContext(spec('guarded')))
})
afterAll(async () => {
  await h?.stop()
  await closeSites(sites ?? [])
})

const SECRET = 'S3CR3T'
const tabOf = async (contextId: string) => (await h.run(h.runtime.tabs(contextId)))[0]!.id
const noSecretsLogged = () => expect(h.logs.join('\n')).not.toContain(SECRET)

describe.each(['main', 'errand'])('the guard in the %s context (G1, G2)', (which) => {
  const ctx = () => (which === 'main' ? 'main' : errand)

  it('refuses navigations to file:, chrome: and javascript: and says which rule', async () => {
    const tab = await tabOf(ctx())
    for (const url of [
      `file:///etc/passwd?${SECRET}`,
      'chrome://settings',
      `javascript:alert('${SECRET}')`,
      'about:version',
    ]) {
      const failure = await failureOf(h.runtime.navigate(ctx(), tab, url))
      expect(failure).toMatchObject({ _tag: 'RuntimeError', reason: 'invalid' })
      expect((failure as { message: string }).message).toContain('rule scheme')
    }
    expect(
      h.logs.some(
        (l) => l.includes(`navigation in context ${ctx()}`) && l.includes('file:') && l.includes('rule=scheme'),
      ),
    ).toBe(true)
    expect(h.logs.join('\n')).not.toContain('/etc/passwd')
    expect(await failureOf(h.runtime.openTab(ctx(), 'file:///etc/hosts'))).toMatchObject({ reason: 'invalid' })
    noSecretsLogged()
  })

  it('blocks a blocked host for navigations, sub-resources and redirects, before the server sees them', async () => {
    const tab = await tabOf(ctx())
    const before = blocked.log.length
    expect(await failureOf(h.runtime.navigate(ctx(), tab, blocked.url(`/echo?token=${SECRET}`)))).toMatchObject({
      reason: 'invalid',
    })
    await h.run(h.runtime.navigate(ctx(), tab, shop.url('/title?t=page')))
    const page = h.runtime.pageOf(ctx(), tab)!
    const fetched = await page.evaluate(
      (u) =>
        fetch(u).then(
          () => 'ok',
          () => 'failed',
        ),
      blocked.url(`/echo?k=${SECRET}`),
    )
    expect(fetched).toBe('failed')
    expect(
      await failureOf(
        h.runtime.navigate(ctx(), tab, shop.url(`/redirect?to=${encodeURIComponent(blocked.url('/echo'))}`)),
      ),
    ).toMatchObject({ reason: 'invalid' })
    expect(blocked.log.length).toBe(before)
    expect(
      h.logs.some(
        (l) =>
          l.includes(`blocked xhr in ${which === 'main' ? 'main' : 'errands'} browser ${blocked.origin}`) &&
          l.includes('rule=blocked-host'),
      ),
    ).toBe(true)
    noSecretsLogged()
  })

  it('blocks the engine own port on every loopback spelling', async () => {
    const tab = await tabOf(ctx())
    for (const host of ['127.0.0.1', 'localhost', '127.0.0.9', '[::1]', '2130706433']) {
      const failure = await failureOf(h.runtime.navigate(ctx(), tab, `http://${host}:${own.port}/`))
      expect(failure, host).toMatchObject({ reason: 'invalid' })
      expect((failure as { message: string }).message).toContain('own-port')
    }
    await h.run(h.runtime.navigate(ctx(), tab, shop.url('/title?t=page')))
    const fetched = await h.runtime.pageOf(ctx(), tab)!.evaluate(
      (u) =>
        fetch(u).then(
          () => 'ok',
          () => 'failed',
        ),
      own.url('/echo'),
    )
    expect(fetched).toBe('failed')
    expect(own.log.length).toBe(0)
    expect(h.logs.some((l) => l.includes('rule=own-port'))).toBe(true)
  })

  it('closes a WebSocket to a blocked host or the own port, and lets an allowed one through', async () => {
    const tab = await tabOf(ctx())
    const page = h.runtime.pageOf(ctx(), tab)!
    const wsTitle = async (to: string) => {
      await h.run(h.runtime.navigate(ctx(), tab, shop.url(`/ws-page?to=${encodeURIComponent(to)}`)))
      await page.waitForFunction(() => document.title !== 'ws:pending')
      return page.title()
    }
    expect(await wsTitle(shop.wsUrl)).toBe('ws:message:echo:ping')
    expect(await wsTitle(`${blocked.wsUrl}?t=${SECRET}`)).toBe('ws:closed:1008')
    expect(await wsTitle(own.wsUrl)).toBe('ws:closed:1008')
    expect(blocked.wsConnections()).toBe(0)
    expect(own.wsConnections()).toBe(0)
    expect(h.logs.some((l) => l.includes(`websocket in context ${ctx()}`) && l.includes('rule=blocked-host'))).toBe(
      true,
    )
    expect(h.logs.some((l) => l.includes(`websocket in context ${ctx()}`) && l.includes('rule=own-port'))).toBe(true)
    noSecretsLogged()
  })
})

describe('what routing costs', () => {
  it('keeps the HTTP cache, per context (T5)', async () => {
    const base = shop.hits.get('/cached') ?? 0
    const fetchThrice = async (contextId: string) => {
      const tab = await tabOf(contextId)
      await h.run(h.runtime.navigate(contextId, tab, shop.url('/title?t=cache')))
      const page = h.runtime.pageOf(contextId, tab)!
      for (let i = 0; i < 3; i++) await page.evaluate((u) => fetch(u).then((r) => r.text()), shop.url('/cached'))
    }
    await fetchThrice(errand)
    expect((shop.hits.get('/cached') ?? 0) - base).toBe(1)
    const other = await h.run(h.runtime.openContext(spec('other-cache')))
    await fetchThrice(other)
    expect((shop.hits.get('/cached') ?? 0) - base).toBe(2) // a second errand does not see the first one's cache
    await h.run(h.runtime.closeContext(other))
  })

  it('guards a context handed out from the warm spare the same way', async () => {
    await h.run(h.runtime.closeContext(await h.run(h.runtime.openContext(spec('make-a-spare')))))
    expect(await until(() => h.runtime.hasWarmSpare(), 20_000)).toBe(true)
    const id = await h.run(
      h.runtime.openContext(
        spec('warm', { tabs: [{ url: shop.url(`/ws-page?to=${encodeURIComponent(blocked.wsUrl)}`), active: true }] }),
      ),
    )
    expect(h.runtime.hasWarmSpare()).toBe(false)
    const page = h.runtime.pageOf(id, 't1')!
    await page.waitForFunction(() => document.title !== 'ws:pending')
    expect(await page.title()).toBe('ws:closed:1008')
    expect(
      await page.evaluate(
        (u) =>
          fetch(u).then(
            () => 'ok',
            () => 'failed',
          ),
        blocked.url('/echo'),
      ),
    ).toBe('failed')
    expect(blocked.wsConnections()).toBe(0)
    await h.run(h.runtime.closeContext(id))
  })

  it("closes the tab of a worker's WebSocket that escaped routing", async () => {
    const id = await h.run(
      h.runtime.openContext(spec('worker', { tabs: [{ url: shop.url('/title?t=w'), active: true }] })),
    )
    await h.runtime.pageOf(id, 't1')!.evaluate((u) => {
      const src = `new WebSocket(${JSON.stringify(u)})`
      new Worker(URL.createObjectURL(new Blob([src])))
    }, blocked.wsUrl)
    expect(await until(async () => (await h.run(h.runtime.tabs(id))).length === 0)).toBe(true)
    expect(
      h.logs.some((l) => l.includes(`websocket in context ${id} (escaped routing`) && l.includes('rule=blocked-host')),
    ).toBe(true)
    await h.run(h.runtime.closeContext(id))
  })
})
