import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import * as http from 'node:http'
import * as net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MCP_HEADERS, mcpInitialize } from '../fixtures/mcpInitialize.ts'
import { chromiumProcesses, eventually, listeningPortsOf, processes } from '../fixtures/processes.ts'
import { serveFixture, type Fixture } from './fixtures.ts'
import { client, freePort, spawnHost, type HostProcess } from './harness.ts'

// The host as `npm start` runs it (a child process): configuration is checked before anything
// listens; SIGTERM parks every open session and leaves no Chromium behind (E5); a restarted host
// on the same data dir resumes them.

let site: Fixture
const dirs: string[] = []
const children: HostProcess[] = []

beforeAll(async () => {
  site = await serveFixture('127.0.0.1')
})
afterAll(async () => {
  for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL')
  await site?.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'errands-hostproc-'))
  dirs.push(d)
  return d
}

const spawnTracked = (env: Record<string, string>) => {
  const p = spawnHost(env)
  children.push(p)
  return p
}

/** Runs `body` against a host started with `env`, then stops it with SIGTERM and expects a clean exit. */
const withHost = async (env: Record<string, string>, body: (url: string) => Promise<void>) => {
  const p = spawnTracked(env)
  try {
    await body(await p.ready)
  } finally {
    p.child.kill('SIGTERM')
    expect(await p.exited).toBe(0)
  }
}

const alive = (pids: ReadonlyArray<number>) => {
  const live = new Set(processes().map((p) => p.pid))
  return pids.filter((pid) => live.has(pid))
}

// Each refusal is its own process and needs no browser: they run side by side.
describe.concurrent('start-up configuration (B4)', () => {
  it.each([
    ['ERRANDS_PORT', '0', '1 to 65535'],
    ['ERRANDS_PORT', '65536', '1 to 65535'],
    ['ERRANDS_MAX_SESSIONS', '0', '1 to 32'],
    ['ERRANDS_MAX_SESSIONS', '33', '1 to 32'],
    ['ERRANDS_SESSION_IDLE_MS', '59999', '60000 to 86400000'],
    ['ERRANDS_SESSION_IDLE_MS', '86400001', '60000 to 86400000'],
  ])('%s=%s stops start-up before anything listens, naming the variable and the range', async (name, value, range) => {
    const p = spawnTracked({ ERRANDS_DATA_DIR: dataDir(), ERRANDS_PORT: String(await freePort()), [name]: value })
    expect(await p.exited).toBe(2)
    expect(p.stderr()).toContain(`${name}: invalid value — must be a whole number from ${range}`)
    expect(p.stdout()).not.toContain('listening')
  })

  it('a port in use stops start-up with words to act on', async () => {
    const taken = http.createServer()
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r))
    const port = (taken.address() as { port: number }).port
    const p = spawnTracked({ ERRANDS_DATA_DIR: dataDir(), ERRANDS_PORT: String(port) })
    expect(await p.exited).toBe(1)
    expect(p.stderr()).toMatch(new RegExp(`Port ${port} on 127.0.0.1 is in use.*ERRANDS_PORT`))
    await new Promise<void>((r) => taken.close(() => r()))
  })
})

