import { dailyExtensionId } from '@errands/daily'
import { openInspectorRelay, type InspectorOutlet } from '@errands/supervisor'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import * as net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startTestHost, type TestHost } from '../host/harness.ts'

/*
 * One edge (issue #24, B7, docs/edge.md): the six HTTP fronts — the host's /v1, the live view,
 * the Daily Browser door, the DevTools upgrade, /mcp and the inspector relay — answer the same
 * refused request with the same status and the same `error.code`, because they stand behind the
 * same @errands/edge checks and renderer. Before it, the same refusal was `ForbiddenOrigin` on one
 * front and `ForeignOrigin` on another, an oversized body 413 under three names, a foreign Host
 * 403 at the door and 421 at /v1, and an upgrade to /v1 a silent reset.
 *
 * Each front is asked from a plain process (the path a rebinding page or another local program
 * would take), with everything right except the one thing under test.
 */

const AGENT_TOKEN = 'edge-contract-agent-token-0123456789abcdef'
const EXTENSION = `chrome-extension://${dailyExtensionId}`
const HUGE = JSON.stringify({ pad: 'x'.repeat(5 * 1024 * 1024) })

let host: TestHost
let relay: InspectorOutlet
let relayPort: number
let dir: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'errands-edge-'))
  const file = join(dir, 'agent-tokens')
  writeFileSync(file, `${AGENT_TOKEN} *\n`, { mode: 0o600 })
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '2', ERRANDS_AGENT_TOKENS_FILE: file })
  relay = await openInspectorRelay({ port: 0 })
  relayPort = Number(new URL(relay.url).port)
})

afterAll(async () => {
  await relay?.close()
  await host?.stop()
  rmSync(dir, { recursive: true, force: true })
})

interface Answer {
  readonly status: number
  readonly code: string | undefined
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
}

/** An HTTP request to one of the fronts, read as status and error code. */
const ask = async (
  port: number,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> => {
  const reply = await request(port, { ...o, headers: { host: `127.0.0.1:${port}`, ...o.headers } })
  return { status: reply.status, code: reply.body?.error?.code, headers: reply.headers }
}

/** A WebSocket upgrade on a raw socket, read as status and error code (status 0: reset, no answer). */
const upgrade = (port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const all = {
      host: `127.0.0.1:${port}`,
      upgrade: 'websocket',
      connection: 'Upgrade',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'sec-websocket-version': '13',
      ...headers,
    }
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(
        `GET ${path} HTTP/1.1\r\n${Object.entries(all)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\r\n')}\r\n\r\n`,
      ),
    )
    let out = ''
    socket.on('data', (d) => (out += d.toString('latin1')))
    socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? undefined : reject(e)))
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1] ?? 0)
      let code: string | undefined
      try {
        code = JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4)).error?.code
      } catch {
        code = undefined
      }
      resolve({ status, code, headers: {} })
    })
  })

const own = (port: number) => `http://127.0.0.1:${port}`
const json = { 'content-type': 'application/json' }
const agent = { 'x-browser-session': 'edge-k1', authorization: `Bearer ${AGENT_TOKEN}` }
const mcpInit = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'edge', version: '0' } },
})

const statusAndCode = (a: Answer) => [a.status, a.code]

