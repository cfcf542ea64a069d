import { AllBusy, InspectorUnavailable, UnknownConversation } from '@errands/sessions'
import { InspectorSwitch, openInspectorRelay, sessionsLayer, testSupervisor } from '@errands/supervisor'
import { Effect, Layer } from 'effect'
import { describe, expect, it } from 'vitest'
import { HostUnavailable, PageError } from '../errors.ts'
import { makePerson } from '../person/make.ts'
import { TEST_TOKEN, testApp } from './testing.ts'

// In-process, no port, no browser (B1, B3, B7): every refused request reaches no service.

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'
type Endpoint = readonly [Method, string, unknown?]

const SESSION_ENDPOINTS: ReadonlyArray<Endpoint> = [
  ['POST', '/v1/navigate', { url: 'https://example.com/' }],
  ['GET', '/v1/url'],
  ['GET', '/v1/text'],
  ['GET', '/v1/html'],
  ['GET', '/v1/screenshot'],
  ['POST', '/v1/click', { selector: '#go' }],
  ['POST', '/v1/fill', { selector: '#q', value: 'shoes' }],
  ['POST', '/v1/scroll', { dx: 0, dy: 400 }],
  ['POST', '/v1/back'],
  ['POST', '/v1/forward'],
  ['POST', '/v1/reload'],
  ['GET', '/v1/frame'],
  ['GET', '/v1/state'],
  ['POST', '/v1/input', { events: [{ type: 'key', action: 'press', key: 'Enter' }] }],
  ['POST', '/v1/viewport', { width: 800, height: 600 }],
  ['GET', '/v1/tabs'],
  ['POST', '/v1/tabs', { url: 'https://example.com/' }],
  ['POST', '/v1/tabs/abcd1234-t1/activate'],
  ['DELETE', '/v1/tabs/abcd1234-t1'],
  ['POST', '/v1/session/task', { status: 'interrupted' }],
  ['DELETE', '/v1/session'],
]

const json = { 'content-type': 'application/json' }

