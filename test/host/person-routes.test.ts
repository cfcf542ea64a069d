/**
 * The person's wheel as routes (P1, P2, X1–X3, issue #26): `POST /v1/person/wheel` and
 * `POST /v1/person/hand-back` on a real host with real Chromium for its errands, a cap of one and
 * agent tokens switched on (X2). The person takes the wheel of an errand nobody watches in the
 * live view: the agent's acting verbs answer 409, another session's open is refused with 503 while
 * the driven errand stays open (C2), and the hand-back answers the agent's waiting request with
 * the note and lets the cap park it again. An agent's credential — its bearer token, its session
 * key — answers no question, takes no wheel, hands back nothing and sends no live-view input.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpClient } from '../mcp/clients.ts'
import { serveFixture, type Fixture } from './fixtures.ts'
import { request, startTestHost, type TestHost } from './harness.ts'

let host: TestHost
let site: Fixture
let dir: string
const agent = randomBytes(24).toString('base64url')
const asAgent = { authorization: `Bearer ${agent}` }

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'errands-person-routes-'))
  const file = join(dir, 'agent-tokens')
  writeFileSync(file, `${agent} *\n`, { mode: 0o600 })
  site = await serveFixture('127.0.0.2')
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '1', ERRANDS_AGENT_TOKENS_FILE: file })
})
afterAll(async () => {
  await host?.stop()
  await site?.close()
  rmSync(dir, { recursive: true, force: true })
})

const poll = <T>(f: () => T | Promise<T>) => expect.poll(f, { timeout: 20_000, interval: 100 })
/** An agent's call for session `key`, with its token. */
const agentCall = (key: string, method: string, path: string, body?: unknown) =>
  host.call(key, method, path, body, asAgent)
