/**
 * The live view's JSON API as declared (docs/edge.md, "Declared routes"; docs/live-view.md, "The API"), through
 * the real host on its real port: `/v1/openapi.json` lists every route of the live view's table with its
 * sign-in, and whatever a hostile caller sends to a live-view route — a body that is not JSON, a field that is
 * not there, a wrong type, text it typed, a path parameter that is no id, a method the route does not take —
 * is the edge's JSON refusal in the edge's words, before any call.
 */
import { endpointsOf } from '@errands/edge'
import { liveApi } from '@errands/liveview'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startTestHost } from '../host/harness.ts'

let host: Awaited<ReturnType<typeof startTestHost>>
let id: string
let own: string

beforeAll(async () => {
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '2' })
  own = `127.0.0.1:${host.port}`
  const signedIn = await request(host.port, {
    method: 'POST',
    path: '/live/sign-in',
    headers: { host: own, origin: `http://${own}`, 'content-type': 'application/json' },
    body: JSON.stringify({ token: host.tokenText }),
  })
  expect(signedIn.status).toBe(200)
  id = signedIn.body.id
})
afterAll(async () => {
  await host?.close()
})

/** A signed-in call from the live view's own page. */
const live = (method: string, path: string, body?: string) =>
  request(host.port, {
    method,
    path,
    headers: {
      host: own,
      origin: `http://${own}`,
      'x-errands-live': id,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body,
  })

describe("the live view's API, declared", () => {
  it('the served document lists every live-view route with its method, sign-in and answer', async () => {
    const doc = await request(host.port, { path: '/v1/openapi.json', headers: { host: own } })
    expect(doc.status).toBe(200)
    const paths = doc.body.paths as Record<string, Record<string, any>>
    const declared = endpointsOf(liveApi)
    expect(declared.length).toBeGreaterThan(15)
    for (const e of declared) {
      const op = paths[e.path.replace(/:([A-Za-z]+)/g, '{$1}')]?.[e.method.toLowerCase()]
      expect(op, `${e.method} ${e.path}`).toBeDefined()
      expect(op.security).toEqual(e.access === 'live' ? [{ liveSignIn: [] }] : [])
      expect(op.responses['200'].content['application/json'].schema).toBeDefined()
    }
    // The state is described part by part, and the live routes sit beside /v1 in one document.
    expect(paths['/live/api/state']!.get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/LiveState',
    })
    expect(paths['/v1/navigate']!.post).toBeDefined()
  })

  it("a body that does not fit a live-view route is the edge's 400, in the edge's words, before any call", async () => {
    const secret = 'typed-by-the-person-7f3a'
    const cases: Array<[string, string, string, string]> = [
      ['POST', '/live/api/conversations/chat%3Ax/own-browser', '{"on":"yes"}', 'invalid-body'],
      ['POST', '/live/api/conversations/chat%3Ax/own-browser', '{"on":true,"also":1}', 'invalid-body'],
      ['POST', '/live/api/conversations/session%3Ak1/park', '{"now":true}', 'invalid-body'],
      ['POST', '/live/api/conversations/session%3Ak1/park', '[]', 'invalid-body'],
      ['POST', '/live/api/conversations/session%3Ak1/take-wheel', '{not json', 'invalid-json'],
      ['POST', '/live/api/conversations/session%3Ak1/hand-back', JSON.stringify({ note: 7 }), 'invalid-body'],
      ['POST', '/live/api/questions/q1', '{"answer":"maybe"}', 'invalid-body'],
      ['PUT', '/live/api/inspector', '{"on":1}', 'invalid-body'],
      ['POST', '/live/api/passwords', JSON.stringify({ site: 'a.example', username: 'me' }), 'invalid-body'],
      [
        'POST',
        '/live/api/conversations/session%3Ak1/input',
        JSON.stringify({
          events: [
            { type: 'text', text: secret },
            { type: 'text', text: secret, via: 'paste' },
          ],
        }),
        'invalid-body',
      ],
      [
        'POST',
        '/live/api/conversations/session%3Ak1/input',
        JSON.stringify({ events: [{ type: 'text', text: secret.repeat(100) }] }),
        'invalid-body',
      ],
      ['POST', '/live/sign-in', JSON.stringify({ token: secret.repeat(500) }), 'invalid-body'],
    ]
    for (const [method, path, body, reason] of cases) {
      const r = await live(method, path, body)
      const where = `${method} ${path} ${body.slice(0, 60)}`
      expect(r.status, where).toBe(400)
      expect(r.headers['content-type'], where).toMatch(/^application\/json/)
      expect(r.body.error, where).toMatchObject({ code: 'BadRequest', reason })
      // The one decoder's words: the same as /v1's for a body that does not fit.
      if (reason === 'invalid-body') expect(r.body.error.message, where).toMatch(/^The body (does not fit|must be)/)
      expect(JSON.stringify(r.body), where).not.toContain(secret)
    }
    const v1 = await request(host.port, {
      method: 'POST',
      path: '/v1/navigate',
      headers: { host: own, 'x-browser-session': 'k1', 'content-type': 'application/json' },
      body: '{"url":"https://a.example/","also":1}',
    })
    expect(v1.body.error.message).toMatch(/^The body does not fit this endpoint — /)
    // Nothing was called: no errand was opened, no wheel taken.
    expect(await host.run(host.supervisor.list)).toEqual([])
  })

  it('a parameter that is no id, a method a route does not take, and no sign-in are refused as declared', async () => {
    const badId = await live('POST', `/live/api/conversations/${'x'.repeat(201)}/park`, '{}')
    expect(badId.status).toBe(400)
    expect(badId.body.error).toMatchObject({ code: 'BadRequest', reason: 'invalid-parameter' })
    const badEncoding = await live('POST', '/live/api/conversations/%zz/park', '{}')
    expect(badEncoding.body.error).toMatchObject({ code: 'BadRequest', reason: 'invalid-parameter' })
    const wrongMethod = await live('DELETE', '/live/api/state')
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.allow).toBe('GET')
    const unknown = await live('POST', '/live/api/conversations/session%3Ak1/explode', '{}')
    expect(unknown.body.error).toMatchObject({ code: 'NotFound', reason: 'no-route' })
    const unsigned = await request(host.port, {
      method: 'POST',
      path: '/live/api/conversations/session%3Ak1/take-wheel',
      headers: { host: own, origin: `http://${own}`, 'content-type': 'application/json' },
      body: '{}',
    })
    expect(unsigned.status).toBe(401)
    expect(unsigned.body.error).toMatchObject({ code: 'Unauthorized', reason: 'missing-token' })
    expect(await host.run(host.supervisor.list)).toEqual([])
  })

  it('a body that fits is answered through its declared Schema', async () => {
    const state = await live('GET', '/live/api/state')
    expect(state.status).toBe(200)
    expect(Object.keys(state.body).sort()).toEqual(
      ['at', 'capacity', 'conversations', 'health', 'inspector', 'main', 'questions'].filter(
        (k) => k !== 'questions' || 'questions' in state.body,
      ),
    )
    const parked = await live('POST', '/live/api/conversations/session%3Anobody/park', '{}')
    expect(parked.status).toBe(404)
    expect(parked.body.error.code).toBe('UnknownConversation')
  })
})
