import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestHost, type TestHost, until } from './harness.ts'

// Waiting for the person through the real server and real Chromium (P3, P4, X1; issue #26): while
// an agent's sign-in question or request for help waits, the errand shows `asking=waiting` in the
// person's sessions and the open /health counts it — a count, never which session; a person at the
// wheel is counted the same way. Its end (an answer, a hand-back) takes it off again.

let host: TestHost

beforeAll(async () => {
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '2' })
})
afterAll(async () => {
  await host?.stop()
})

const openHealth = async () => {
  const res = await fetch(`${host.url}/health`)
  return { text: await res.clone().text(), body: (await res.json()) as Record<string, unknown> }
}
const viewOf = async (key: string) =>
  ((await host.call(undefined, 'GET', '/v1/person/sessions')).body.sessions as Array<Record<string, unknown>>).find(
    (v) => v.conversationId === `session:${key}`,
  )
const questions = async () =>
  (await host.call(undefined, 'GET', '/v1/person/questions')).body.questions as Array<{ id: string }>

describe('waiting for the person (P3, P4)', () => {
  it(
    'a sign-in question: the errand waits (sessions, /health counts it without naming it) until the person ' +
      'answers',
    async () => {
      expect((await openHealth()).body).toMatchObject({ personDriving: 0, waitingForPerson: 0 })
      const asking = host.call('asker-key-7', 'POST', '/v1/session/permission', {
        site: 'shop.example',
        timeoutMs: 60_000,
      })
      expect(await until(async () => (await questions()).length === 1)).toBe(true)
      const view = await viewOf('asker-key-7')
      expect(view).toMatchObject({ waiting: ['sign-in'], detail: expect.stringContaining('asking=waiting') })
      const health = await openHealth()
      expect(health.body).toMatchObject({ waitingForPerson: 1, personDriving: 0 })
      expect(health.text).not.toContain('asker-key-7')
      expect((await host.call(undefined, 'GET', '/v1/person/health')).body).toMatchObject({ waitingForPerson: 1 })

      const id = (await questions())[0]!.id
      expect((await host.call(undefined, 'POST', `/v1/person/questions/${id}`, { answer: 'deny' })).status).toBe(200)
      expect((await asking).body).toMatchObject({ lent: false, why: 'denied' })
      expect((await viewOf('asker-key-7'))?.waiting).toBeUndefined()
      expect((await viewOf('asker-key-7'))?.detail).toContain('asking=none')
      expect((await openHealth()).body).toMatchObject({ waitingForPerson: 0 })
    },
  )

  it(
    'a request for help: waiting and, once the person takes the wheel, driven by a person — both counted, both gone ' +
      'after the hand-back',
    async () => {
      const helped = host.call('helped-key-8', 'POST', '/v1/session/help', { reason: 'a captcha', timeoutMs: 60_000 })
      expect(await until(async () => (await viewOf('helped-key-8'))?.waiting !== undefined)).toBe(true)
      expect(await viewOf('helped-key-8')).toMatchObject({ waiting: ['help'], help: { reason: 'a captcha' } })
      await host.run(host.supervisor.takeWheel('session:helped-key-8'))
      expect((await openHealth()).body).toMatchObject({ personDriving: 1, waitingForPerson: 1 })
      expect((await viewOf('helped-key-8'))?.detail).toMatch(/asking=waiting.*wheel=person/)
      await host.run(host.supervisor.handBack('session:helped-key-8', 'solved'))
      expect((await helped).body).toEqual({ handedBack: true, note: 'solved' })
      expect((await openHealth()).body).toMatchObject({ personDriving: 0, waitingForPerson: 0 })
      expect((await viewOf('helped-key-8'))?.detail).toMatch(/asking=none.*wheel=agents/)
    },
  )
})
