import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveFixture, type Fixture } from './fixtures.ts'
import { client, startTestHost, type TestHost } from './harness.ts'

// The person's endpoints through the real server (B7, E2, L1, L2, L5): they need the token from
// the data dir; the main context (signed in) is theirs alone — a session key never reaches it.

let site: Fixture
let host: TestHost

beforeAll(async () => {
  site = await serveFixture('127.0.0.1')
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '4' })
})
afterAll(async () => {
  await host?.stop()
  await site?.close()
})

const shown = async (key: string) => {
  await host.call(key, 'POST', '/v1/navigate', { url: site.url('/show') })
  return (await host.call(key, 'GET', '/v1/text')).body.text as string
}

describe("the person's endpoints", () => {
  it('need the bearer token; without it nothing happens', async () => {
    const anonymous = client(host.url)
    for (const [method, path, body] of [
      ['POST', '/v1/person/main/navigate', { url: site.url('/store?v=stolen') }],
      ['GET', '/v1/person/settings'],
      ['POST', '/v1/person/sign-out-everywhere', {}],
    ] as const) {
      const res = await anonymous('any-key', method, path, body)
      expect(res.status).toBe(401)
    }
    expect(site.cookies.some((c) => c.path === '/store')).toBe(false)
  })

  it('sign in on the main context; a session (even one keyed "main") never sees it', async () => {
    const signed = await host.call(undefined, 'POST', '/v1/person/main/navigate', { url: site.url('/store?v=mine') })
    expect(signed.status).toBe(200)
    await host.call(undefined, 'POST', '/v1/person/main/navigate', { url: site.url('/show') })
    expect((await host.call(undefined, 'GET', '/v1/person/main/text')).body.text).toContain(
      'cookie=basket=mine storage=mine',
    )
    expect((await host.call(undefined, 'GET', '/v1/person/main/state')).body).toMatchObject({
      lifecycle: 'main',
      url: site.url('/show'),
    })
    expect(await shown('main')).toContain('cookie= storage=')
    expect(await shown('agent')).toContain('cookie= storage=')
  })

  it(
    'always-allowed sites seed new sessions; revoking takes them back; Allow lends one site to one ' + 'session',
    async () => {
      expect(
        (await host.call(undefined, 'POST', '/v1/person/settings/always-allowed', { site: '127.0.0.1' })).body,
      ).toMatchObject({ alwaysAllowed: ['127.0.0.1'] })
      expect(await shown('seeded')).toContain('cookie=basket=mine')
      expect(await shown('agent')).toContain('cookie= storage=')

      const revoked = await host.call(undefined, 'DELETE', '/v1/person/settings/always-allowed/127.0.0.1')
      expect(revoked.status).toBe(200)
      expect(revoked.body.sites).toEqual(['127.0.0.1'])
      expect(await shown('seeded')).not.toContain('basket=mine')

      const card = await host.call(undefined, 'POST', '/v1/person/permission', { session: 'agent', site: '127.0.0.1' })
      expect(card.body).toMatchObject({ site: '127.0.0.1', lendsSignIn: true, decision: 'ask' })
      const lent = await host.call(undefined, 'POST', '/v1/person/lend', { session: 'agent', site: '127.0.0.1' })
      expect(lent.status).toBe(200)
      expect(await shown('agent')).toContain('cookie=basket=mine')
      expect(await shown('seeded')).not.toContain('basket=mine')
      const tabs = (await host.call('agent', 'GET', '/v1/tabs')).body.tabs
      expect(tabs[0].lentSites).toEqual(['127.0.0.1'])

      expect((await host.call(undefined, 'POST', '/v1/person/sign-out-everywhere', {})).status).toBe(200)
      expect(await shown('agent')).not.toContain('basket=mine')
      expect((await host.call(undefined, 'GET', '/v1/person/main/text')).body.text).toContain('cookie=basket=mine')
    },
  )

  it("a chat's own-browser toggle, the session list, and releasing a session", async () => {
    const on = await host.call(undefined, 'POST', '/v1/person/chats/chat-1/own-browser', { on: true })
    expect(on.body).toMatchObject({ conversationId: 'chat:chat-1', reason: 'own-browser', state: 'active' })
    const off = await host.call(undefined, 'POST', '/v1/person/chats/chat-1/own-browser', { on: false })
    expect(off.body).toMatchObject({ conversationId: 'chat:chat-1', reason: 'main', state: 'main' })
    const list = (await host.call(undefined, 'GET', '/v1/person/sessions')).body.sessions as Array<{
      conversationId: string
    }>
    expect(list.map((v) => v.conversationId)).toEqual(
      expect.arrayContaining(['session:agent', 'session:seeded', 'chat:chat-1']),
    )
    expect((await host.call(undefined, 'DELETE', '/v1/person/sessions/agent')).body).toEqual({ released: true })
    expect((await host.call('agent', 'GET', '/v1/state')).body.lifecycle).toBe('closed')
  })

  it(
    'mounts the Daily Browser door under /daily: the extension side wants its Origin, the admin side the token ' +
      '(D2)',
    async () => {
      const redeem = await client(host.url)(undefined, 'POST', '/daily/redeem', { code: 'x'.repeat(20) })
      expect(redeem.status).toBe(403)
      const anonymous = await client(host.url)(undefined, 'POST', '/daily/admin/leases', {})
      expect(anonymous.status).toBe(401)
      const admin = await client(host.url)(
        undefined,
        'POST',
        '/daily/admin/leases',
        {},
        { authorization: `Bearer ${host.tokenText}` },
      )
      expect(admin.status).toBe(200)
      expect(admin.body).toEqual({ leases: [] })
      expect((await client(host.url)(undefined, 'GET', '/dailyx')).status).toBe(404)
    },
  )
})
