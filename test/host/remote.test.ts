import { defaultPolicy } from '@errands/guard'
import { RemoteRuntime } from '@errands/runtime-chromium'
import { Effect } from 'effect'
import { chromium, type Browser, type CDPSession } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { serveDialogSite } from '../dialogs/site.ts'
import { serveFakeCdp, type FakeCdp } from './fakeCdp.ts'
import { serveFixture, type Fixture } from './fixtures.ts'
import { startTestHost, until, type TestHost } from './harness.ts'
import { launchRemoteChromium, type RemoteChromium } from './remoteBrowser.ts'

// R2: with ERRANDS_CDP_URL each session gets a new browser context of the DevTools browser there
// (checked from that browser's side with Target.getBrowserContexts); when the endpoint cannot
// make contexts, sessions run in our own browser here and health says so once.

let site: Fixture
let remote: RemoteChromium
let fake: FakeCdp

beforeAll(async () => {
  ;[site, remote, fake] = await Promise.all([serveFixture('127.0.0.1'), launchRemoteChromium(), serveFakeCdp()])
})
afterAll(async () => {
  await Promise.all([site?.close(), remote?.close(), fake?.close()])
})

describe('a DevTools browser elsewhere (R2)', () => {
  let host: TestHost
  let observer: Browser
  let cdp: CDPSession
  const contexts = async () =>
    ((await cdp.send('Target.getBrowserContexts')) as { browserContextIds: string[] }).browserContextIds
  const pages = async () =>
    (
      (await cdp.send('Target.getTargets')) as {
        targetInfos: Array<{ type: string; url: string; browserContextId?: string }>
      }
    ).targetInfos.filter((t) => t.type === 'page')

  beforeAll(async () => {
    observer = await chromium.connectOverCDP(remote.wsUrl)
    cdp = await observer.newBrowserCDPSession()
    host = await startTestHost({ ERRANDS_CDP_URL: remote.httpUrl })
  })
  afterAll(async () => {
    await host?.stop()
    await observer?.close()
  })

  it('gives each session a new, real browser context there; ours stays unstarted', async () => {
    const { egress, dialogs, passwords, ...runtime } = (await host.call(undefined, 'GET', '/v1/person/health')).body
      .runtime
    expect(dialogs).toEqual({ dismissedUnanswered: 0, deadlineMs: 30_000 })
    // A remote browser fills no password (docs/passwords.md): nothing lives, nothing is swapped there.
    expect(passwords).toEqual({ live: 0, swapped: 0, withheld: 0 })
    expect(runtime).toEqual({
      kind: 'cdp',
      where: 'remote',
      remote: { endpoint: remote.httpUrl.replace(/\/$/, ''), state: 'connected' },
    })
    // Issue #21: errands there leave through the remote browser's network, not our egress; health says so.
    expect(egress).toMatchObject({ on: true, remoteBypasses: true })
    const before = await contexts()
    await Promise.all([
      host.call('east', 'POST', '/v1/navigate', { url: site.url('/store?v=east') }),
      host.call('west', 'POST', '/v1/navigate', { url: site.url('/store?v=west') }),
    ])
    const made = (await contexts()).filter((id) => !before.includes(id))
    expect(made).toHaveLength(2)
    const there = (await pages()).filter((p) => p.url.startsWith(site.origin))
    expect(new Set(there.map((p) => p.browserContextId))).toEqual(new Set(made))
    expect(host.chromium.errandsBrowserPid()).toBeUndefined()
  })

  it('keeps the sessions apart there too, and guards them', async () => {
    await host.call('east', 'POST', '/v1/navigate', { url: site.url('/show') })
    await host.call('west', 'POST', '/v1/navigate', { url: site.url('/show') })
    expect((await host.call('east', 'GET', '/v1/text')).body.text).toContain('cookie=basket=east storage=east')
    expect((await host.call('west', 'GET', '/v1/text')).body.text).toContain('cookie=basket=west storage=west')
    expect((await host.call('east', 'POST', '/v1/navigate', { url: `${host.url}/health` })).status).toBe(403)
    const frame = await host.call('east', 'GET', '/v1/frame')
    expect(frame.headers.get('content-type')).toBe('image/jpeg')
  })

  it('gives each session a clipboard of its own there (the remote browser has one for all its contexts)', async () => {
    const keys = (...pressed: string[]) => pressed.map((key) => ({ type: 'key', action: 'press', key }))
    const field = async (key: string, text: string) => {
      await host.call(key, 'POST', '/v1/navigate', { url: site.url('/paste') })
      await host.call(key, 'POST', '/v1/fill', { selector: '#q', value: text })
    }
    const pasted = async (key: string) => {
      await field(key, '')
      await host.call(key, 'POST', '/v1/input', {
        events: [{ type: 'mouse', action: 'click', x: 20, y: 20 }, ...keys('Control+V')],
      })
      return (await host.call(key, 'GET', '/v1/text')).body.text as string
    }
    await field('east', 'from-east')
    await host.call('east', 'POST', '/v1/input', {
      events: [{ type: 'mouse', action: 'click', x: 20, y: 20 }, ...keys('Control+A', 'Control+C')],
    })
    expect(await pasted('east')).toContain('value:from-east')
    const west = await pasted('west')
    expect(west).toContain('value:')
    expect(west).not.toContain('from-east')
  })

  it('releasing a session disposes of its context there', async () => {
    const before = await contexts()
    expect((await host.call('west', 'DELETE', '/v1/session')).status).toBe(200)
    expect(await contexts()).toHaveLength(before.length - 1)
  })

  it('a JavaScript dialog of an errand there waits for the verbs, and is answered once (#22)', async () => {
    // A Playwright connection with no dialog handler dismisses every dialog it sees, as on plain
    // Chromium: the observer leaves first, so the errand's dialog is the verbs' alone.
    await observer.close()
    const dialogSite = await serveDialogSite()
    try {
      expect(
        (await host.call('east', 'POST', '/v1/navigate', { url: dialogSite.url('/confirm?delay=300') })).status,
      ).toBe(200)
      let state: any
      expect(
        await until(async () => {
          state = (await host.call('east', 'GET', '/v1/state')).body
          return state?.dialog != null
        }),
      ).toBe(true)
      expect(state.dialog).toMatchObject({ type: 'confirm', message: 'Sure?' })
      expect((await host.call('east', 'POST', '/v1/dialog', { accept: true })).status).toBe(200)
      let last: any
      const answered = await until(
        async () => (last = (await host.call('east', 'GET', '/v1/state')).body)?.title === 'answered:true',
      )
      expect(answered, JSON.stringify(last)).toBe(true)
      expect((await host.call('east', 'POST', '/v1/dialog', { accept: true })).status).toBe(409)
    } finally {
      await dialogSite.close()
    }
  })
})

