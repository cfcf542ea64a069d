/**
 * Optional agent credentials (issue 23, X2, B1): a real host started with
 * `ERRANDS_AGENT_TOKENS_FILE`, asked from a plain process. Every session call needs a bearer
 * token whose pattern covers its key — a missing one and one outside its prefix are 401 before
 * anything runs (no errand is opened), one inside is 200; the same for MCP's `initialize` with a
 * key and for `/v1/session/devtools`. An MCP `initialize` without a key needs a valid token too: it
 * opens an errand, and without one a local process could take every slot. The tokens never appear in the host's log.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveFixture, type Fixture } from '../host/fixtures.ts'
import { startTestHost, type TestHost } from '../host/harness.ts'
import { httpClient } from '../mcp/clients.ts'

let host: TestHost
let site: Fixture
let dir: string
const teamA = randomBytes(24).toString('base64url')
const exact = randomBytes(24).toString('base64url')

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'errands-tokens-'))
  const file = join(dir, 'agent-tokens')
  writeFileSync(file, `# token  keys\n${teamA}  team-a:*\n${exact} nightly-report\n`, { mode: 0o600 })
  site = await serveFixture('127.0.0.2')
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '3', ERRANDS_AGENT_TOKENS_FILE: file })
})
afterAll(async () => {
  await host?.stop()
  await site?.close()
  rmSync(dir, { recursive: true, force: true })
})

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const opened = async () => (await host.run(host.supervisor.list)).map((v) => v.conversationId)

describe('agent tokens (X2)', () => {
  it('401 without a token and 401 outside its prefix, before anything runs; 200 inside', async () => {
    const url = site.url('/page?t=tokens')
    const none = await host.call('team-a:k1', 'POST', '/v1/navigate', { url })
    expect(none.status).toBe(401)
    expect(none.body.error.code).toBe('Unauthorized')
    const outside = await host.call('team-b:k1', 'POST', '/v1/navigate', { url }, bearer(teamA))
    expect(outside.status).toBe(401)
    const wrong = await host.call(
      'team-a:k1',
      'POST',
      '/v1/navigate',
      { url },
      bearer(randomBytes(24).toString('base64url')),
    )
    expect(wrong.status).toBe(401)
    // The person's token is the person's: it is no agent credential.
    expect((await host.call('team-a:k1', 'GET', '/v1/url', undefined, bearer(host.tokenText))).status).toBe(401)
    // An exact grant covers that key only, not a key that merely starts with it.
    expect((await host.call('nightly-report-2', 'GET', '/v1/url', undefined, bearer(exact))).status).toBe(401)
    // Nothing ran for any of those: no errand was opened.
    expect(await opened()).toEqual([])

    const inside = await host.call('team-a:k1', 'POST', '/v1/navigate', { url }, bearer(teamA))
    expect(inside.status).toBe(200)
    expect((await host.call('nightly-report', 'GET', '/v1/url', undefined, bearer(exact))).status).toBe(200)
    expect(await opened()).toEqual(expect.arrayContaining(['session:team-a:k1', 'session:nightly-report']))
  })

  it(
    'covers the DevTools URL and every MCP initialize: one that names a key, and an anonymous one ' +
      '(any valid token)',
    async () => {
      expect((await host.call('team-a:dt', 'GET', '/v1/session/devtools')).status).toBe(401)
      expect((await host.call('team-b:dt', 'GET', '/v1/session/devtools', undefined, bearer(teamA))).status).toBe(401)
      const devtools = await host.call('team-a:dt', 'GET', '/v1/session/devtools', undefined, bearer(teamA))
      expect(devtools.status).toBe(200)
      expect(devtools.body.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/devtools\//)

      await expect(httpClient(host.url, { key: 'team-a:mcp' })).rejects.toThrow(/401|Unauthorized/)
      await expect(httpClient(host.url, { key: 'team-b:mcp', headers: bearer(teamA) })).rejects.toThrow(
        /401|Unauthorized/,
      )
      await expect(httpClient(host.url)).rejects.toThrow(/401|Unauthorized/)
      const named = await httpClient(host.url, { key: 'team-a:mcp', headers: bearer(teamA) })
      const anonymous = await httpClient(host.url, { headers: bearer(exact) })
      try {
        expect((await named.call('browser_navigate', { url: site.url('/page?t=mcp') })).isError).toBe(false)
        expect((await anonymous.call('browser_tabs', { action: 'list' })).isError).toBe(false)
      } finally {
        await named.end()
        await anonymous.end()
      }
      // No token reached the log.
      for (const line of host.logs) for (const t of [teamA, exact]) expect(line).not.toContain(t)
    },
  )
  it(
    'an anonymous MCP initialize without a token is 401 and takes no slot: four of them leave the cap ' + 'free',
    async () => {
      const before = await opened()
      // A plain local process, as the MCP spec's initialize, with no key and no token — more than the cap (3).
      const initialize = () =>
        fetch(`${host.url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'squatter', version: '1' } },
          }),
        })
      const answers = await Promise.all([initialize(), initialize(), initialize(), initialize()])
      expect(answers.map((r) => r.status)).toEqual([401, 401, 401, 401])
      expect(answers.map((r) => r.headers.get('mcp-session-id'))).toEqual([null, null, null, null])
      expect(((await answers[0]!.json()) as { error: { code: string } }).error.code).toBe('Unauthorized')
      expect(await opened()).toEqual(before)
      // Every slot is still there for the token holders.
      const held = await Promise.all(
        ['team-a:s1', 'team-a:s2', 'team-a:s3'].map((key) => httpClient(host.url, { key, headers: bearer(teamA) })),
      )
      try {
        for (const client of held) expect((await client.call('browser_tabs', { action: 'list' })).isError).toBe(false)
        expect(await opened()).toEqual(
          expect.arrayContaining(['session:team-a:s1', 'session:team-a:s2', 'session:team-a:s3']),
        )
      } finally {
        for (const client of held) await client.end()
      }
    },
  )
})
