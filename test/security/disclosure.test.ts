/**
 * The attacker on the same machine (issue 23, X1, X2): a real host on its real port with real
 * Chromium, a set of keys in use — HTTP sessions (open, parked, released), an errand's DevTools
 * URL, a named and an anonymous MCP session — and then a plain process that knows nothing asks
 * every open door. No answer (status line, headers, body) may carry any of those keys, their
 * conversation ids, the DevTools token or an MCP session id. And an anonymous MCP session's
 * errand cannot be reached by any key, even by one who learned the string.
 */
import { randomUUID } from 'node:crypto'
import * as http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveFixture, type Fixture } from '../host/fixtures.ts'
import { startTestHost, until, type TestHost } from '../host/harness.ts'
import { httpClient } from '../mcp/clients.ts'

let host: TestHost
let site: Fixture
const tag = randomUUID().slice(0, 8)
const keys = {
  open: `sec-open-${tag}`,
  parked: `sec-parked-${tag}`,
  released: `sec-released-${tag}`,
  mcp: `sec-mcp-${tag}`,
}
let devtoolsUrl = ''
let anonymousKey = ''
const mcpSessionIds: Array<string> = []
const clients: Array<{ end: () => Promise<void> }> = []

/** One raw answer, everything a peer sees: status line, headers and body. */
const ask = (o: {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: string
}): Promise<{ status: number; text: string; body: string }> =>
  new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: host.port,
        method: o.method ?? 'GET',
        path: o.path,
        headers: { host: `127.0.0.1:${host.port}`, ...o.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8')
          resolve({
            status: res.statusCode ?? 0,
            body,
            text:
              `${res.statusCode} ${res.statusMessage} ${o.method ?? 'GET'} ` +
              `${o.path}\n${JSON.stringify(res.headers)}\n${body}`,
          })
        })
      },
    )
    req.on('error', reject)
    req.end(o.body)
  })

beforeAll(async () => {
  site = await serveFixture('127.0.0.2')
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '6' }, undefined, 0, { mcpLingerMs: 60_000 })
  for (const key of [keys.open, keys.parked, keys.released]) {
    expect((await host.call(key, 'POST', '/v1/navigate', { url: site.url(`/page?t=${key}`) })).status).toBe(200)
  }
  // Parked: the supervisor's message names its conversation (what /health used to list).
  await host.run(host.supervisor.park(`session:${keys.parked}`))
  expect((await host.call(keys.released, 'DELETE', '/v1/session')).status).toBe(200)
  devtoolsUrl = (await host.call(keys.open, 'GET', '/v1/session/devtools')).body.url
  expect(devtoolsUrl).toMatch(/\/devtools\/[^/]{16,}$/)
  const named = await httpClient(host.url, { key: keys.mcp })
  const anonymous = await httpClient(host.url)
  clients.push(named, anonymous)
  for (const c of [named, anonymous]) {
    expect((await c.call('browser_navigate', { url: site.url(`/page?t=mcp`) })).isError).toBe(false)
    mcpSessionIds.push(c.transport.sessionId!)
  }
  const views = await host.run(host.supervisor.list)
  anonymousKey = views
    .map((v) => v.conversationId)
    .find((id) => id.startsWith('session:mcp'))!
    .slice('session:'.length)
})
afterAll(async () => {
  for (const c of clients) await c.end().catch(() => undefined)
  await host?.stop()
  await site?.close()
})

/** Everything a test run used that belongs to a session: none may appear in an open answer. */
const secrets = () => {
  const all = [...Object.values(keys), anonymousKey].flatMap((k) => [
    k,
    `session:${k}`,
    encodeURIComponent(`session:${k}`),
  ])
  const devtoolsToken = devtoolsUrl.slice(devtoolsUrl.lastIndexOf('/') + 1)
  return [...all, devtoolsUrl, devtoolsToken, ...mcpSessionIds]
}