// G1 there too: Playwright routes WebSockets with a script in every frame, which workers do not
// get, so a worker's socket to a blocked host escapes routing; the remote runtime closes its tab
// as our own runtime does (test/runtime-chromium/containment.test.ts). The remote runtime lacked
// this until both runtimes shared `ContextRuntime`.
describe('the guard in a remote context (G1)', () => {
  let sites: Array<Site>
  let runtime: RemoteRuntime
  const logs: Array<string> = []

  beforeAll(async () => {
    sites = await serveSites(2)
    const policy = { ...defaultPolicy([]), blockedHosts: [sites[1]!.host] }
    runtime = await RemoteRuntime.connect(remote.wsUrl, { policy, log: (line) => logs.push(line), deadlineMs: 30_000 })
  })
  afterAll(async () => {
    if (runtime) await Effect.runPromise(runtime.shutdown)
    await closeSites(sites ?? [])
  })

  it("closes the tab of a worker's WebSocket that escaped routing", async () => {
    const [shop, blocked] = sites as [Site, Site]
    const id = await Effect.runPromise(
      runtime.openContext({
        errandId: 'worker',
        label: { reason: 'task', lentSites: [] },
        tabs: [{ url: shop.url('/title?t=w'), active: true }],
      }),
    )
    expect(await Effect.runPromise(runtime.tabs(id))).toMatchObject([{ id: 't1', title: 'w' }])
    await runtime.pageOf(id, 't1')!.evaluate((u) => {
      const src = `new WebSocket(${JSON.stringify(u)})`
      new Worker(URL.createObjectURL(new Blob([src])))
    }, blocked.wsUrl)
    expect(await until(async () => (await Effect.runPromise(runtime.tabs(id))).length === 0)).toBe(true)
    expect(
      logs.some(
        (l) => l.includes(`websocket in remote context ${id} (escaped routing`) && l.includes('rule=blocked-host'),
      ),
    ).toBe(true)
    await Effect.runPromise(runtime.closeContext(id))
  })
})

// Two hosts of their own, side by side.
describe.concurrent('an endpoint that cannot make contexts (R2 fallback)', () => {
  it('runs sessions in our own browser and says so once in health', async () => {
    const host = await startTestHost({ ERRANDS_CDP_URL: fake.wsUrl })
    try {
      const health = (await host.call(undefined, 'GET', '/health')).body
      expect(health.runtime).toMatchObject({ kind: 'chromium', where: 'local', remote: { state: 'fallback' } })
      expect(fake.methods).toContain('Target.createBrowserContext')
      for (const key of ['one', 'two']) {
        expect((await host.call(key, 'POST', '/v1/navigate', { url: site.url(`/store?v=${key}`) })).status).toBe(200)
      }
      expect(host.chromium.errandsBrowserPid()).toBeGreaterThan(0)
      const messages = (
        (await host.call(undefined, 'GET', '/v1/person/health')).body.messages as Array<{ level: string; text: string }>
      ).filter((m) => m.text.includes('cannot make browser contexts'))
      expect(messages).toHaveLength(1)
      expect(messages[0]!.text).toMatch(
        new RegExp(
          '^The DevTools browser at ws://127\\.0\\.0\\.1:\\d+ cannot make browser contexts \\(.*not allowed.*\\); ' +
            'errands run in our own browser here\\.$',
        ),
      )
      expect(messages[0]!.text).not.toContain('/devtools/browser/fake')
    } finally {
      await host.stop()
    }
  })

  it('falls back the same way when the endpoint cannot be reached at all', async () => {
    const host = await startTestHost({ ERRANDS_CDP_URL: 'http://127.0.0.1:1' })
    try {
      expect((await host.call(undefined, 'GET', '/health')).body.runtime).toMatchObject({
        where: 'local',
        remote: { state: 'fallback' },
      })
      expect((await host.call('solo', 'GET', '/v1/url')).status).toBe(200)
    } finally {
      await host.stop()
    }
  })
})
