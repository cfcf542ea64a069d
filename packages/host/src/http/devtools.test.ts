import { describe, expect, it } from 'vitest'
import { testApp } from './testing.ts'

// GET /v1/session/devtools (A1): keyed like every stateful verb, brought up through the same
// path (the recording fake's `tabs`), then the DevTools service's URL for that conversation.
describe('GET /v1/session/devtools', () => {
  it('brings the session up like every verb and answers the URL for its conversation', async () => {
    const { app, calls } = testApp()
    const res = await app.request('/v1/session/devtools', { headers: { 'x-browser-session': 'agent-7' } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ url: 'ws://127.0.0.1:7777/devtools/test-token' })
    expect(calls.map((c) => c.method)).toEqual(['tabs', 'devtools'])
    expect(calls[1]!.args).toEqual(['session:agent-7'])
  })

  it('refuses a missing or malformed key with a 400 before anything is called (B1)', async () => {
    const { app, calls } = testApp()
    for (const headers of [{}, { 'x-browser-session': 'bad key' }] as Array<Record<string, string>>) {
      const res = await app.request('/v1/session/devtools', { headers })
      expect(res.status).toBe(400)
      expect((await res.json()).error.code).toBe('InvalidSessionKey')
    }
    expect(calls).toEqual([])
  })
})
