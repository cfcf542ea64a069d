/**
 * Anonymous MCP sessions have a budget per calling process (docs/mcp.md, "Anonymous sessions"): an initialize
 * without a session key opens an errand of a fresh key, and every local process is 127.0.0.1, so before this one
 * process could take every slot of the cap with errands nobody named. Through the host's real /mcp: a process gets
 * two at once (parallel initializes included), a stranger process its own two, a named session is not counted,
 * and ending one gives the room back.
 */
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestHost, type TestHost } from '../host/harness.ts'
import { MCP_HEADERS, mcpInitialize } from '../fixtures/mcpInitialize.ts'

let host: TestHost

beforeAll(async () => {
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '8' })
})
afterAll(async () => {
  await host?.stop()
})

const INIT = mcpInitialize('anon')

/** One initialize from this process: the status, the session id, and the refusal's reason. */
const initialize = async (extra: Record<string, string> = {}) => {
  const r = await fetch(`${host.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...extra }, body: INIT })
  const text = await r.text()
  const reason = r.status === 429 ? (JSON.parse(text) as { error: { reason: string } }).error.reason : undefined
  return { status: r.status, id: r.headers.get('mcp-session-id'), reason }
}

/** The status another process (none of ours: its parent shell exits at once) gets for an initialize. */
const strangerInitializes = async (): Promise<number> => {
  const script =
    `fetch(${JSON.stringify(`${host.url}/mcp`)}, { method: 'POST', headers: ${JSON.stringify(MCP_HEADERS)}, ` +
    `body: ${JSON.stringify(INIT)} }).then(async (r) => { await r.text(); process.stdout.write(String(r.status)) })`
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d))
  await new Promise((r) => child.once('exit', r))
  return Number(out)
}

describe('anonymous MCP sessions: a budget per calling process (attack: one process takes every slot)', () => {
  it('five parallel keyless initializes: two open, three are 429; a stranger and a named session open', async () => {
    const tried = await Promise.all([1, 2, 3, 4, 5].map(() => initialize()))
    const opened = tried.filter((t) => t.status === 200)
    expect(opened).toHaveLength(2)
    expect(tried.filter((t) => t.status === 429).map((t) => t.reason)).toEqual(Array(3).fill('too-many-anonymous'))
    expect(host.mcpSessions()).toBe(2)
    // Another process has a budget of its own; a session that names its key is not anonymous.
    expect(await strangerInitializes()).toBe(200)
    expect((await initialize({ 'x-browser-session': 'named-anon-test' })).status).toBe(200)
    // Ending one of ours gives its room back.
    const ended = await fetch(`${host.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': opened[0]!.id! } })
    expect(ended.status).toBeLessThan(300)
    expect((await initialize()).status).toBe(200)
    expect((await initialize()).reason).toBe('too-many-anonymous')
  })
})
