/**
 * The live view end to end (V1–V3, E2, E6, H3, C1): a real host with real Chromium for its
 * errands, and the page driven by Playwright in a second headless Chromium — the person's.
 */
import { Effect } from 'effect'
import { chromium } from 'playwright-core'
// Named apart: a bare `WebSocket` inside page.evaluate must stay the page's own.
import { WebSocket as NodeSocket } from 'ws'
import { freePort, request, until } from '../host/harness.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { canvasDistance, startLiveHarness, type LiveHarness } from './harness.ts'

let h: LiveHarness

beforeAll(async () => {
  h = await startLiveHarness({ ERRANDS_MAX_SESSIONS: '3', ERRANDS_INSPECT_PORT: String(await freePort()) })
})
afterAll(async () => {
  await h?.stop()
})

/** Polls generously: this machine is shared by two test workers and their Chromiums. */
const poll = <T>(f: () => T | Promise<T>) => expect.poll(f, { timeout: 20_000, interval: 100 })
const row = (id: string) => `tr[data-conversation="${id}"]`
const stateOf = (id: string) => h.host.run(h.host.supervisor.view(id))

describe('the live view', () => {
  it('refuses access without the token: no state, no socket, wrong token refused', async () => {
    const viewer = await h.open()
    const page = viewer.page
    await page.waitForSelector('input[name="token"]')
    expect(await page.locator('table.conversations').count()).toBe(0)
    // The API and the socket refuse a page that has not signed in.
    const api = await page.evaluate(async () => {
      const r = await fetch('/live/api/state')
      return { status: r.status, body: await r.json() }
    })
    expect(api.status).toBe(401)
    expect(api.body.error).toMatchObject({ code: 'Unauthorized', reason: 'missing-token' })
    const socket = await page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(`ws://${location.host}/live/socket`)
          ws.onopen = () => resolve('open')
          ws.onerror = () => resolve('refused')
        }),
    )
    expect(socket).toBe('refused')
    // A wrong token is refused in words; nothing is set.
    await page.fill('input[name="token"]', 'not-the-token')
    await page.click('button[type="submit"]')
    await poll(() => page.locator('[role="alert"]').textContent()).toContain("not this host's token")
    expect(await viewer.context.cookies()).toEqual([])
    // The right one is exchanged for a sign-in id the page holds in memory (X4): no cookie, no storage.
    await page.fill('input[name="token"]', h.host.tokenText)
    await page.click('button[type="submit"]')
    await page.waitForSelector('table.conversations')
    expect(await viewer.context.cookies()).toEqual([])
    expect(await page.evaluate(() => [document.cookie, localStorage.length, sessionStorage.length])).toEqual(['', 0, 0])
    // A call the page's script did not make itself carries nothing: the same page's bare fetch is refused.
    expect(await page.evaluate(async () => (await fetch('/live/api/state')).status)).toBe(401)
    // Signing out ends it.
    await page.click('header button.link')
    await page.waitForSelector('input[name="token"]')
    expect(await page.evaluate(async () => (await fetch('/live/api/state')).status)).toBe(401)
    await viewer.context.close()
  })

  it('refuses other hosts, other origins and form bodies before anything runs', async () => {
    const port = h.host.port
    const viewer = await h.signedIn()
    const header = 'x-errands-live'
    const live = viewer.liveId!
    await viewer.context.close()
    const own = `127.0.0.1:${port}`
    const park = '/live/api/conversations/session%3Anobody/park'
    expect((await request(port, { path: '/', headers: { host: `evil.example:${port}` } })).status).toBe(421)
    expect((await request(port, { path: '/live/api/state', headers: { host: own, [header]: live } })).status).toBe(200)
    expect(
      (
        await request(port, {
          path: '/live/api/state',
          headers: { host: own, [header]: live, 'sec-fetch-site': 'cross-site' },
        })
      ).status,
    ).toBe(403)
    const foreign = await request(port, {
      method: 'POST',
      path: park,
      headers: { host: own, [header]: live, origin: 'http://evil.example', 'content-type': 'application/json' },
      body: '{}',
    })
    expect(foreign.status).toBe(403)
    expect(foreign.body.error.code).toBe('ForeignOrigin')
    const form = await request(port, {
      method: 'POST',
      path: park,
      headers: {
        host: own,
        [header]: live,
        origin: `http://${own}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'a=1',
    })
    expect(form.status).toBe(415)
    const unknown = await request(port, {
      method: 'POST',
      path: park,
      headers: { host: own, [header]: live, origin: `http://${own}`, 'content-type': 'application/json' },
      body: '{}',
    })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.code).toBe('UnknownConversation')
    const badToggle = await request(port, {
      method: 'POST',
      path: '/live/api/conversations/chat%3Ax/own-browser',
      headers: { host: own, [header]: live, origin: `http://${own}`, 'content-type': 'application/json' },
      body: '{"on":"yes"}',
    })
    expect(badToggle.status).toBe(400)
    // The person's bearer token on the API is not a way in either, nor a cookie: only the sign-in id in its header is.
    expect(
      (await request(port, { path: '/live/api/state', headers: { host: own, cookie: `errands_live=${live}` } })).status,
    ).toBe(401)
    const bearer = await request(port, {
      path: '/live/api/state',
      headers: { host: own, authorization: `Bearer ${h.host.tokenText}` },
    })
    expect(bearer.status).toBe(401)
  })

  it('updates the list when a task parks and resumes, from the API and from its buttons', async () => {
    await h.navigate('list-a', h.site.url('/page?t=list-a'))
    const viewer = await h.signedIn()
    const page = viewer.page
    const id = 'session:list-a'
    await page.waitForSelector(`${row(id)}[data-state="active"]`)
    await poll(() => page.locator(`${row(id)} [data-testid="reason"]`).textContent()).toContain('background task')
    // Parked by the supervisor (as the cap or the idle sweep would): the page hears it unasked.
    await h.host.run(h.host.supervisor.park(id))
    await page.waitForSelector(`${row(id)}[data-state="parked"]`)
    await poll(() => page.locator('[data-testid="capacity"]').textContent()).toMatch(/set aside/)
    // Resumed with the page's button.
    await page.click(row(id))
    await page.click('button:has-text("Resume")')
    await page.waitForSelector(`${row(id)}[data-state="active"]`)
    expect((await stateOf(id)).state).toBe('active')
    // Its tab is listed (restored from the sealed record).
    await poll(() => page.locator('section.detail .tab-title').allTextContents()).toContain('list-a')
    // Parked with the page's button.
    await page.click('button:has-text("Set aside")')
    await page.waitForSelector(`${row(id)}[data-state="parked"]`)
    expect((await stateOf(id)).state).toBe('parked')
    // And closed.
    await page.click('button:has-text("Close")')
    await poll(
      async () =>
        (await page.locator(row(id)).count()) === 0 ||
        (await page.locator(`${row(id)}[data-state="closed"]`).count()) === 1,
    ).toBe(true)
    expect(
      await h.host.run(
        h.host.supervisor.view(id).pipe(
          Effect.map((v) => v.state),
          Effect.orElseSucceed(() => 'forgotten'),
        ),
      ),
    ).toMatch(/closed|forgotten/)
    await viewer.context.close()
  })

  it(
    "a DevTools client's browser.newContext() is a helper: seeded as helpers are, listed under its errand (#22, " +
      'E1)',
    async () => {
      const { host, site } = h
      const siteName = new URL(site.origin).hostname
      // The person is signed in to the site in their own browser, and always lends it.
      await h.host.run(
        host.runtime.addCookies(host.runtime.mainContext, [
          {
            name: 'session',
            value: 'person',
            domain: siteName,
            path: '/',
            expires: -1,
            httpOnly: true,
            secure: false,
            sameSite: 'Lax',
          },
        ]),
      )
      expect(
        (await host.call(undefined, 'POST', '/v1/person/settings/always-allowed', { site: siteName })).status,
      ).toBe(200)
      const endpoint = await host.call('helpers', 'GET', '/v1/session/devtools')
      expect(endpoint.status).toBe(200)
      const browser = await chromium.connectOverCDP(endpoint.body.url as string)
      try {
        const helper = await browser.newContext()
        const page = await helper.newPage()
        await page.goto(site.url('/page?t=helper'))
        expect(site.cookies.filter((c) => c.path === '/page').at(-1)?.cookie).toContain('session=person')
        const id = 'session:helpers/devtools-1'
        expect(await stateOf(id)).toMatchObject({ reason: 'helper', parent: 'session:helpers', lentSites: [siteName] })

        const viewer = await h.signedIn()
        await viewer.page.waitForSelector(`${row(id)}[data-depth="1"]`)
        const order = await viewer.page
          .locator('table.conversations tr[data-conversation]')
          .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-conversation')))
        expect(order.indexOf(id)).toBe(order.indexOf('session:helpers') + 1)
        expect(await viewer.page.locator(`${row(id)} .child-mark`).getAttribute('title')).toBe(
          'A helper of session:helpers',
        )
        await helper.close()
        await poll(
          async () =>
            (await viewer.page.locator(row(id)).count()) === 0 ||
            (await viewer.page.locator(`${row(id)}[data-state="closed"]`).count()) === 1,
        ).toBe(true)
        await viewer.context.close()
      } finally {
        await browser.close()
        await host.call(undefined, 'DELETE', `/v1/person/settings/always-allowed/${siteName}`)
      }
    },
  )

  it("shows the active tab's screencast after a navigation made through the API, and marks it watched", async () => {
    await h.navigate('cast', h.site.url('/big?t=ALPHA'))
    const viewer = await h.signedIn()
    const page = viewer.page
    await page.click(row('session:cast'))
    await poll(async () => (await stateOf('session:cast')).watched).toBe(true)
    await page.waitForSelector('#screen[data-conversation="session:cast"]')
    await h.navigate('cast', h.site.url('/big?t=OMEGA'))
    // The caption follows the page, and the canvas shows its text: it is far closer to a
    // screenshot of OMEGA than to one of ALPHA.
    await poll(() => page.locator('figure.screen figcaption').textContent()).toContain('OMEGA')
    const omega = (await h.host.call('cast', 'GET', '/v1/screenshot')).bytes
    await h.navigate('shot', h.site.url('/big?t=ALPHA'))
    const alpha = (await h.host.call('shot', 'GET', '/v1/screenshot')).bytes
    await poll(async () => {
      const [toOmega, toAlpha] = [await canvasDistance(page, omega), await canvasDistance(page, alpha)]
      return toOmega < 4 && toAlpha > toOmega * 2
    }).toBe(true)
    // Frames were acknowledged by the page: more than one arrived (Chromium waits for each ack).
    expect(
      viewer.received.filter((m) => m.type === 'frame' && m.conversationId === 'session:cast').length,
    ).toBeGreaterThan(1)
    // Closing the page lets go of the errand.
    await viewer.context.close()
    await poll(async () => (await stateOf('session:cast')).watched).toBe(false)
  })

  it(
    'a viewer that does not acknowledge gets no more frames, though the page keeps painting; its ack lets the next ' +
      'come (V1 flow control)',
    async () => {
      await h.navigate('flow', h.site.url('/page?t=flow'))
      const contextId = (await stateOf('session:flow')).contextId!
      // The errand's page repaints on every animation frame: Chromium would send frames without end.
      await h.host.chromium.pageOf(contextId, 't1')!.evaluate(() => {
        const tick = (n: number) => {
          document.body.textContent = String(n)
          requestAnimationFrame(() => tick(n + 1))
        }
        tick(0)
      })
      const signed = await h.signedIn()
      const own = `127.0.0.1:${h.host.port}`
      // A slow viewer: a socket of its own that watches and holds its acks back.
      const socket = new NodeSocket(`ws://${own}/live/socket`, ['errands-live', signed.liveId!], {
        headers: { origin: `http://${own}` },
      })
      const frames: Array<number> = []
      socket.on('message', (data) => {
        const m = JSON.parse(String(data)) as { type: string; conversationId?: string; seq?: number }
        if (m.type === 'frame' && m.conversationId === 'session:flow') frames.push(m.seq!)
      })
      await new Promise((resolve, reject) => socket.on('open', resolve).on('error', reject))
      socket.send(JSON.stringify({ type: 'watch', conversationId: 'session:flow' }))
      await poll(() => frames.length).toBeGreaterThan(0)
      // Settled: the count has not moved for a second and a half, at Chromium's few frames in flight.
      let held = -1
      expect(
        await until(async () => {
          const before = frames.length
          await new Promise((r) => setTimeout(r, 1_500))
          held = frames.length
          return held === before
        }, 20_000),
      ).toBe(true)
      expect(held).toBeLessThanOrEqual(3)
      socket.send(JSON.stringify({ type: 'ack', seq: frames.at(-1) }))
      await poll(() => frames.length).toBeGreaterThan(held)
      socket.close()
      await signed.context.close()
      await poll(async () => (await stateOf('session:flow')).watched).toBe(false)
      await h.host.run(h.host.supervisor.release('session:flow'))
    },
  )

  it('a watched errand is never the one parked to make room (C1)', async () => {
    for (const k of ['cap-1', 'cap-2', 'cap-3']) await h.host.run(h.host.supervisor.release(`session:${k}`))
    await h.host.run(h.host.supervisor.release('session:cast'))
    await h.host.run(h.host.supervisor.release('session:shot'))
    await h.navigate('cap-1', h.site.url('/page?t=cap-1'))
    const viewer = await h.signedIn()
    await viewer.page.click(row('session:cap-1'))
    await poll(async () => (await stateOf('session:cap-1')).watched).toBe(true)
    // cap-1 is now the least recently used; two more sessions fill the cap of 3 and a third overflows it.
    await h.navigate('cap-2', h.site.url('/page?t=cap-2'))
    await h.navigate('cap-3', h.site.url('/page?t=cap-3'))
    await h.navigate('cap-4', h.site.url('/page?t=cap-4'))
    expect((await stateOf('session:cap-1')).state).toBe('active')
    const states = await Promise.all(
      ['cap-2', 'cap-3', 'cap-4'].map(async (k) => (await stateOf(`session:${k}`)).state),
    )
    expect(states.filter((s) => s === 'parked').length).toBeGreaterThanOrEqual(1)
    await viewer.context.close()
    for (const k of ['cap-1', 'cap-2', 'cap-3', 'cap-4']) await h.host.run(h.host.supervisor.release(`session:${k}`))
  })

  it('switching the watched conversation stops the old stream: no frame of the old one after the switch', async () => {
    await h.navigate('one', h.site.url('/big?t=ONE'))
    await h.navigate('two', h.site.url('/big?t=TWO'))
    const viewer = await h.signedIn()
    const page = viewer.page
    await page.click(row('session:one'))
    await page.waitForSelector('#screen[data-conversation="session:one"]')
    await page.click(row('session:two'))
    await poll(() => viewer.received.some((m) => m.type === 'watching' && m.conversationId === 'session:two')).toBe(
      true,
    )
    const switchedAt = viewer.received.findIndex((m) => m.type === 'watching' && m.conversationId === 'session:two')
    await page.waitForSelector('#screen[data-conversation="session:two"]')
    // The old conversation keeps painting — and none of it reaches the page.
    for (const t of ['ONE-a', 'ONE-b', 'ONE-c']) await h.navigate('one', h.site.url(`/big?t=${t}`))
    await h.navigate('two', h.site.url('/big?t=TWO-b'))
    await poll(() => page.locator('figure.screen figcaption').textContent()).toContain('TWO-b')
    const after = viewer.received.slice(switchedAt)
    expect(after.filter((m) => m.type === 'frame' && m.conversationId === 'session:one')).toEqual([])
    expect(after.filter((m) => m.type === 'frame' && m.conversationId === 'session:two').length).toBeGreaterThan(0)
    expect((await stateOf('session:one')).watched).toBe(false)
    expect((await stateOf('session:two')).watched).toBe(true)
    // Unwatching (click the selected row again) stops the stream and lets go.
    await page.click(row('session:two'))
    await poll(async () => (await stateOf('session:two')).watched).toBe(false)
    const stoppedAt = viewer.received.length
    await h.navigate('two', h.site.url('/big?t=TWO-c'))
    await new Promise((r) => setTimeout(r, 1_000))
    expect(viewer.received.slice(stoppedAt).filter((m) => m.type === 'frame')).toEqual([])
    await viewer.context.close()
  })

  it("the toggle changes what a chat's pages can see (E2), and the badge says why (E6)", async () => {
    // The person is signed in to the site in their own browser.
    const signIn = await h.host.call(undefined, 'POST', '/v1/person/main/navigate', {
      url: h.site.url('/store?v=person'),
    })
    expect(signIn.status).toBe(200)
    const chat = 'chat:c1'
    await h.host.run(h.host.supervisor.open({ id: chat, kind: 'chat' }))
    const cookieSeen = async () => {
      const view = await stateOf(chat)
      const tab = await h.host.run(h.host.runtime.openTab(view.contextId!, h.site.url('/show')))
      const seen = h.site.cookies.filter((c) => c.path === '/show').at(-1)?.cookie ?? ''
      await h.host.run(h.host.runtime.closeTab(view.contextId!, tab.id))
      return seen
    }
    expect(await cookieSeen()).toContain('basket=person')

    const viewer = await h.signedIn()
    const page = viewer.page
    await page.click(row(chat))
    const toggle = page.locator('input[name="own-browser"]')
    expect(await toggle.isChecked()).toBe(false)
    expect(await page.locator(`${row(chat)} [data-testid="reason"]`).getAttribute('title')).toContain(
      'your own browser',
    )
    await toggle.click()
    await poll(async () => {
      const v = await stateOf(chat)
      return `${v.reason}/${v.state}`
    }).toBe('own-browser/active')
    await poll(() => page.locator(`${row(chat)} [data-testid="reason"]`).textContent()).toContain(
      'switched on for this chat',
    )
    expect(await page.locator(`${row(chat)} [data-testid="reason"]`).getAttribute('title')).toContain(
      'none of your sign-ins',
    )
    expect(await cookieSeen()).not.toContain('basket=person')
    await page.locator('input[name="own-browser"]').click()
    await poll(async () => (await stateOf(chat)).reason).toBe('main')
    expect(await cookieSeen()).toContain('basket=person')
    await viewer.context.close()
  })

  it('switches the XState inspector on and off (V3), and links to it while on', async () => {
    const viewer = await h.signedIn()
    const page = viewer.page
    const box = page.locator('input[name="inspector"]')
    expect(await box.isChecked()).toBe(false)
    await box.click()
    await poll(async () => (await h.host.call(undefined, 'GET', '/v1/person/inspector')).body.on).toBe(true)
    const status = (await h.host.call(undefined, 'GET', '/v1/person/inspector')).body as { url: string }
    await poll(() => page.locator('header a:has-text("open")').getAttribute('href')).toBe(status.url)
    const relay = await fetch(status.url)
    expect(relay.status).toBe(200)
    expect(relay.headers.get('content-type')).toContain('text/html')
    await page.locator('input[name="inspector"]').click()
    await poll(async () => (await h.host.call(undefined, 'GET', '/v1/person/inspector')).body.on).toBe(false)
    await poll(() => page.locator('header a:has-text("open")').count()).toBe(0)
    await viewer.context.close()
  })

  it('shows health in words, and the list reflects a crash healed', async () => {
    await h.navigate('healthy', h.site.url('/page?t=healthy'))
    const viewer = await h.signedIn()
    const pid = h.host.chromium.errandsBrowserPid()
    expect(pid).toBeDefined()
    process.kill(pid!, 'SIGKILL')
    // Next use heals it.
    await until(async () => (await h.host.call('healthy', 'GET', '/v1/url')).status === 200, 30_000, 250)
    await poll(() => viewer.page.locator('aside ul.health').textContent()).toMatch(/crashed|Reopened/)
    await viewer.context.close()
  })
})
