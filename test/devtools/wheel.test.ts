// Issue #26 (P1–P3) on the DevTools face, through the host's endpoint, real Chromium and real
// clients: while a person has the wheel of the errand, a DevTools client is paused, not
// disconnected — its acting commands (Page.navigate, Input.*) are held and its reads answer; the
// hand-back sends what was held, in order, after `Errands.handedBack {note}`. `Errands.requestHelp`
// is POST /v1/session/help over CDP. The wheel is taken and handed back through the host's own
// session service, as the live view's buttons do (test/liveview/wheel.test.ts drives those).
import { Sessions } from '@errands/sessions'
import CDP from 'chrome-remote-interface'
import { Context } from 'effect'
import { chromium } from 'playwright-core'
import puppeteer from 'puppeteer-core'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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

/**
 * A bank's sign-in page for the attack below: a button whose handler is in `/app.js` (line 1 is
 * where a breakpoint goes), a link to `/account`, and `/ping` for a request of the page's own —
 * each at a fixed place, so the person's clicks land without asking the page.
 */
const serveBank = async () => {
  const log: Array<string> = []
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    log.push(path)
    const send = (type: string, body: string) => {
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' })
      res.end(body)
    }
    if (path === '/app.js')
      return send(
        'text/javascript',
        "function onGo() {\n  document.getElementById('out').textContent = 'the person clicked'\n}\n",
      )
    if (path === '/ping') return send('text/plain', 'pong')
    if (path === '/account') return send('text/html', '<!doctype html><title>account</title><h1>Your real account</h1>')
    send(
      'text/html',
      '<!doctype html><title>bank</title><script src="/app.js"></script><style>*{margin:0}</style>' +
        '<button id="go" onclick="onGo()" ' +
        'style="position:absolute;left:20px;top:20px;width:200px;height:60px">go</button>' +
        '<a id="next" href="/account" ' +
        'style="position:absolute;left:20px;top:120px;width:200px;height:60px;display:block">' +
        'account</a><p id="out" style="position:absolute;left:20px;top:220px">ready</p>',
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    log,
    url: (path: string) => `${origin}${path}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe('a DevTools client cannot act under the person (P1, docs/adr/0040-person-wheel-deny-by-default.md)', () => {
  let bank: Awaited<ReturnType<typeof serveBank>>
  beforeAll(async () => {
    bank = await serveBank()
  })
  afterAll(() => bank.close())

  /** The person's live view, signed in with the host's token as the person's browser does it. */
  const liveView = async () => {
    const { host } = env()
    const post = (path: string, body: unknown, id?: string) =>
      fetch(`${host.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: host.url,
          ...(id === undefined ? {} : { 'x-errands-live': id }),
        },
        body: JSON.stringify(body),
      })
    const signedIn = await post('/live/sign-in', { token: host.tokenText })
    expect(signedIn.status).toBe(200)
    const id = ((await signedIn.json()) as { id: string }).id
    return {
      click: async (key: string, x: number, y: number) => {
        const r = await post(
          `/live/api/conversations/${encodeURIComponent(`session:${key}`)}/input`,
          { events: [{ type: 'mouse', action: 'click', x, y }] },
          id,
        )
        expect(r.status).toBe(200)
      },
    }
  }

  it(
    "a breakpoint, an interception and script of the agent's, set before and during the drive: the page shows " +
      'only what the person did; after the hand-back every held command is answered, none dropped',
    async () => {
      const { host } = env()
      const client = await CDP({ target: await env().endpoint('w6'), local: true })
      const paused: Array<{ url: string; requestId: string }> = []
      const phish = '<!doctype html><title>account</title><h1>Please re-enter your password</h1>'
      client.on('event', (m: { method: string; params: any; sessionId?: string }) => {
        if (m.method !== 'Fetch.requestPaused') return
        paused.push({ url: m.params.request.url, requestId: m.params.requestId })
        // The phishing: the person's own click on the account link answered with the agent's page.
        if (String(m.params.request.url).endsWith('/account')) {
          void client
            .send(
              'Fetch.fulfillRequest',
              {
                requestId: m.params.requestId,
                responseCode: 200,
                responseHeaders: [{ name: 'content-type', value: 'text/html' }],
                body: Buffer.from(phish).toString('base64'),
              },
              m.sessionId,
            )
            .catch(() => undefined)
        }
      })
      try {
        const { targetId } = await client.send('Target.createTarget', { url: bank.url('/login') })
        const { sessionId } = await client.send('Target.attachToTarget', { targetId, flatten: true })
        const send = (method: string, params: object = {}) => client.send(method as never, params as never, sessionId)
        await poll(async () => (await host.call('w6', 'GET', '/v1/url')).body.url).toBe(bank.url('/login'))
        for (const domain of ['Page', 'DOM', 'CSS', 'Debugger']) await send(`${domain}.enable`)
        // Before the take: a conditional breakpoint in the handler the person's click runs, an
        // interception that answers the account page with the agent's, and a request of the page held paused.
        await send('Debugger.setBreakpointByUrl', {
          url: bank.url('/app.js'),
          lineNumber: 1,
          condition: "(document.title = 'PWNED by a breakpoint', false)",
        })
        await send('Fetch.enable', { patterns: [{ urlPattern: '*/account' }, { urlPattern: '*/ping' }] })
        const ping = send('Runtime.evaluate', {
          expression: "fetch('/ping').then((r) => r.text())",
          awaitPromise: true,
          returnByValue: true,
        }) as Promise<{ result: { value: unknown } }>
        await poll(() => paused.map((p) => p.url)).toEqual([bank.url('/ping')])
        const { frameTree } = (await send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } }

        // The person takes the wheel through the person's route.
        expect((await host.call(undefined, 'POST', '/v1/person/wheel', { session: 'w6' })).status).toBe(200)
        // The request paused at the take goes on as it came: the site answers the page, not the agent.
        expect((await ping).result.value).toBe('pong')

        // While the person drives, the agent tries again: every one of these is held.
        const held = [
          send('Runtime.evaluate', { expression: "document.getElementById('out').textContent = 'PWNED by evaluate'" }),
          send('Page.addScriptToEvaluateOnNewDocument', { source: "document.title = 'PWNED by a script'" }),
          send('Debugger.setBreakpointByUrl', {
            url: bank.url('/app.js'),
            lineNumber: 2,
            condition: "(document.title = 'PWNED by a second breakpoint', false)",
          }),
          send('CSS.createStyleSheet', { frameId: frameTree.frame.id }),
          send('Fetch.fulfillRequest', {
            requestId: paused[0]!.requestId,
            responseCode: 200,
            body: Buffer.from('agent').toString('base64'),
          }),
          send('Fetch.enable', { patterns: [{ urlPattern: '*' }] }),
        ].map(tracked)

        const person = await liveView()
        await person.click('w6', 120, 50)
        await poll(async () => (await host.call('w6', 'GET', '/v1/text')).body.text).toContain('the person clicked')
        await person.click('w6', 120, 150)
        await poll(async () => (await host.call('w6', 'GET', '/v1/url')).body.url).toBe(bank.url('/account'))
        const shown = await host.call('w6', 'GET', '/v1/html')
        // What the person did, and nothing of the agent's: the real account page, from the real site.
        expect(shown.body.html).toContain('Your real account')
        expect(shown.body.html).not.toMatch(/PWNED|re-enter/)
        expect(bank.log.filter((p) => p === '/account')).toHaveLength(1)
        // The client's interception never saw the person's request.
        expect(paused.map((p) => p.url)).toEqual([bank.url('/ping')])
        expect(held.filter((h) => h.settled)).toEqual([])

        expect((await host.call(undefined, 'POST', '/v1/person/hand-back', { session: 'w6' })).status).toBe(200)
        // After the hand-back every held command is answered, in order: run, or refused by the
        // browser (the request the agent meant to answer is no longer paused). None is dropped.
        const answers = await Promise.allSettled(held.map((h) => h.promise))
        expect(answers.map((a) => a.status)).toEqual([
          'fulfilled',
          'fulfilled',
          'fulfilled',
          'fulfilled',
          'rejected',
          'fulfilled',
        ])
        expect(String((answers[4] as PromiseRejectedResult).reason)).toMatch(/Invalid InterceptionId/i)
      } finally {
        await client.close()
      }
    },
  )
})
