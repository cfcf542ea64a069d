import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveFixture, type Fixture } from './fixtures.ts'
import { startTestHost, type TestHost, until } from './harness.ts'

// Capacity, busy protection, release and lifecycle through the real server (B4, B5, C2, C3, C6,
// E3, E4): at the cap a new key parks the least recently used idle session, which comes back as
// it was; when every session is busy the call fails closed with 503 and Retry-After.

let site: Fixture
let host: TestHost

beforeAll(async () => {
  site = await serveFixture('127.0.0.1')
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '2' })
})
afterAll(async () => {
  await host?.stop()
  await site?.close()
})

const state = async (key: string) => (await host.call(key, 'GET', '/v1/state')).body
const text = async (key: string) => (await host.call(key, 'GET', '/v1/text')).body.text as string

describe('capacity (B4, B5, C2, C3)', () => {
  it(
    'at the cap a new key parks the LRU idle session; the parked key comes back as it was on its next ' + 'call',
    async () => {
      await host.call('first', 'POST', '/v1/navigate', { url: site.url('/store?v=apple') })
      await host.call('first', 'POST', '/v1/navigate', { url: site.url('/show') })
      await host.call('first', 'POST', '/v1/viewport', { width: 500, height: 400 })
      await host.call('second', 'POST', '/v1/navigate', { url: site.url('/page?t=second') })
      await host.call('third', 'POST', '/v1/navigate', { url: site.url('/page?t=third') })

      expect((await host.call(undefined, 'GET', '/health')).body).toMatchObject({ open: 2, parked: 1, cap: 2 })
      // Reading the state neither resumes nor opens anything.
      expect(await state('first')).toMatchObject({ lifecycle: 'parked', url: site.url('/show'), tabs: [] })
      expect(await state('never-seen')).toMatchObject({ lifecycle: 'none', url: null })
      expect((await host.call(undefined, 'GET', '/health')).body).toMatchObject({ open: 2, parked: 1 })

      // Its next call resumes it (parking the LRU idle one, "second"): same URL, cookie, storage, viewport.
      expect((await host.call('first', 'GET', '/v1/url')).body.url).toBe(site.url('/show'))
      expect(await text('first')).toContain('cookie=basket=apple storage=apple')
      expect((await state('first')).viewport).toEqual({ width: 500, height: 400 })
      expect((await state('second')).lifecycle).toBe('parked')
      expect((await state('third')).lifecycle).toBe('active')
      expect((await host.call(undefined, 'GET', '/health')).body).toMatchObject({ open: 2, parked: 1 })
    },
  )

  it(
    'never parks a session with work in flight; when every slot is busy a new key gets 503, Retry-After and words ' +
      'to act on',
    async () => {
      // Busy from when the fixture has both requests (not after a fixed 300 ms, which a loaded
      // machine could spend before either navigation started: the sessions were still idle, so the
      // new key parked one); the answers then wait long enough for the two refused calls below.
      const slowBefore = site.cookies.filter((c) => c.path === '/slow').length
      const slow = [
        host.call('first', 'POST', '/v1/navigate', { url: site.url('/slow?ms=6000') }),
        host.call('third', 'POST', '/v1/navigate', { url: site.url('/slow?ms=6000') }),
      ]
      expect(await until(() => site.cookies.filter((c) => c.path === '/slow').length === slowBefore + 2)).toBe(true)
      const busy = await host.call('fourth', 'GET', '/v1/url')
      expect(busy.status).toBe(503)
      expect(busy.headers.get('retry-after')).toBe('60')
      expect(busy.body.error).toEqual({
        code: 'AllBusy',
        reason: 'all-busy',
        message: expect.stringMatching(/All 2 browser slots are busy.*wait a minute and try again/),
      })
      // The parked one cannot come back either, and the busy ones finish undisturbed.
      expect((await host.call('second', 'GET', '/v1/url')).status).toBe(503)
      expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200])
      // Once they are idle again, the new key gets its slot.
      expect((await host.call('fourth', 'GET', '/v1/url')).status).toBe(200)
    },
  )

  it(
    'release is idempotent: it closes and forgets, a second release and a never-used key are fine, the key starts ' +
      'fresh after',
    async () => {
      await host.call('gone', 'POST', '/v1/navigate', { url: site.url('/store?v=plum') })
      const first = await host.call('gone', 'DELETE', '/v1/session')
      expect(first.status).toBe(200)
      expect(first.body).toEqual({ released: true })
      expect((await host.call('gone', 'DELETE', '/v1/session')).status).toBe(200)
      expect((await host.call('never-used', 'DELETE', '/v1/session')).status).toBe(200)
      expect((await state('gone')).lifecycle).toBe('closed')
      expect((await host.call('gone', 'GET', '/v1/url')).body.url).toBe('about:blank')
      await host.call('gone', 'POST', '/v1/navigate', { url: site.url('/show') })
      expect(await text('gone')).toContain('cookie= storage=')
      expect(
        (await host.run(host.supervisor.list)).find((v) => v.conversationId === 'session:never-used'),
      ).toBeUndefined()
    },
  )

  it('task status: interrupted parks (and resumes on use), done closes and forgets (E3, E4)', async () => {
    await host.call('task', 'POST', '/v1/navigate', { url: site.url('/store?v=fig') })
    expect((await host.call('task', 'POST', '/v1/session/task', { status: 'interrupted' })).body).toEqual({
      lifecycle: 'parked',
    })
    expect(await state('task')).toMatchObject({ lifecycle: 'parked' })
    expect((await host.call('task', 'GET', '/v1/url')).body.url).toBe(site.url('/store?v=fig'))
    expect((await host.call('task', 'POST', '/v1/session/task', { status: 'done' })).body).toEqual({
      lifecycle: 'closed',
    })
    expect((await state('task')).lifecycle).toBe('closed')
    const unknown = await host.call('no-such-task', 'POST', '/v1/session/task', { status: 'done' })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.code).toBe('UnknownConversation')
  })
})
