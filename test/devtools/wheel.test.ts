// Issue #26 (P1–P3) on the DevTools face, through the host's endpoint, real Chromium and real
// clients: while a person has the wheel of the errand, a DevTools client is paused, not
// disconnected — its acting commands (Page.navigate, Input.*) are held and its reads answer; the
// hand-back sends what was held, in order, after `Errands.handedBack {note}`. `Errands.requestHelp`
// is POST /v1/session/help over CDP. The wheel is taken and handed back through the host's own
// session service, as the live view's buttons do (test/liveview/wheel.test.ts drives those).
import { HELP_DEFAULT_TIMEOUT_MS, HELP_MAX_TIMEOUT_MS } from '@errands/devtools'
import { Sessions } from '@errands/supervisor'
import CDP from 'chrome-remote-interface'
import { Context } from 'effect'
import { chromium } from 'playwright-core'
import puppeteer from 'puppeteer-core'
import { describe, expect, it } from 'vitest'
import * as help from '../../packages/host/src/person/help.ts'
import { useDevToolsHost } from './harness.ts'
import { RawCdp } from './raw.ts'

const env = useDevToolsHost(1)

const sessionsOf = () => Context.get(env().host.services, Sessions)
const take = (key: string) => env().host.run(sessionsOf().takeWheel(`session:${key}`))
const handBack = (key: string, note?: string) => env().host.run(sessionsOf().handBack(`session:${key}`, note))
const poll = <T>(f: () => T | Promise<T>) => expect.poll(f, { timeout: 20_000, interval: 50 })

/** A client's CDP call, remembered as settled or not. */
const tracked = <T>(promise: Promise<T>) => {
  const state = { settled: false, promise }
  void promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  )
  return state
}