describe('no unauthenticated answer names a key (X1)', () => {
  it(
    'every open endpoint, asset, refusal and 404 is scanned for every key, conversation id, DevTools URL and MCP ' +
      'session id used',
    async () => {
      const json = { 'content-type': 'application/json' }
      const ext = { ...json, origin: 'chrome-extension://dmlklmnegbjkhpodgecphlidpippljbl' }
      const answers = await Promise.all([
        ask({ path: '/health' }),
        ask({ path: '/' }),
        ask({ path: '/ui/app.js' }),
        ask({ path: '/ui/app.css' }),
        ask({ path: '/live/api/state' }),
        ask({ path: '/live/socket' }),
        ask({ method: 'POST', path: '/live/sign-in', headers: json, body: '{"token":"guess"}' }),
        ask({
          method: 'POST',
          path: '/live/api/conversations/session%3Ax/close',
          headers: { ...json, origin: `http://127.0.0.1:${host.port}` },
          body: '{}',
        }),
        ask({ path: '/v1/localhosts' }),
        ask({ path: '/v1/openapi.json' }),
        ask({ path: '/v1/url' }),
        ask({ path: '/v1/session/devtools' }),
        ask({ path: '/v1/person/sessions' }),
        ask({ path: '/v1/person/health' }),
        ask({ path: '/v1/person/health', headers: { authorization: 'Bearer 0000' } }),
        ask({ method: 'POST', path: '/health' }),
        ask({ path: '/nothing-here' }),
        ask({ path: '/devtools/json/version' }),
        ask({ path: '/devtools/nope' }),
        ask({ path: '/mcp' }),
        ask({ method: 'POST', path: '/mcp', headers: { ...json, 'mcp-session-id': 'nope' }, body: '{}' }),
        ask({ method: 'POST', path: '/mcp', headers: json, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' }),
        ask({ method: 'POST', path: '/daily/redeem', headers: ext, body: '{"code":"AAAA-AAAA-AAAA"}' }),
        ask({ method: 'POST', path: '/daily/lease/status', headers: ext, body: '{}' }),
        ask({ method: 'POST', path: '/daily/admin/leases', headers: json, body: '{}' }),
        ask({ method: 'POST', path: '/daily/nothing', headers: json, body: '{}' }),
        ask({ path: '/health', headers: { host: `evil.example:${host.port}` } }),
        ask({ path: '/health', headers: { origin: 'http://evil.example' } }),
      ])
      // The doors did answer (a scan of nothing proves nothing)…
      expect(answers[0]!.status).toBe(200)
      expect(answers[1]!.status).toBe(200)
      expect(answers.filter((a) => a.status === 401).length).toBeGreaterThanOrEqual(3)
      // …and none of them names anything of a session.
      for (const secret of secrets()) {
        for (const a of answers)
          expect(a.text, `an open answer (${a.text.split('\n')[0]}) names ${secret}`).not.toContain(secret)
      }
      const health = JSON.parse(answers[0]!.body)
      expect(health).toMatchObject({ ok: true, open: expect.any(Number), parked: 1, messages: expect.any(Number) })
      expect(health.messages).toBeGreaterThanOrEqual(1) // the park's message exists — behind the token
      // The person's report, with the token, does name them: the scan could have found them.
      const person = await host.call(undefined, 'GET', '/v1/person/health')
      expect(JSON.stringify(person.body)).toContain(`session:${keys.parked}`)
    },
  )
})

describe('no door a stranger may open without a credential names a key (X1)', () => {
  it(
    "DevTools discovery, the person's routes without or with a wrong token, and a fresh anonymous MCP session's own " +
      'answers are scanned too',
    async () => {
      const wrong = { authorization: 'Bearer 0000000000000000000000000000000000000000000' }
      const answers = await Promise.all([
        // What a DevTools client asks first: Chromium's discovery routes, on the host's port.
        ...[
          '/json',
          '/json/list',
          '/json/version',
          '/json/protocol',
          '/devtools/browser',
          '/devtools/page/0',
          '/devtools/json/list',
        ].map((path) => ask({ path })),
        ask({ method: 'PUT', path: '/json/new?about:blank' }),
        // The person's routes: no token, a wrong one, a session key where the token goes.
        ...[
          '/v1/person/sessions',
          '/v1/person/health',
          '/v1/person/settings',
          '/v1/person/main/tabs',
          '/v1/person/main/url',
          '/v1/person/inspector',
        ].flatMap((path) => [
          ask({ path }),
          ask({ path, headers: wrong }),
          ask({ path, headers: { 'x-browser-session': keys.open } }),
        ]),
        // The MCP door without a session, with GET and DELETE.
        ask({ method: 'DELETE', path: '/mcp' }),
        ask({
          method: 'POST',
          path: '/mcp',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: '{"jsonrpc":"2.0","id":1,"method":"initialize"}',
        }),
      ])
      expect(answers.filter((a) => a.status === 401).length).toBeGreaterThanOrEqual(12)
      // A stranger's own anonymous MCP session (no token is needed for one): what its errand and its
      // tools say is its own; none of it names another session.
      const stranger = await httpClient(host.url)
      const said: Array<string> = []
      try {
        said.push(JSON.stringify((await stranger.client.listTools()).tools))
        for (const [tool, args] of [
          ['browser_tabs', { action: 'list' }],
          ['browser_snapshot', {}],
          ['browser_navigate', { url: 'about:blank' }],
        ] as const) {
          said.push((await stranger.call(tool, args)).text)
        }
      } finally {
        await stranger.end().catch(() => undefined)
      }
      expect(said.join('\n').length).toBeGreaterThan(0)
      for (const secret of secrets()) {
        for (const a of answers)
          expect(a.text, `an open answer (${a.text.split('\n')[0]}) names ${secret}`).not.toContain(secret)
        for (const text of said) expect(text, `a stranger's MCP session was told ${secret}`).not.toContain(secret)
      }
    },
  )
})

describe("an anonymous MCP session's errand is its session's alone (X2)", () => {
  it(
    'a second client that learned the key string still cannot name it: not by header, not by MCP initialize, not by ' +
      'DevTools',
    async () => {
      const header = { 'x-browser-session': anonymousKey }
      const url = await ask({ path: '/v1/url', headers: header })
      expect(url.status).toBe(400)
      expect(url.text).toContain('InvalidSessionKey')
      expect((await ask({ path: '/v1/session/devtools', headers: header })).status).toBe(400)
      expect(
        (
          await ask({
            method: 'POST',
            path: '/v1/session/task',
            headers: { ...header, 'content-type': 'application/json' },
            body: '{"status":"done"}',
          })
        ).status,
      ).toBe(400)
      await expect(httpClient(host.url, { key: anonymousKey })).rejects.toThrow(/400|InvalidSessionKey/)
      // The nearest keys a client can send are other errands: fresh and empty, never the anonymous one's page.
      for (const near of [
        anonymousKey.replace('~', '-'),
        anonymousKey.replace('~', ':'),
        anonymousKey.replace('mcp~', ''),
      ]) {
        const there = await host.call(near, 'GET', '/v1/url')
        expect(there.status).toBe(200)
        expect(there.body.url).not.toContain(site.origin)
        await host.call(near, 'DELETE', '/v1/session')
      }
      expect(anonymousKey).toMatch(/^mcp~[0-9a-f-]{36}$/)
      // The anonymous session itself still drives its errand.
      const own = clients[1] as Awaited<ReturnType<typeof httpClient>>
      expect((await own.call('browser_snapshot')).text).toContain('heading "page mcp"')
      expect(
        await until(async () =>
          (await host.run(host.supervisor.list)).some(
            (v) => v.conversationId === `session:${anonymousKey}` && v.state === 'active',
          ),
        ),
      ).toBe(true)
    },
  )
})