/** A call to a `/v1/person/` route made with the agent's token instead of the person's. */
const agentAsPerson = (method: string, path: string, body?: unknown) => host.call('k1', method, path, body, asAgent)
/** A session's errand as the person's list shows it. */
const errand = async (key: string) => {
  const listed = await host.call(undefined, 'GET', '/v1/person/sessions')
  expect(listed.status).toBe(200)
  return (
    listed.body as { sessions: Array<{ conversationId: string; state: string; personDriving?: boolean }> }
  ).sessions.find((s) => s.conversationId === `session:${key}`)
}
/** A live-view API call as a page of another process would make it: the host's own Origin, the given headers. */
const live = (path: string, headers: Record<string, string>, body: unknown) =>
  request(host.port, {
    method: 'POST',
    path,
    headers: { origin: `http://127.0.0.1:${host.port}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

describe('the wheel as /v1/person routes', () => {
  it('takes the wheel and hands it back: the agent is refused (409) meanwhile and gets the note', async () => {
    expect((await agentCall('k1', 'POST', '/v1/navigate', { url: site.url('/page?t=one') })).status).toBe(200)
    const helped = agentCall('k1', 'POST', '/v1/session/help', { reason: 'A captcha', timeoutMs: 120_000 })
    await poll(
      async () => (await host.run(host.supervisor.list)).find((v) => v.conversationId === 'session:k1')?.help?.reason,
    ).toBe('A captcha')

    // Through the typed client: the route is declared like every other.
    const taken = await host.v1().person.takeWheel({ body: { session: 'k1' } })
    expect(taken.status).toBe(200)
    expect(taken.body).toMatchObject({ conversationId: 'session:k1', state: 'active', personDriving: true })
    expect((await errand('k1'))?.personDriving).toBe(true)

    const click = await agentCall('k1', 'POST', '/v1/navigate', { url: site.url('/page?t=agent') })
    expect(click.status).toBe(409)
    expect(click.body).toMatchObject({ error: { code: 'PersonDriving' } })

    const back = await host.call(undefined, 'POST', '/v1/person/hand-back', { session: 'k1', note: '  Solved it  ' })
    expect(back.status).toBe(200)
    expect(back.body).toEqual({ conversationId: 'session:k1', handedBack: true })
    expect((await helped).body).toEqual({ handedBack: true, note: 'Solved it' })
    expect((await errand('k1'))?.personDriving).toBeUndefined()
    expect((await agentCall('k1', 'POST', '/v1/navigate', { url: site.url('/page?t=two') })).status).toBe(200)
    // Handing back twice is no error.
    expect((await host.call(undefined, 'POST', '/v1/person/hand-back', { conversationId: 'session:k1' })).status).toBe(
      200,
    )
  })

  it(
    "the agent's park, task end, release and proxy change while a person drives: 409 PersonDriving, the errand " +
      'stays open with the person; after the hand-back they work (P1, P2)',
    async () => {
      expect((await agentCall('k1', 'POST', '/v1/navigate', { url: site.url('/page?t=kept') })).status).toBe(200)
      expect((await host.call(undefined, 'POST', '/v1/person/wheel', { session: 'k1' })).status).toBe(200)
      const mcp = await httpClient(host.url, { key: 'k1', headers: asAgent })
      try {
        for (const [method, path, body] of [
          ['POST', '/v1/session/task', { status: 'interrupted' }],
          ['POST', '/v1/session/task', { status: 'failed' }],
          ['POST', '/v1/session/task', { status: 'done' }],
          ['POST', '/v1/session/task', { status: 'stopped' }],
          ['DELETE', '/v1/session', undefined],
          ['PUT', '/v1/session/proxy', { url: 'http://127.0.0.1:9' }],
          ['PUT', '/v1/session/proxy', { url: null }],
        ] as const) {
          const r = await agentCall('k1', method, path, body)
          expect([method, path, r.status, r.body.error?.code]).toEqual([method, path, 409, 'PersonDriving'])
        }
        // MCP's matching tool, through the SDK's client: browser_close (it parks) is refused the same way.
        const closed = await mcp.call('browser_close', {})
        expect(closed.isError).toBe(true)
        expect(closed.text).toContain('A person is using this browser')
        // The errand stayed as it was: open, with the person, on the page the agent left.
        expect(await errand('k1')).toMatchObject({ state: 'active', personDriving: true })
        expect((await agentCall('k1', 'GET', '/v1/url')).body.url).toBe(site.url('/page?t=kept'))
        // A running status is no ending: it goes on.
        expect((await agentCall('k1', 'POST', '/v1/session/task', { status: 'running' })).status).toBe(200)
      } finally {
        await mcp.end()
      }
      expect((await host.call(undefined, 'POST', '/v1/person/hand-back', { session: 'k1' })).status).toBe(200)
      const parked = await agentCall('k1', 'POST', '/v1/session/task', { status: 'interrupted' })
      expect(parked.status).toBe(200)
      expect(parked.body).toEqual({ lifecycle: 'parked' })
      expect((await agentCall('k1', 'DELETE', '/v1/session')).status).toBe(200)
    },
  )

  it(
    "answers bad input with a JSON 4xx: unknown session 404, a chat in the person's own browser 400, bad bodies " +
      '400, no token 401',
    async () => {
      const unknown = await host.call(undefined, 'POST', '/v1/person/wheel', { session: 'nobody' })
      expect(unknown.status).toBe(404)
      expect(unknown.body).toMatchObject({ error: { code: 'UnknownConversation' } })
      expect((await host.call(undefined, 'POST', '/v1/person/hand-back', { session: 'nobody' })).status).toBe(404)

      // A chat that browses in the person's own browser has no wheel of its own.
      expect((await host.call(undefined, 'POST', '/v1/person/chats/c1/own-browser', { on: false })).status).toBe(200)
      const chat = await host.call(undefined, 'POST', '/v1/person/wheel', { conversationId: 'chat:c1' })
      expect(chat.status).toBe(400)
      expect(chat.body).toMatchObject({ error: { code: 'InvalidRequest' } })

      for (const body of [{}, { session: '' }, { session: 'bad key!' }, { session: 'k1', site: 'x' }]) {
        const r = await host.call(undefined, 'POST', '/v1/person/wheel', body)
        expect(r.status, JSON.stringify(body)).toBe(400)
        expect(r.body.error.code).toBe('BadRequest')
      }
      expect(
        (await host.call(undefined, 'POST', '/v1/person/hand-back', { session: 'k1', note: 'x'.repeat(2_001) })).status,
      ).toBe(400)
      const anonymous = await request(host.port, {
        method: 'POST',
        path: '/v1/person/wheel',
        headers: { 'content-type': 'application/json' },
        body: '{"session":"k1"}',
      })
      expect(anonymous.status).toBe(401)
      expect((await errand('k1'))?.personDriving).toBeUndefined()
    },
  )
})

describe("an agent's credential is not the person's (X2, X3)", () => {
  it('cannot answer a question: 401 with a JSON body, and the question still waits', async () => {
    const asked = agentCall('k1', 'POST', '/v1/session/permission', { site: '127.0.0.1', timeoutMs: 60_000 })
    await poll(
      async () =>
        ((await host.call(undefined, 'GET', '/v1/person/questions')).body as { questions: unknown[] }).questions.length,
    ).toBe(1)
    const [question] = (
      (await host.call(undefined, 'GET', '/v1/person/questions')).body as { questions: Array<{ id: string }> }
    ).questions
    for (const headers of [asAgent, { ...asAgent, 'x-browser-session': 'k1' }]) {
      const r = await host.call(undefined, 'POST', `/v1/person/questions/${question!.id}`, { answer: 'allow' }, headers)
      expect(r.status).toBe(401)
      expect(r.body).toMatchObject({ error: { code: 'Unauthorized' } })
    }
    // Nor through the live view: the agent's token signs nobody in, and is no sign-in id.
    expect((await live('/live/sign-in', {}, { token: agent })).status).toBe(401)
    const viaLive = await live(
      `/live/api/questions/${question!.id}`,
      { ...asAgent, 'x-errands-live': agent },
      { answer: 'allow' },
    )
    expect(viaLive.status).toBe(401)
    expect(viaLive.body.error.code).toBe('Unauthorized')
    expect(
      (
        (await host.call(undefined, 'GET', '/v1/person/questions')).body as { questions: Array<{ id: string }> }
      ).questions.map((q) => q.id),
    ).toEqual([question!.id])

    expect(
      (await host.call(undefined, 'POST', `/v1/person/questions/${question!.id}`, { answer: 'deny' })).status,
    ).toBe(200)
    expect((await asked).body).toMatchObject({ site: '127.0.0.1' })
  })

  it('cannot take the wheel, hand back or send live-view input: 401, and the wheel stays where it was', async () => {
    const take = await agentAsPerson('POST', '/v1/person/wheel', { session: 'k1' })
    expect(take.status).toBe(401)
    expect(take.body).toMatchObject({ error: { code: 'Unauthorized' } })
    expect((await errand('k1'))?.personDriving).toBeUndefined()
    for (const action of ['take-wheel', 'input']) {
      const r = await live(
        `/live/api/conversations/session%3Ak1/${action}`,
        { ...asAgent, 'x-errands-live': agent, 'x-browser-session': 'k1' },
        { events: [{ type: 'text', text: 'x' }] },
      )
      expect(r.status, action).toBe(401)
      expect(r.body.error.code).toBe('Unauthorized')
    }
    expect((await errand('k1'))?.personDriving).toBeUndefined()

    // While the person drives, the agent can neither hand back nor type into the errand.
    expect((await host.call(undefined, 'POST', '/v1/person/wheel', { session: 'k1' })).status).toBe(200)
    expect((await agentAsPerson('POST', '/v1/person/hand-back', { session: 'k1' })).status).toBe(401)
    expect(
      (await live('/live/api/conversations/session%3Ak1/hand-back', { ...asAgent, 'x-errands-live': agent }, {}))
        .status,
    ).toBe(401)
    const typed = await agentCall('k1', 'POST', '/v1/input', { events: [{ type: 'text', text: 'x' }] })
    expect(typed.status).toBe(409)
    expect(typed.body).toMatchObject({ error: { code: 'PersonDriving' } })
    expect((await errand('k1'))?.personDriving).toBe(true)
    expect((await host.call(undefined, 'POST', '/v1/person/hand-back', { session: 'k1' })).status).toBe(200)
  })
})

describe('the cap with a person at the wheel (C2), nobody watching', () => {
  it(
    'another session is refused (503) and the driven errand stays open; after the hand-back the next open parks ' +
      'it',
    async () => {
      expect((await errand('k1'))?.state).toBe('active')
      expect((await host.call(undefined, 'POST', '/v1/person/wheel', { session: 'k1' })).status).toBe(200)
      expect(await errand('k1')).toMatchObject({ state: 'active', personDriving: true })

      const other = await agentCall('k2', 'POST', '/v1/navigate', { url: site.url('/page?t=other') })
      expect(other.status).toBe(503)
      expect(other.body).toMatchObject({ error: { code: 'AllBusy' } })
      expect(await errand('k1')).toMatchObject({ state: 'active', personDriving: true })

      expect((await host.call(undefined, 'POST', '/v1/person/hand-back', { session: 'k1' })).status).toBe(200)
      expect((await agentCall('k2', 'POST', '/v1/navigate', { url: site.url('/page?t=other') })).status).toBe(200)
      await poll(async () => (await errand('k1'))?.state).toBe('parked')
      expect((await errand('k2'))?.state).toBe('active')
    },
  )
})
