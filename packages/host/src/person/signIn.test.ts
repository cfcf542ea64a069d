import { Effect } from 'effect'
import { describe, expect, it } from 'vitest'
import { TEST_TOKEN, testApp } from '../http/testing.ts'

// POST /v1/session/permission in-process (issue #26, P4, L2, L3): the real route table, the real
// questions service, the person's service faked and recorded.

const ask = (app: ReturnType<typeof testApp>['app'], body: unknown) =>
  app.request('/v1/session/permission', {
    method: 'POST',
    headers: { 'x-browser-session': 'k1', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
const person = (app: ReturnType<typeof testApp>['app'], path: string, body?: unknown) =>
  app.request(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${TEST_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
const firstQuestion = async (app: ReturnType<typeof testApp>['app']): Promise<string> => {
  for (;;) {
    const { questions } = (await (await person(app, '/v1/person/questions')).json()) as {
      questions: Array<{ id: string }>
    }
    if (questions.length > 0) return questions[0]!.id
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('POST /v1/session/permission', () => {
  it('Allow lends through the person service (L2) and the call answers lent:true', async () => {
    const t = testApp()
    const answer = ask(t.app, { site: 'www.Shop.example', timeoutMs: 10_000 })
    const id = await firstQuestion(t.app)
    expect((await person(t.app, `/v1/person/questions/${id}`, { answer: 'allow' })).status).toBe(200)
    expect(await (await answer).json()).toMatchObject({ site: 'shop.example', lent: true, why: 'allowed' })
    expect(t.calls.filter((c) => c.method === 'allow').map((c) => c.args)).toEqual([['session:k1', 'shop.example']])
    // The errand waited for the person under the question's id, and the Allow ended it (P4, #26).
    expect(t.calls.filter((c) => c.method === 'asked' || c.method === 'answered').map((c) => c.args)).toEqual([
      ['session:k1', { id, ask: 'sign-in', site: 'shop.example' }],
      ['session:k1', id, 'allow'],
    ])
    // The errand's view is asked of its own session, not found among every session's.
    expect(t.calls.some((c) => c.method === 'sessions')).toBe(false)
    expect(t.calls.filter((c) => c.method === 'view').map((c) => c.args)).toEqual([['session:k1']])
  })

  it('Deny lends nothing; a timeout lends nothing and the question is gone', async () => {
    const t = testApp()
    const denied = ask(t.app, { site: 'shop.example' })
    await person(t.app, `/v1/person/questions/${await firstQuestion(t.app)}`, { answer: 'deny' })
    expect(await (await denied).json()).toMatchObject({ lent: false, why: 'denied' })
    expect(await (await ask(t.app, { site: 'shop.example', timeoutMs: 100 })).json()).toMatchObject({
      lent: false,
      why: 'timeout',
    })
    expect(await (await person(t.app, '/v1/person/questions')).json()).toEqual({ questions: [] })
    expect(t.calls.some((c) => c.method === 'allow')).toBe(false)
    expect(t.calls.filter((c) => c.method === 'answered').map((c) => c.args[2])).toEqual(['deny', 'timeout'])
  })

  it('an agent that stops waiting withdraws its question, and the errand stops waiting', async () => {
    const t = testApp()
    const gone = new AbortController()
    const call = t.app
      .request('/v1/session/permission', {
        method: 'POST',
        signal: gone.signal,
        headers: { 'x-browser-session': 'k1', 'content-type': 'application/json' },
        body: JSON.stringify({ site: 'shop.example' }),
      })
      .catch(() => undefined)
    const id = await firstQuestion(t.app)
    gone.abort()
    await call
    for (;;) {
      const { questions } = (await (await person(t.app, '/v1/person/questions')).json()) as { questions: unknown[] }
      if (questions.length === 0) break
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(t.calls.filter((c) => c.method === 'answered').map((c) => c.args)).toEqual([['session:k1', id, 'withdrawn']])
  })

  it('auto trust answers at once and asks nobody (L3); an already lent site answers at once', async () => {
    const auto = testApp({
      person: {
        ask: (_id, site) => Effect.succeed({ site, lendsSignIn: false, decision: 'not-lent' as const }),
        settings: Effect.succeed({ version: 1 as const, alwaysAllowed: [], trust: 'auto' as const }),
      },
    })
    expect(await (await ask(auto.app, { site: 'shop.example' })).json()).toMatchObject({
      lent: false,
      why: 'trust',
      message: expect.stringContaining('(auto)'),
    })
    const always = testApp({
      person: { ask: (_id, site) => Effect.succeed({ site, lendsSignIn: true, decision: 'allowed-always' as const }) },
    })
    expect(await (await ask(always.app, { site: 'shop.example' })).json()).toMatchObject({
      lent: true,
      why: 'already-lent',
    })
    expect([...auto.calls, ...always.calls].some((c) => c.method === 'allow' || c.method === 'asked')).toBe(false)
  })

  it('bad input is a 400 before anything is asked or opened', async () => {
    for (const body of [
      { site: 'https://shop.example/?token=x' },
      { site: '' },
      { site: 'shop.example', timeoutMs: 10_000_000 },
      { site: 'shop.example', extra: 1 },
      {},
    ]) {
      const t = testApp()
      const res = await ask(t.app, body)
      expect(res.status).toBe(400)
      const json = (await res.json()) as { error: { code: string; message: string } }
      expect(json.error.code).toBe('BadRequest')
      expect(json.error.message).not.toContain('token=x')
      expect(t.calls).toEqual([])
    }
    const t = testApp()
    expect((await person(t.app, '/v1/person/questions/nope', { answer: 'allow' })).status).toBe(404)
    expect((await person(t.app, '/v1/person/questions/nope', { answer: 'maybe' })).status).toBe(400)
    expect((await t.app.request('/v1/person/questions')).status).toBe(401)
  })
})