describe('shutdown and restart (E5)', () => {
  it(
    'SIGTERM parks every open session, leaves no Chromium, exits 0; a restarted host resumes them (bounds ' +
      '32/86400000, then 1/60000)',
    async () => {
      const dir = dataDir()
      const port = String(await freePort())
      const first = spawnTracked({
        ERRANDS_DATA_DIR: dir,
        ERRANDS_PORT: port,
        ERRANDS_MAX_SESSIONS: '32',
        ERRANDS_SESSION_IDLE_MS: '86400000',
      })
      const url = await first.ready
      expect(url).toBe(`http://127.0.0.1:${port}`)
      // One line with the URL, one saying where the live view's token is (the path, never the token).
      expect(first.stdout()).toBe(
        `errands host listening on ${url}\nlive view: open ${url}/ and sign in with the token in ` +
          `${join(dir, 'host-token')}\n`,
      )
      expect(statSync(join(dir, 'host-token')).mode & 0o777).toBe(0o600)
      const call = client(url)
      expect((await call(undefined, 'GET', '/health')).body).toMatchObject({ ok: true, cap: 32, open: 0 })
      await call('keep', 'POST', '/v1/navigate', { url: site.url('/store?v=apple') })
      await call('keep', 'POST', '/v1/navigate', { url: site.url('/show') })
      await call('other', 'POST', '/v1/navigate', { url: site.url('/page?t=other') })
      expect((await call(undefined, 'GET', '/health')).body).toMatchObject({ open: 2, parked: 0 })

      const browsers = chromiumProcesses({ descendantsOf: [first.child.pid!] }).map((p) => p.pid)
      expect(browsers.length).toBeGreaterThan(0)
      first.child.kill('SIGTERM')
      expect(await first.exited).toBe(0)
      expect(first.stderr()).toContain('errands host: stopped')
      // Polled: the browsers' own children (zygote, renderers) end by themselves just after the
      // browser they belong to, and a SIGKILLed one lingers in /proc until a loaded kernel runs its
      // exit — gone, but not necessarily at the instant the host exited. A leak stays for good.
      await eventually(() => alive(browsers).length === 0, 15_000)
      expect(alive(browsers)).toEqual([])

      const second = spawnTracked({
        ERRANDS_DATA_DIR: dir,
        ERRANDS_PORT: port,
        ERRANDS_MAX_SESSIONS: '1',
        ERRANDS_SESSION_IDLE_MS: '60000',
      })
      const again = client(await second.ready)
      expect((await again(undefined, 'GET', '/health')).body).toMatchObject({ cap: 1, open: 0, parked: 2 })
      expect((await again('keep', 'GET', '/v1/state')).body).toMatchObject({
        lifecycle: 'parked',
        url: site.url('/show'),
      })
      const text = (await again('keep', 'GET', '/v1/text')).body.text as string
      expect(text).toContain('cookie=basket=apple storage=apple')
      expect((await again('other', 'GET', '/v1/url')).body.url).toBe(site.url('/page?t=other'))
      expect((await again(undefined, 'GET', '/health')).body).toMatchObject({ open: 1, parked: 1 })
      const browsers2 = chromiumProcesses({ descendantsOf: [second.child.pid!] }).map((p) => p.pid)
      second.child.kill('SIGINT')
      expect(await second.exited).toBe(0)
      await eventually(() => alive(browsers2).length === 0, 15_000)
      expect(alive(browsers2)).toEqual([])
    },
  )
})

describe('the largest input a client may send (attack, the shipped host)', () => {
  it(
    'a 1 MB paste and 200 typed events are applied in bounded time, then the session takes the next call; more is ' +
      'refused',
    async () => {
      await withHost({ ERRANDS_DATA_DIR: dataDir(), ERRANDS_PORT: String(await freePort()) }, async (url) => {
        const call = client(url)
        expect((await call('flood', 'POST', '/v1/navigate', { url: site.url('/input') })).status).toBe(200)
        // [the field's length, the key presses the page saw]
        const seen = async () =>
          (
            await call('flood', 'POST', '/v1/evaluate', {
              expression: `[q.value.length, (log.textContent.match(/k:/g) ?? []).length]`,
            })
          ).body.value
        // Just under the host's 1 MiB body: 100 texts of 10,000 keyboard characters. Typed key by key
        // (5 ms or more each) they would hold the session's input for hours; each is a paste, inserted
        // at once, and with no field focused it inserts nothing and presses no key.
        const paste = await call('flood', 'POST', '/v1/input', {
          events: Array.from({ length: 100 }, () => ({ type: 'text', text: 'a'.repeat(10_000) })),
        })
        expect(paste.body).toEqual({ applied: 100 })
        expect(await seen()).toEqual([0, 0])
        // The most key presses a body can ask for: 200 texts short enough to be typed; a call types at
        // most 256 keys and inserts the rest.
        expect((await call('flood', 'POST', '/v1/click', { selector: '#q' })).status).toBe(200)
        const typed = await call('flood', 'POST', '/v1/input', {
          events: Array.from({ length: 200 }, () => ({ type: 'text', text: 'b'.repeat(64) })),
        })
        expect(typed.body).toEqual({ applied: 200 })
        expect(await seen()).toEqual([200 * 64, 256])
        expect(
          (await call('flood', 'POST', '/v1/input', { events: [{ type: 'key', action: 'press', key: 'Enter' }] })).body,
        ).toEqual({ applied: 1 })
        expect(await seen()).toEqual([200 * 64, 257])
        const tooMany = await call('flood', 'POST', '/v1/input', {
          events: Array.from({ length: 201 }, () => ({ type: 'text', text: 'c' })),
        })
        expect(tooMany.status).toBe(400)
        const tooBig = await call('flood', 'POST', '/v1/input', {
          events: Array.from({ length: 105 }, () => ({ type: 'text', text: 'c'.repeat(10_000) })),
        })
        expect(tooBig.status).toBe(413)
        expect(await seen()).toEqual([200 * 64, 257])
      })
    },
  )
})

