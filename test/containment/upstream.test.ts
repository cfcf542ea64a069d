/**
 * Issue #21 (L7): an errand's own upstream proxy, on real Chromium through the host on its real
 * port. Three upstream proxies on loopback log what reaches them, each behind its own user and
 * password: A is named by errand a's first call (`X-Browser-Proxy`), B by errand b's
 * `PUT /v1/session/proxy`, D is the host's default (`ERRANDS_UPSTREAM_PROXY`) for errand c, which
 * names none. Each errand's page and its sub-resource reach only its own proxy. Parked
 * (`interrupted`), then parked again by a host stop and resumed by a second host on the same data
 * dir, errand a still leaves through A — the proxy was sealed with it. `PUT null` sends b back to
 * the default. No password shows in any log line, health, answer to the agent, or file of the
 * data dir (the record is sealed).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loggingProxy } from '../fixtures/proxies.ts'
import { enginePortListener, startHostileHost } from './harness.ts'

/** The site every errand visits: a page per name, with a sub-resource named after it. */
const site = async () => {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    if (path.endsWith('.png')) return void res.writeHead(204).end()
    res
      .writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' })
      .end(`<title>${path}</title><img src="${path}-sub.png">`)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  return { port: (server.address() as { port: number }).port, close: () => new Promise((r) => server.close(r)) }
}

const PASSWORDS = ['pw-alpha-71c2', 'pw-bravo-5e0d', 'pw-delta-9a4b']
let a: Awaited<ReturnType<typeof loggingProxy>>
let b: Awaited<ReturnType<typeof loggingProxy>>
let d: Awaited<ReturnType<typeof loggingProxy>>
let web: Awaited<ReturnType<typeof site>>
let engine: Awaited<ReturnType<typeof enginePortListener>>
let dataDir: string
const logs: Array<string> = []
const answers: Array<string> = []

beforeAll(async () => {
  a = await loggingProxy('A', 'alice', PASSWORDS[0]!)
  b = await loggingProxy('B', 'bob', PASSWORDS[1]!)
  d = await loggingProxy('D', 'dora', PASSWORDS[2]!)
  web = await site()
  engine = await enginePortListener()
  dataDir = mkdtempSync(join(tmpdir(), 'errands-upstream-'))
})
afterAll(async () => {
  await Promise.all([a?.close(), b?.close(), d?.close(), web?.close(), engine?.close()])
  rmSync(dataDir, { recursive: true, force: true })
})

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    return statSync(p).isDirectory() ? filesUnder(p) : [p]
  })

describe('an upstream proxy per errand (issue #21, L7)', () => {
  it(
    'chains each errand through its own proxy, keeps it across a park and a restart, and never shows a ' + 'password',
    async () => {
      const start = () =>
        startHostileHost({ enginePort: engine.port, egress: true, dataDir, env: { ERRANDS_UPSTREAM_PROXY: d.url } })
      const page = (name: string) => `http://127.0.0.1:${web.port}/${name}`
      let host = await start()
      const call = async (
        key: string,
        method: string,
        path: string,
        body?: unknown,
        headers?: Record<string, string>,
      ) => {
        const reply = await host.call(key, method, path, body, headers)
        answers.push(JSON.stringify(reply.body))
        return reply
      }
      try {
        // a: named on the first call; b: named by PUT before any page; c: names none (the default, D).
        expect(
          (await call('a', 'POST', '/v1/navigate', { url: page('a1') }, { 'x-browser-proxy': a.url })).status,
        ).toBe(200)
        expect((await call('b', 'PUT', '/v1/session/proxy', { url: b.url })).body).toEqual({ upstreamProxy: 'set' })
        expect((await call('b', 'POST', '/v1/navigate', { url: page('b1') })).status).toBe(200)
        expect((await call('c', 'POST', '/v1/navigate', { url: page('c1') })).status).toBe(200)
        await Promise.all([a.reached('/a1-sub.png'), b.reached('/b1-sub.png'), d.reached('/c1-sub.png')])

        // Parked and resumed in this process: still A.
        expect((await call('a', 'POST', '/v1/session/task', { status: 'interrupted' })).body.lifecycle).toBe('parked')
        expect((await call('a', 'POST', '/v1/navigate', { url: page('a2') })).status).toBe(200)
        await a.reached('/a2-sub.png')

        // b back to the default: from now on through D.
        expect((await call('b', 'PUT', '/v1/session/proxy', { url: null })).body).toEqual({ upstreamProxy: 'none' })
        expect((await call('b', 'POST', '/v1/navigate', { url: page('b2') })).status).toBe(200)
        await d.reached('/b2-sub.png')

        // A stop parks every errand (E5); a second host on the same data dir resumes a from its sealed record.
        logs.push(...host.logs)
        await host.stop()
        host = await start()
        expect((await call('a', 'POST', '/v1/navigate', { url: page('a3') })).status).toBe(200)
        await a.reached('/a3-sub.png')
        answers.push(JSON.stringify((await call('a', 'GET', '/v1/state')).body))
        answers.push(await (await fetch(`${host.url}/health`)).text())
        answers.push(JSON.stringify((await call(undefined as unknown as string, 'GET', '/v1/person/health')).body))
      } finally {
        logs.push(...host.logs)
        await host.stop()
      }

      // Each proxy saw its own errand's pages only (a resumed errand reopens its tab: through its own proxy again).
      const pages = (seen: ReadonlyArray<string>) => [...new Set(seen.filter((p) => p !== '/favicon.ico'))].sort()
      expect(pages(a.seen)).toEqual(['/a1', '/a1-sub.png', '/a2', '/a2-sub.png', '/a3', '/a3-sub.png'])
      expect(pages(b.seen)).toEqual(['/b1', '/b1-sub.png'])
      expect(pages(d.seen)).toEqual(['/b2', '/b2-sub.png', '/c1', '/c1-sub.png'])
      expect(engine.seen.tcpBytes).toBe(0)

      // L7: no password in any log line, answer, health, or file of the data dir (the record is sealed).
      expect(logs.length).toBeGreaterThan(0)
      const files = filesUnder(dataDir).filter((f) => statSync(f).size < 50_000_000)
      for (const secret of PASSWORDS) {
        expect(logs.filter((l) => l.includes(secret))).toEqual([])
        expect(answers.filter((x) => x.includes(secret))).toEqual([])
        expect(files.filter((f) => readFileSync(f).includes(secret))).toEqual([])
      }
    },
  )
})
