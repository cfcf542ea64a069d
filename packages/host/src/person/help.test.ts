import { PersonDriving } from '@errands/sessions'
import { Effect } from 'effect'
import { describe, expect, it } from 'vitest'
import { testApp } from '../http/testing.ts'

// POST /v1/session/help in-process (issue #26, P3) and the 409 an acting verb answers while a
// person has the wheel (P1): the real route table, the services faked and recorded.

const post = (app: ReturnType<typeof testApp>['app'], path: string, body: unknown) =>
  app.request(path, {
    method: 'POST',
    headers: { 'x-browser-session': 'k1', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe('POST /v1/session/help', () => {
  it('waits for the hand-back and answers with the note; the time runs out as handedBack:false', async () => {
    const handed = testApp({
      person: { askForHelp: () => Effect.succeed({ handedBack: true as const, note: 'solved it' }) },
    })
    const res = await post(handed.app, '/v1/session/help', { reason: 'A captcha', timeoutMs: 5_000 })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ handedBack: true, note: 'solved it' })
    const out = testApp({
      person: { askForHelp: () => Effect.succeed({ handedBack: false as const, reason: 'timeout' as const }) },
    })
    expect(await (await post(out.app, '/v1/session/help', { reason: 'stuck' })).json()).toEqual({
      handedBack: false,
      reason: 'timeout',
    })
  })

  it(
    'asks for the session conversation with the default wait; bad input is a 400 before anything is ' + 'asked',
    async () => {
      const t = testApp()
      await post(t.app, '/v1/session/help', { reason: 'stuck' })
      expect(t.calls.find((c) => c.method === 'askForHelp')?.args).toEqual(['session:k1', 'stuck', 300_000])
      for (const body of [{}, { reason: '' }, { reason: 'x', timeoutMs: 10_000_000 }, { reason: 'x', extra: 1 }]) {
        const bad = testApp()
        expect((await post(bad.app, '/v1/session/help', body)).status).toBe(400)
        expect(bad.calls.some((c) => c.method === 'askForHelp')).toBe(false)
      }
    },
  )
})

describe('PersonDriving (P1)', () => {
  it('an acting verb refused while a person drives is a 409 whose words a model can act on', async () => {
    const t = testApp({ browsing: { click: () => Effect.fail(PersonDriving.of('session:k1')) } })
    const res = await post(t.app, '/v1/click', { selector: 'button' })
    expect(res.status).toBe(409)
    const json = (await res.json()) as { error: { code: string; message: string } }
    expect(json.error.code).toBe('PersonDriving')
    expect(json.error.message).toMatch(/^A person is using this browser; wait for them to hand it back/)
  })
})