describe('the wheel on the shipped host, asked from other processes (P1, X2, X3)', () => {
  it(
    "only the person's token takes and hands back the wheel; the agent meanwhile gets 409 for acting, ending, " +
      "releasing and re-routing the errand; /mcp opens nothing without a token; a foreign page's request and " +
      '/health give nothing away',
    async () => {
      const dir = dataDir()
      const agentToken = 'process-test-agent-token-0123456789abcdef'
      writeFileSync(join(dir, 'agent-tokens'), `${agentToken} *\n`, { mode: 0o600 })
      await withHost(
        {
          ERRANDS_DATA_DIR: dir,
          ERRANDS_PORT: String(await freePort()),
          ERRANDS_AGENT_TOKENS_FILE: join(dir, 'agent-tokens'),
        },
        async (url) => {
          const person = client(url, readFileSync(join(dir, 'host-token'), 'utf8').trim())
          const agent = client(url)
          const asAgent = { authorization: `Bearer ${agentToken}` }
          expect(
            (await agent('secret-key-1', 'POST', '/v1/navigate', { url: site.url('/input') }, asAgent)).status,
          ).toBe(200)
          expect((await agent('secret-key-1', 'POST', '/v1/click', { selector: '#q' }, asAgent)).status).toBe(200)
          // The agent's token, and no token at all, take no wheel.
          for (const headers of [asAgent, {}]) {
            const r = await agent(undefined, 'POST', '/v1/person/wheel', { session: 'secret-key-1' }, headers)
            expect(r.status).toBe(401)
            expect(r.body).toMatchObject({ error: { code: 'Unauthorized' } })
          }
          // The person's token from a page of another origin (a rebinding or hostile page) is refused too.
          const foreign = await person(
            undefined,
            'POST',
            '/v1/person/wheel',
            { session: 'secret-key-1' },
            { origin: 'http://evil.example' },
          )
          expect(foreign.status).toBe(403)
          expect(
            (await agent('secret-key-1', 'POST', '/v1/input', { events: [{ type: 'text', text: 'a' }] }, asAgent)).body,
          ).toEqual({ applied: 1 })

          expect((await person(undefined, 'POST', '/v1/person/wheel', { session: 'secret-key-1' })).body).toMatchObject(
            {
              personDriving: true,
            },
          )
          const refused = await agent(
            'secret-key-1',
            'POST',
            '/v1/input',
            { events: [{ type: 'text', text: 'b' }] },
            asAgent,
          )
          expect(refused.status).toBe(409)
          expect(refused.body).toMatchObject({ error: { code: 'PersonDriving' } })
          // Nor may the agent end, park, release or re-route the errand under the person (P2): 409 each, and the
          // errand is still open and driven by the person afterwards.
          for (const [method, path, body] of [
            ['POST', '/v1/session/task', { status: 'done' }],
            ['POST', '/v1/session/task', { status: 'interrupted' }],
            ['DELETE', '/v1/session', undefined],
            ['PUT', '/v1/session/proxy', { url: null }],
          ] as const) {
            const r = await agent('secret-key-1', method, path, body, asAgent)
            expect([method, path, r.status, r.body?.error?.code]).toEqual([method, path, 409, 'PersonDriving'])
          }
          const sessions = await person(undefined, 'GET', '/v1/person/sessions')
          expect(JSON.stringify(sessions.body)).toContain('"personDriving":true')
          // /mcp with agent tokens set: no token, no session and no slot (X2).
          const mcp = await fetch(new URL('/mcp', url), { method: 'POST', headers: MCP_HEADERS, body: mcpInitialize() })
          expect(mcp.status).toBe(401)
          expect((await person(undefined, 'GET', '/v1/person/sessions')).body).toEqual(sessions.body)
          expect(
            (await agent(undefined, 'POST', '/v1/person/hand-back', { session: 'secret-key-1' }, asAgent)).status,
          ).toBe(401)
          const health = await agent(undefined, 'GET', '/health')
          expect(health.body).toMatchObject({ open: 1 })
          expect(JSON.stringify(health.body)).not.toContain('secret-key-1')

          expect(
            (await person(undefined, 'POST', '/v1/person/hand-back', { session: 'secret-key-1', note: 'done' })).status,
          ).toBe(200)
          expect(
            (await agent('secret-key-1', 'POST', '/v1/input', { events: [{ type: 'text', text: 'c' }] }, asAgent)).body,
          ).toEqual({ applied: 1 })
          expect(
            (await agent('secret-key-1', 'POST', '/v1/evaluate', { expression: 'q.value' }, asAgent)).body.value,
          ).toBe('ac')
        },
      )
    },
  )
})