describe('one edge: the six fronts answer the same refusal alike (issue #24, B7)', () => {
  it('a foreign Origin is 403 ForeignOrigin on every front', async () => {
    const evil = { origin: 'https://evil.example' }
    const p = host.port
    const answers = {
      host: await ask(p, {
        method: 'POST',
        path: '/v1/navigate',
        headers: { ...agent, ...json, ...evil },
        body: '{"url":"about:blank"}',
      }),
      liveView: await ask(p, { method: 'POST', path: '/live/sign-in', headers: { ...json, ...evil }, body: '{}' }),
      daily: await ask(p, {
        method: 'POST',
        path: '/daily/redeem',
        headers: { ...json, ...evil },
        body: '{"code":"x"}',
      }),
      devtools: await upgrade(p, '/devtools/some-token', evil),
      mcp: await ask(p, { method: 'POST', path: '/mcp', headers: { ...json, ...evil }, body: mcpInit }),
      relay: await upgrade(relayPort, '/', evil),
    }
    for (const [front, a] of Object.entries(answers)) expect(statusAndCode(a), front).toEqual([403, 'ForeignOrigin'])
  })

  it('a foreign Host is 421 WrongHost on every front', async () => {
    const p = host.port
    const rebound = (port: number) => ({ host: `evil.example:${port}` })
    const answers = {
      host: await ask(p, { path: '/v1/url', headers: { ...agent, ...rebound(p) } }),
      liveView: await ask(p, { path: '/', headers: rebound(p) }),
      daily: await ask(p, {
        method: 'POST',
        path: '/daily/redeem',
        headers: { ...json, origin: EXTENSION, ...rebound(p) },
        body: '{"code":"x"}',
      }),
      devtools: await upgrade(p, '/devtools/some-token', rebound(p)),
      mcp: await ask(p, { method: 'POST', path: '/mcp', headers: { ...json, ...rebound(p) }, body: mcpInit }),
      relay: await ask(relayPort, { path: '/', headers: rebound(relayPort) }),
    }
    for (const [front, a] of Object.entries(answers)) expect(statusAndCode(a), front).toEqual([421, 'WrongHost'])
  })

  it('a body that is not JSON is 415 UnsupportedMediaType on every front that takes bodies', async () => {
    const p = host.port
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    const answers = {
      host: await ask(p, {
        method: 'POST',
        path: '/v1/navigate',
        headers: { ...agent, ...form },
        body: 'url=about:blank',
      }),
      liveView: await ask(p, {
        method: 'POST',
        path: '/live/sign-in',
        headers: { ...form, origin: own(p) },
        body: 'token=x',
      }),
      daily: await ask(p, {
        method: 'POST',
        path: '/daily/redeem',
        headers: { ...form, origin: EXTENSION },
        body: 'code=x',
      }),
      mcp: await ask(p, { method: 'POST', path: '/mcp', headers: form, body: 'a=1' }),
    }
    for (const [front, a] of Object.entries(answers))
      expect(statusAndCode(a), front).toEqual([415, 'UnsupportedMediaType'])
  })

  it('an oversized body is 413 PayloadTooLarge on every front that takes bodies', async () => {
    const p = host.port
    const answers = {
      host: await ask(p, { method: 'POST', path: '/v1/navigate', headers: { ...agent, ...json }, body: HUGE }),
      liveView: await ask(p, {
        method: 'POST',
        path: '/live/sign-in',
        headers: { ...json, origin: own(p) },
        body: HUGE,
      }),
      daily: await ask(p, {
        method: 'POST',
        path: '/daily/redeem',
        headers: { ...json, origin: EXTENSION },
        body: HUGE,
      }),
      // With agent tokens set, /mcp takes one too, even without a session key (docs/secrets.md).
      mcp: await ask(p, {
        method: 'POST',
        path: '/mcp',
        headers: { ...json, authorization: agent.authorization },
        body: HUGE,
      }),
    }
    for (const [front, a] of Object.entries(answers)) expect(statusAndCode(a), front).toEqual([413, 'PayloadTooLarge'])
  })

  it('a missing or wrong token is 401 Unauthorized on every front that takes one', async () => {
    const p = host.port
    const wrong = { authorization: 'Bearer not-the-token-at-all' }
    const missing = {
      host: await ask(p, { path: '/v1/person/settings' }),
      liveView: await ask(p, { path: '/live/api/state' }),
      daily: await ask(p, { method: 'POST', path: '/daily/admin/leases', headers: json, body: '{}' }),
      mcp: await ask(p, {
        method: 'POST',
        path: '/mcp',
        headers: { ...json, 'x-browser-session': 'edge-k2' },
        body: mcpInit,
      }),
    }
    const wrongOnes = {
      host: await ask(p, { path: '/v1/person/settings', headers: wrong }),
      liveView: await ask(p, {
        method: 'POST',
        path: '/live/sign-in',
        headers: { ...json, origin: own(p) },
        body: '{"token":"not-the-token-at-all"}',
      }),
      daily: await ask(p, { method: 'POST', path: '/daily/admin/leases', headers: { ...json, ...wrong }, body: '{}' }),
      mcp: await ask(p, {
        method: 'POST',
        path: '/mcp',
        headers: { ...json, ...wrong, 'x-browser-session': 'edge-k2' },
        body: mcpInit,
      }),
    }
    for (const [front, a] of [...Object.entries(missing), ...Object.entries(wrongOnes)]) {
      expect(statusAndCode(a), front).toEqual([401, 'Unauthorized'])
      expect(a.headers['www-authenticate'], front).toBe('Bearer realm="errands"')
    }
  })

  it('a method an endpoint does not take is 405 MethodNotAllowed with Allow on every front that routes', async () => {
    const p = host.port
    const answers = {
      host: await ask(p, { method: 'DELETE', path: '/v1/url', headers: agent }),
      liveView: await ask(p, { method: 'DELETE', path: '/live/sign-in', headers: { origin: own(p) } }),
      daily: await ask(p, { method: 'GET', path: '/daily/redeem', headers: { origin: EXTENSION } }),
      mcp: await ask(p, { method: 'PUT', path: '/mcp', headers: json, body: '{}' }),
      relay: await ask(relayPort, { method: 'POST', path: '/', headers: json, body: '{}' }),
    }
    for (const [front, a] of Object.entries(answers)) {
      expect(statusAndCode(a), front).toEqual([405, 'MethodNotAllowed'])
      expect(a.headers.allow, front).toBeTruthy()
    }
  })

  it('a WebSocket upgrade where a front takes none is answered 400 UpgradeRefused, not reset', async () => {
    const p = host.port
    const answers = {
      host: await upgrade(p, '/v1/url'),
      daily: await upgrade(p, '/daily/redeem'),
      mcp: await upgrade(p, '/mcp'),
      relay: await upgrade(relayPort, '/elsewhere'),
    }
    for (const [front, a] of Object.entries(answers)) expect(statusAndCode(a), front).toEqual([400, 'UpgradeRefused'])
  })
})