describe('a person at the wheel pauses a DevTools client (#26)', () => {
  it(
    'chrome-remote-interface: Page.navigate and Input are held, reads answer, the socket stays open; the hand-back ' +
      'sends them after Errands.handedBack',
    async () => {
      const { host, sites } = env()
      const site = sites[0]!
      const client = await CDP({ target: await env().endpoint('w1'), local: true })
      const seen: Array<string> = []
      let handedBack: unknown
      client.on('event', (message: { method: string; params: unknown; sessionId?: string }) => {
        if (message.method.startsWith('Errands.')) seen.push(message.method)
        if (message.method === 'Errands.handedBack') handedBack = message.params
      })
      try {
        const { targetId } = await client.send('Target.createTarget', { url: site.url('/echo') })
        const { sessionId } = await client.send('Target.attachToTarget', { targetId, flatten: true })
        await poll(async () => (await host.call('w1', 'GET', '/v1/url')).body.url).toBe(site.url('/echo'))

        await take('w1')
        await poll(() => seen).toEqual(['Errands.wheelTaken'])
        const heldPath = '/held-until-hand-back'
        const navigate = tracked(
          client
            .send('Page.navigate', { url: site.url(heldPath) }, sessionId)
            .then((r) => (seen.push('navigate answered'), r)),
        )
        const mouse = tracked(client.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: 5, y: 5 }, sessionId))
        const sideEffect = tracked(client.send('Runtime.evaluate', { expression: 'window.touched = 1' }, sessionId))

        // Reads answer meanwhile: an evaluation V8 keeps free of side effects, the history, the DOM.
        const read = await client.send(
          'Runtime.evaluate',
          { expression: 'location.pathname', throwOnSideEffect: true, returnByValue: true },
          sessionId,
        )
        expect(read.result.value).toBe('/echo')
        const history = await client.send('Page.getNavigationHistory', undefined, sessionId)
        expect(history.entries.at(-1)?.url).toBe(site.url('/echo'))
        expect((await client.send('DOM.getDocument', {}, sessionId)).root.nodeId).toBeGreaterThan(0)
        // The host's own read (allowed while driving) still sees the page where it was; the site saw nothing.
        expect((await host.call('w1', 'GET', '/v1/url')).body.url).toBe(site.url('/echo'))
        expect(navigate.settled || mouse.settled || sideEffect.settled).toBe(false)
        expect(site.log.some((h) => h.path === heldPath)).toBe(false)
        expect(env().host.logs.join('\n')).not.toMatch(/a client of session:w1 disconnected/)

        const before = site.log.length
        await handBack('w1', 'the form is filled in')
        const { frameId } = await navigate.promise
        expect(frameId).toBeTruthy()
        await mouse.promise
        // Sent on after the navigation, it ran in whichever document was there then: it answered.
        expect((await sideEffect.promise).exceptionDetails).toBeUndefined()
        expect(handedBack).toEqual({ note: 'the form is filled in' })
        expect(seen).toEqual(['Errands.wheelTaken', 'Errands.handedBack', 'navigate answered'])
        // The site got the navigation only after the hand-back.
        expect(site.log.findIndex((h) => h.path === heldPath)).toBeGreaterThanOrEqual(before)
      } finally {
        await client.close()
      }
    },
  )

  it('Errands.requestHelp takes the limits and default of POST /v1/session/help', () => {
    expect([HELP_DEFAULT_TIMEOUT_MS, HELP_MAX_TIMEOUT_MS]).toEqual([
      help.HELP_DEFAULT_TIMEOUT_MS,
      help.HELP_MAX_TIMEOUT_MS,
    ])
  })

  it(
    'Errands.requestHelp is answered by the hand-back with its note, or by its timeout; bad params are -32602, ' +
      'other names -32601',
    async () => {
      const { host } = env()
      const cdp = await RawCdp.open(await env().endpoint('w2'))
      try {
        const asked = tracked(
          cdp.send('Errands.requestHelp', { reason: 'A captcha I cannot solve', timeoutMs: 60_000 }),
        )
        // The request shows where the person sees it (the live view reads this view).
        await poll(async () => (await host.run(sessionsOf().view('session:w2'))).help?.reason).toBe(
          'A captcha I cannot solve',
        )
        expect(asked.settled).toBe(false)
        await take('w2')
        await handBack('w2', 'solved it')
        expect(await asked.promise).toEqual({ result: { handedBack: true, note: 'solved it' } })
        expect((await host.run(sessionsOf().view('session:w2'))).help).toBeUndefined()

        expect(await cdp.send('Errands.requestHelp', { reason: 'nobody will come', timeoutMs: 300 })).toEqual({
          result: { handedBack: false, reason: 'timeout' },
        })

        const bad = async (params: object) => (await cdp.send('Errands.requestHelp', params)).error
        expect(await bad({})).toMatchObject({
          code: -32602,
          message: expect.stringContaining('reason must be a string of 1–500 characters'),
        })
        expect(await bad({ reason: 'x'.repeat(501) })).toMatchObject({ code: -32602 })
        expect(await bad({ reason: 'x', timeoutMs: 5 })).toMatchObject({
          code: -32602,
          message: expect.stringContaining('timeoutMs must be a whole number of milliseconds from 100 to 600000'),
        })
        expect(await bad({ reason: 'x', timeoutMs: 600_001 })).toMatchObject({ code: -32602 })
        expect((await cdp.send('Errands.nope')).error).toEqual({ code: -32601, message: "'Errands.nope' wasn't found" })
        // On a page's session the domain is not there either.
        const { sessionId } = await cdp.newPage()
        expect((await cdp.send('Errands.requestHelp', { reason: 'x' }, sessionId)).error).toMatchObject({
          code: -32601,
        })
      } finally {
        cdp.close()
      }
    },
  )

  it('a client that leaves while asking takes its request out of the live view', async () => {
    const { host } = env()
    const cdp = await RawCdp.open(await env().endpoint('w3'))
    void cdp.send('Errands.requestHelp', { reason: 'gone soon', timeoutMs: 60_000 })
    await poll(async () => (await host.run(sessionsOf().view('session:w3'))).help?.reason).toBe('gone soon')
    cdp.close()
    await poll(async () => (await host.run(sessionsOf().view('session:w3'))).help).toBeUndefined()
  })

  it(
    'Playwright (connectOverCDP) connected across the take and the hand-back goes on working; its browser CDP ' +
      'session hears the Errands events',
    async () => {
      const { sites } = env()
      const site = sites[0]!
      const browser = await chromium.connectOverCDP(await env().endpoint('w4'))
      try {
        const page = await browser.contexts()[0]!.newPage()
        await page.goto(site.url('/echo'))
        const cdp = await browser.newBrowserCDPSession()
        const events: Array<{ method: string; params: unknown }> = []
        cdp.on('Errands.wheelTaken' as never, (params: unknown) => events.push({ method: 'wheelTaken', params }))
        cdp.on('Errands.handedBack' as never, (params: unknown) => events.push({ method: 'handedBack', params }))
        await take('w4')
        await poll(() => events.length).toBe(1)
        // A Playwright navigation waits, held; the page's title (a read of Playwright's) is held too
        // (it evaluates in the page), so only the navigation is started.
        const held = page.goto(site.url('/title'))
        await handBack('w4')
        await held
        expect(events).toEqual([
          { method: 'wheelTaken', params: {} },
          { method: 'handedBack', params: { note: null } },
        ])
        expect(page.url()).toBe(site.url('/title'))
        expect(await page.evaluate(() => 1 + 1)).toBe(2)
      } finally {
        await browser.close()
      }
    },
  )

  it(
    'Puppeteer connected across the take and the hand-back lets the Errands events pass and goes on ' + 'working',
    async () => {
      const { sites } = env()
      const site = sites[0]!
      const browser = await puppeteer.connect({ browserWSEndpoint: await env().endpoint('w5'), defaultViewport: null })
      try {
        const page = await browser.newPage()
        await page.goto(site.url('/echo'))
        await take('w5')
        const held = page.goto(site.url('/title'))
        await poll(async () => (await env().host.call('w5', 'GET', '/v1/url')).body.url).toBe(site.url('/echo'))
        await handBack('w5', 'go on')
        await held
        expect(page.url()).toBe(site.url('/title'))
        expect(await page.evaluate(() => 2 + 2)).toBe(4)
      } finally {
        await browser.disconnect()
      }
    },
  )
})