describe("the shipped host's other doors, tried from another local process (G3, X2, W1)", () => {
  it(
    'no port of the host is an open proxy, anonymous MCP sessions stop at their budget, and a saved password is ' +
      'never shown nor filled on another site',
    async () => {
      // A site the test counts: anything an engine port relayed to it would land here.
      let relayed = 0
      const probe = http.createServer((_req, res) => {
        relayed++
        res.end('reached')
      })
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
      const probePort = (probe.address() as { port: number }).port
      const dir = dataDir()
      const port = await freePort()
      const p = spawnTracked({ ERRANDS_DATA_DIR: dir, ERRANDS_PORT: String(port) })
      try {
        const url = await p.ready
        const person = client(url, readFileSync(join(dir, 'host-token'), 'utf8').trim())
        const agent = client(url)
        // An open errand has its egress lane.
        expect((await agent('doors-key', 'POST', '/v1/navigate', { url: site.url('/input') })).status).toBe(200)

        // G3: every port the host process listens on, tried as a proxy from this process (none of the engine's).
        const ports = listeningPortsOf(p.child.pid!).filter((x) => x !== port)
        expect(ports.length).toBeGreaterThan(0)
        const asProxy = async (to: number, request: string) => {
          const socket = net.connect(to, '127.0.0.1')
          let got = ''
          socket.on('data', (d: Buffer) => (got += d.toString('latin1')))
          socket.on('error', () => undefined)
          socket.write(request)
          await new Promise((r) => socket.once('close', r))
          return got.split('\r\n')[0] ?? ''
        }
        for (const to of ports) {
          const target = `127.0.0.1:${probePort}`
          const plain = await asProxy(
            to,
            `GET http://${target}/ HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n\r\n`,
          )
          const tunnel = await asProxy(to, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`)
          for (const answer of [plain, tunnel]) expect(answer, `port ${to}`).not.toMatch(/^HTTP\/1\.[01] 2/)
        }
        expect(relayed).toBe(0)

        // X2: anonymous MCP sessions from one process stop at its budget of two.
        const opened = await Promise.all(
          Array.from({ length: 5 }, () =>
            fetch(new URL('/mcp', url), { method: 'POST', headers: MCP_HEADERS, body: mcpInitialize() }),
          ),
        )
        const statuses = opened.map((r) => r.status).sort()
        expect(statuses).toEqual([200, 200, 429, 429, 429])

        // W1, W4: a saved sign-in is listed to the agent without its password, and filling it on a page of
        // another site (the fixture is 127.0.0.1, the entry shop.example) is refused with nothing filled.
        const secret = 'never-shown-9f3c2a'
        const saved = await person(undefined, 'POST', '/v1/person/passwords', {
          site: 'shop.example',
          username: 'ann',
          password: secret,
        })
        expect(saved.status).toBe(200)
        const listed = await agent('doors-key', 'GET', '/v1/passwords')
        expect(listed.body).toMatchObject({ signIns: [{ site: 'shop.example', username: 'ann', totp: false }] })
        const fill = await agent('doors-key', 'POST', '/v1/fill-password', { site: 'shop.example', password: '#q' })
        expect(fill.status).toBe(403)
        expect(fill.body).toMatchObject({ error: { code: 'WrongSite' } })
        expect((await agent('doors-key', 'POST', '/v1/evaluate', { expression: 'q.value' })).body.value).toBe('')
        for (const r of [listed, fill, await person(undefined, 'GET', '/v1/person/passwords')])
          expect(JSON.stringify(r.body)).not.toContain(secret)
        expect(p.stdout() + p.stderr()).not.toContain(secret)
      } finally {
        p.child.kill('SIGTERM')
        expect(await p.exited).toBe(0)
        await new Promise((r) => probe.close(r))
      }
    },
  )
})