const send = (
  app: ReturnType<typeof testApp>['app'],
  [method, path, body]: Endpoint,
  headers: Record<string, string> = {},
) =>
  app.request(path, {
    method,
    headers: { ...(body !== undefined ? json : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error

const BAD_KEYS: ReadonlyArray<readonly [string, string | undefined]> = [
  ['missing', undefined],
  ['empty', ''],
  ['129 characters', 'k'.repeat(129)],
  ['a space', 'agent 7'],
  ['a tab', 'agent\t7'],
  ['Unicode (UTF-8 bytes as Node hands them over)', Buffer.from('ключ').toString('latin1')],
  ['Latin-1', 'caf\u00e9'],
  ['a control character', 'a\u0001b'],
  ['DEL', 'a\u007fb'],
  ['two keys (a repeated header, joined)', 'a, b'],
  ['a slash', 'a/b'],
  ['a quote', 'a"b'],
  ['an at sign', 'a@b'],
  ['a percent-encoding', 'a%20b'],
]

describe('the session key (B1)', () => {
  for (const endpoint of SESSION_ENDPOINTS) {
    const title = `${endpoint[0]} ${endpoint[1]} refuses every malformed key with a JSON 400 before any service call`
    it(title, async () => {
      const { app, calls } = testApp()
      for (const [, key] of BAD_KEYS) {
        const res = await send(app, endpoint, key === undefined ? {} : { 'x-browser-session': key })
        expect(res.status).toBe(400)
        expect(res.headers.get('content-type')).toContain('application/json')
        expect((await errorOf(res)).code).toBe('InvalidSessionKey')
      }
      expect(calls).toEqual([])
    })
  }

  it('says which rule a key broke, in words a model can act on', async () => {
    const { app } = testApp()
    const messages = await Promise.all(
      BAD_KEYS.slice(0, 4).map(
        async ([, key]) =>
          (
            await errorOf(
              await app.request('/v1/url', { headers: key === undefined ? {} : { 'x-browser-session': key } }),
            )
          ).message,
      ),
    )
    expect(messages[0]).toMatch(/needs the header X-Browser-Session/)
    expect(messages[1]).toMatch(/empty/)
    expect(messages[2]).toMatch(/at most 128/)
    expect(messages[3]).toMatch(/outside A–Z a–z 0–9 \. _ : -/)
  })

  it('accepts the boundary keys: 1 character, 128 characters, every allowed character', async () => {
    const { app, calls } = testApp()
    for (const key of ['a', 'k'.repeat(128), 'AZaz09._:-', 'session:agent-7.research_2']) {
      const res = await app.request('/v1/url', { headers: { 'x-browser-session': key } })
      expect(res.status).toBe(200)
    }
    expect(calls.map((c) => (c.args[0] as { key: string }).key)).toEqual([
      'a',
      'k'.repeat(128),
      'AZaz09._:-',
      'session:agent-7.research_2',
    ])
  })

  it('the stateless endpoints and health need no key', async () => {
    const { app } = testApp()
    expect((await app.request('/health')).status).toBe(200)
    expect((await app.request('/v1/localhosts')).status).toBe(200)
    expect(
      (await app.request('/v1/fetch', { method: 'POST', headers: json, body: '{"url":"http://127.0.0.1:3000/"}' }))
        .status,
    ).toBe(200)
  })
})

const BAD_BODIES: ReadonlyArray<readonly [string, ReadonlyArray<unknown>]> = [
  [
    '/v1/navigate',
    [
      {},
      { url: 5 },
      { url: 'not a url' },
      { url: '' },
      { url: 'https://a.example/', extra: 1 },
      { url: 'https://a.example/', sessionId: 'other' },
      [],
      'https://a.example/',
      null,
    ],
  ],
  [
    '/v1/click',
    [
      {},
      { selector: 1 },
      { selector: '' },
      { selector: '#a', timeoutMs: 'soon' },
      { selector: '#a', timeoutMs: 10 },
      { selector: '#a', force: true },
    ],
  ],
  ['/v1/fill', [{ selector: '#a' }, { selector: '#a', value: 5 }, { selector: '#a', value: 'x', y: 1 }]],
  ['/v1/scroll', [{ dx: 1 }, { dx: '1', dy: 1 }, { dx: 1, dy: Number.MAX_VALUE }, { dx: 0, dy: 0, smooth: true }]],
  [
    '/v1/viewport',
    [
      { width: 800 },
      { width: 800.5, height: 600 },
      { width: 99, height: 600 },
      { width: 800, height: 4097 },
      { width: '800', height: '600' },
    ],
  ],
  [
    '/v1/input',
    [
      {},
      { events: [] },
      { events: [{ type: 'telepathy' }] },
      { events: [{ type: 'mouse', action: 'click', x: 'a', y: 1 }] },
      { events: [{ type: 'key', action: 'press' }] },
      { events: Array.from({ length: 201 }, () => ({ type: 'text', text: 'a' })) },
    ],
  ],
  ['/v1/tabs', [{}, { url: 1 }]],
  ['/v1/session/task', [{}, { status: 'finished' }, { status: 'done', why: 'x' }]],
  ['/v1/back', [{ steps: 2 }]],
  ['/v1/reload', [{ hard: true }]],
]

describe('bodies (B3): JSON only, decoded strictly', () => {
  for (const [path, bodies] of BAD_BODIES) {
    it(
      `POST ${path} refuses wrong types, missing and unknown fields with a 400 naming the field, and calls ` +
        `nothing`,
      async () => {
        const { app, calls } = testApp()
        for (const body of bodies) {
          const res = await app.request(path, {
            method: 'POST',
            headers: { ...json, 'x-browser-session': 'k1' },
            body: JSON.stringify(body),
          })
          expect(res.status, JSON.stringify(body)).toBe(400)
          const error = await errorOf(res)
          expect(error.code).toBe('BadRequest')
          expect(error.message).toMatch(/body/)
        }
        expect(calls).toEqual([])
      },
    )
  }

  it('refuses text that is not JSON', async () => {
    const { app, calls } = testApp()
    for (const body of ['{', '{"url":}', 'url=https://a.example', '\u0000']) {
      const res = await app.request('/v1/navigate', {
        method: 'POST',
        headers: { ...json, 'x-browser-session': 'k1' },
        body,
      })
      expect(res.status).toBe(400)
      expect(await errorOf(res)).toMatchObject({ code: 'BadRequest', message: expect.stringMatching(/not valid JSON/) })
    }
    expect(calls).toEqual([])
  })

  it('refuses a body on an endpoint that takes none, and unknown query parameters', async () => {
    const { app, calls } = testApp()
    const withBody = await app.request('/v1/session', {
      method: 'DELETE',
      headers: { ...json, 'x-browser-session': 'k1' },
      body: '{"all":true}',
    })
    expect(withBody.status).toBe(400)
    const query = await app.request('/v1/url?tab=2', { headers: { 'x-browser-session': 'k1' } })
    expect(query.status).toBe(400)
    const shot = await app.request('/v1/screenshot?fullPage=maybe', { headers: { 'x-browser-session': 'k1' } })
    expect(shot.status).toBe(400)
    expect(calls).toEqual([])
  })

  it('refuses bodies a plain web form can send, and bodies without a type (415)', async () => {
    const { app, calls } = testApp()
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
      undefined,
    ]) {
      const init: RequestInit = {
        method: 'POST',
        headers: { 'x-browser-session': 'k1', ...(type ? { 'content-type': type } : {}) },
        body: new TextEncoder().encode('{"url":"https://a.example/"}'),
      }
      const res = await app.request('/v1/navigate', init)
      expect(res.status, String(type)).toBe(415)
      expect((await errorOf(res)).code).toBe('UnsupportedMediaType')
    }
    expect(calls).toEqual([])
  })

  it('passes a valid body through, with the key, to exactly one call', async () => {
    const { app, calls } = testApp()
    const res = await app.request('/v1/fill', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-browser-session': 'k1' },
      body: '{"selector":"#q","value":"shoes"}',
    })
    expect(res.status).toBe(200)
    expect(calls).toEqual([
      {
        method: 'fill',
        args: [
          { _tag: 'session', key: 'k1' },
          { selector: '#q', value: 'shoes' },
        ],
      },
    ])
  })
})

describe('local-service defences (B7)', () => {
  it("answers only Host: 127.0.0.1:<port> or localhost:<port> (DNS rebinding → 421, the edge's one rule)", async () => {
    const { app, calls } = testApp()
    expect((await app.request('/health', { headers: { host: 'localhost:7777' } })).status).toBe(200)
    for (const host of [
      'evil.example:7777',
      'localhost',
      '127.0.0.1',
      '127.0.0.1:7778',
      '127.0.0.2:7777',
      '[::1]:7777',
      '127.0.0.1:7777.evil.example',
    ]) {
      const res = await app.request('/v1/url', { headers: { host, 'x-browser-session': 'k1' } })
      expect(res.status, host).toBe(421)
      expect((await errorOf(res)).code).toBe('WrongHost')
    }
    expect((await app.request('/health', { headers: { host: 'evil.example:7777' } })).status).toBe(421)
    expect(calls).toEqual([])
  })

  it('refuses browser requests from any other origin or site (403), and takes its own', async () => {
    const { app, calls } = testApp()
    for (const origin of [
      'https://evil.example',
      'null',
      'http://127.0.0.1:3000',
      'http://localhost:7777',
      'chrome-extension://abc',
    ]) {
      const res = await app.request('/v1/url', { headers: { origin, 'x-browser-session': 'k1' } })
      expect(res.status, origin).toBe(403)
      expect((await errorOf(res)).code).toBe('ForeignOrigin')
    }
    for (const site of ['cross-site', 'same-site']) {
      expect((await app.request('/health', { headers: { 'sec-fetch-site': site } })).status).toBe(403)
    }
    expect(calls).toEqual([])
    expect(
      (await app.request('/v1/url', { headers: { origin: 'http://127.0.0.1:7777', 'x-browser-session': 'k1' } }))
        .status,
    ).toBe(200)
  })

  it('never sends a CORS header, not even to a preflight', async () => {
    const { app } = testApp()
    const responses = [
      await app.request('/v1/url', {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      }),
      await app.request('/v1/url', { method: 'OPTIONS' }),
      await app.request('/health'),
      await app.request('/v1/url', { headers: { 'x-browser-session': 'k1' } }),
      await app.request('/v1/nothing'),
    ]
    for (const res of responses) {
      expect([...res.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([])
      expect(res.headers.get('cache-control')).toBe('no-store')
    }
  })

  it("the person's endpoints need the bearer token; a session key is no authority", async () => {
    const { app, calls } = testApp()
    const paths: ReadonlyArray<Endpoint> = [
      ['GET', '/v1/person/settings'],
      ['GET', '/v1/person/sessions'],
      ['POST', '/v1/person/main/navigate', { url: 'https://accounts.example/' }],
      ['POST', '/v1/person/chats/c1/own-browser', { on: true }],
      ['POST', '/v1/person/lend', { session: 'k1', site: 'shop.example' }],
      ['DELETE', '/v1/person/sessions/k1'],
    ]
    for (const endpoint of paths) {
      const attempts: ReadonlyArray<Record<string, string>> = [
        {},
        { 'x-browser-session': 'k1' },
        { authorization: 'Bearer nope' },
        { authorization: `Basic ${TEST_TOKEN}` },
        { authorization: `Bearer ${TEST_TOKEN}x` },
      ]
      for (const headers of attempts) {
        const res = await send(app, endpoint, headers)
        expect(res.status, `${endpoint[1]} ${JSON.stringify(headers)}`).toBe(401)
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/)
      }
    }
    expect(calls).toEqual([])
    const auth = { authorization: `Bearer ${TEST_TOKEN}` }
    for (const endpoint of paths) expect((await send(app, endpoint, auth)).status, endpoint[1]).toBe(200)
    expect(calls.map((c) => c.method)).toEqual(['settings', 'sessions', 'navigate', 'ownBrowser', 'allow', 'release'])
    expect(calls[2]!.args[0]).toEqual({ _tag: 'main' })
    expect(calls[3]!.args).toEqual(['chat:c1', true])
    expect(calls[4]!.args).toEqual(['session:k1', 'shop.example'])
    expect(calls[5]!.args).toEqual(['k1'])
  })
})

describe('routing and errors', () => {
  it('404 for an unknown path, 405 with Allow for a wrong method', async () => {
    const { app } = testApp()
    const missing = await app.request('/v2/url')
    expect(missing.status).toBe(404)
    expect((await errorOf(missing)).code).toBe('NotFound')
    const wrong = await app.request('/v1/navigate', { headers: { 'x-browser-session': 'k1' } })
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get('allow')).toBe('POST')
  })

  it('refuses a tab id that is no tab id, and undecodable path parameters', async () => {
    const { app, calls } = testApp()
    for (const id of ['a%2Fb', '%zz', 'x'.repeat(65), 't 1'.replace(' ', '%20')]) {
      const res = await app.request(`/v1/tabs/${id}`, { method: 'DELETE', headers: { 'x-browser-session': 'k1' } })
      expect(res.status, id).toBe(400)
    }
    expect(calls).toEqual([])
  })

  it('maps every failure onto the JSON error with its status (AllBusy → 503 + Retry-After)', async () => {
    const { app } = testApp({
      browsing: {
        url: () => Effect.fail(AllBusy.of(4)),
        text: () =>
          Effect.fail(
            new UnknownConversation({
              reason: 'unknown-conversation',
              conversationId: 'session:k1',
              message: 'No conversation',
            }),
          ),
        html: () => Effect.fail(new PageError({ reason: 'timeout', message: 'html: no answer within 10 ms' })),
        state: () => Effect.die(new Error('secret internals')),
      },
    })
    const busy = await app.request('/v1/url', { headers: { 'x-browser-session': 'k1' } })
    expect(busy.status).toBe(503)
    expect(busy.headers.get('retry-after')).toBe('60')
    expect(await errorOf(busy)).toEqual({
      code: 'AllBusy',
      reason: 'all-busy',
      message: expect.stringMatching(/wait a minute and try again/),
    })
    expect((await app.request('/v1/text', { headers: { 'x-browser-session': 'k1' } })).status).toBe(404)
    expect((await app.request('/v1/html', { headers: { 'x-browser-session': 'k1' } })).status).toBe(504)
    const defect = await app.request('/v1/state', { headers: { 'x-browser-session': 'k1' } })
    expect(defect.status).toBe(500)
    expect(JSON.stringify(await defect.json())).not.toContain('secret internals')
  })

  it('serves images as images, with the frame headers', async () => {
    const { app } = testApp()
    const shot = await app.request('/v1/screenshot?fullPage=true', { headers: { 'x-browser-session': 'k1' } })
    expect(shot.headers.get('content-type')).toBe('image/png')
    const frame = await app.request('/v1/frame', { headers: { 'x-browser-session': 'k1' } })
    expect(frame.headers.get('content-type')).toBe('image/jpeg')
    expect(frame.headers.get('x-frame-seq')).toBe('1')
  })

  it('refuses everything with 503 once closed (shutdown)', async () => {
    const { app, calls } = testApp()
    app.close()
    const res = await app.request('/v1/url', { headers: { 'x-browser-session': 'k1' } })
    expect(res.status).toBe(503)
    expect(calls).toEqual([])
  })
})

describe("the XState inspector's switch (V3): GET and PUT /v1/person/inspector", () => {
  const auth = { authorization: `Bearer ${TEST_TOKEN}` }

  it('needs the bearer token and the host’s own origin; refused requests call nothing', async () => {
    const { app, calls } = testApp()
    const attempts: ReadonlyArray<Record<string, string>> = [
      {},
      { 'x-browser-session': 'k1' },
      { authorization: 'Bearer nope' },
    ]
    for (const headers of attempts) {
      expect((await send(app, ['GET', '/v1/person/inspector'], headers)).status).toBe(401)
      expect((await send(app, ['PUT', '/v1/person/inspector', { on: true }], headers)).status).toBe(401)
    }
    expect(
      (await send(app, ['PUT', '/v1/person/inspector', { on: true }], { ...auth, origin: 'https://evil.example' }))
        .status,
    ).toBe(403)
    expect(calls).toEqual([])
  })

  it(
    'refuses any body but {"on": boolean} with a 400 naming it, form bodies with 415, other methods with ' + '405',
    async () => {
      const { app, calls } = testApp()
      for (const body of [{}, { on: 'yes' }, { on: 1 }, { on: null }, { on: true, port: 7778 }, [], 'on', null]) {
        const res = await send(app, ['PUT', '/v1/person/inspector', body], auth)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(await errorOf(res)).toMatchObject({ code: 'BadRequest', message: expect.stringMatching(/body/) })
      }
      const empty = await app.request('/v1/person/inspector', { method: 'PUT', headers: auth })
      expect(empty.status).toBe(400)
      const form = await app.request('/v1/person/inspector', {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'text/plain' },
        body: '{"on":true}',
      })
      expect(form.status).toBe(415)
      const getWithQuery = await app.request('/v1/person/inspector?on=true', { headers: auth })
      expect(getWithQuery.status).toBe(400)
      const del = await app.request('/v1/person/inspector', { method: 'DELETE', headers: auth })
      expect(del.status).toBe(405)
      expect(del.headers.get('allow')).toBe('GET, PUT')
      expect(calls).toEqual([])
    },
  )

  it('switches on and off through the person’s service and answers its status', async () => {
    const { app, calls } = testApp()
    const on = await send(app, ['PUT', '/v1/person/inspector', { on: true }], auth)
    expect(on.status).toBe(200)
    expect(await on.json()).toMatchObject({ on: true, url: 'http://127.0.0.1:7778/' })
    expect(await (await send(app, ['GET', '/v1/person/inspector'], auth)).json()).toMatchObject({ on: true })
    expect(await (await send(app, ['PUT', '/v1/person/inspector', { on: false }], auth)).json()).toMatchObject({
      on: false,
      url: null,
    })
    expect(calls).toEqual([
      { method: 'setInspector', args: [true] },
      { method: 'inspector', args: [] },
      { method: 'setInspector', args: [false] },
    ])
  })

  it('a taken port is a 503 InspectorUnavailable in words; a host without the switch says 501 not wired', async () => {
    const { app } = testApp({
      person: {
        setInspector: () =>
          Effect.fail(
            new InspectorUnavailable({
              reason: 'port-in-use',
              message: 'Port 7778 on 127.0.0.1 is in use; set ERRANDS_INSPECT_PORT to a free port.',
            }),
          ),
        inspector: Effect.fail(
          new HostUnavailable({ reason: 'not-wired', message: 'The XState inspector is not available in this host.' }),
        ),
      },
    })
    const taken = await send(app, ['PUT', '/v1/person/inspector', { on: true }], auth)
    expect(taken.status).toBe(503)
    expect(await errorOf(taken)).toEqual({
      code: 'InspectorUnavailable',
      reason: 'port-in-use',
      message: expect.stringMatching(/ERRANDS_INSPECT_PORT/),
    })
    expect((await send(app, ['GET', '/v1/person/inspector'], auth)).status).toBe(501)
  })

  it(
    'over the real person service and switch: PUT on opens the inspector page on 127.0.0.1, PUT off closes ' + 'it',
    async () => {
      const program = Effect.gen(function* () {
        const person = yield* makePerson
        const { app } = testApp({ person })
        const on = yield* Effect.promise(
          async () =>
            (await send(app, ['PUT', '/v1/person/inspector', { on: true }], auth)).json() as Promise<{
              on: boolean
              url: string
            }>,
        )
        expect(on).toMatchObject({ on: true, url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/) })
        const page = yield* Effect.promise(() => fetch(on.url))
        expect(page.status).toBe(200)
        expect(yield* Effect.promise(() => page.text())).toContain('https://stately.ai/inspect')
        const off = yield* Effect.promise(async () =>
          (await send(app, ['PUT', '/v1/person/inspector', { on: false }], auth)).json(),
        )
        expect(off).toMatchObject({ on: false, url: null })
        const closed = yield* Effect.promise(() =>
          fetch(on.url).then(
            () => false,
            () => true,
          ),
        )
        expect(closed).toBe(true)
      })
      const inspector = InspectorSwitch.layer({ open: () => openInspectorRelay({ port: 0 }) })
      await Effect.runPromise(
        program.pipe(
          Effect.provide(Layer.merge(sessionsLayer.pipe(Layer.provideMerge(testSupervisor())), inspector)),
          Effect.scoped,
        ),
      )
    },
  )
})
