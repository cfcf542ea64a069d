/**
 * The host's own overhead: `GET /v1/url` through the real server (HTTP, checks, the supervisor's
 * drive/undrive, the active-tab lookup) against Playwright's `page.url()` on the same pages,
 * 8 sessions in parallel; and `POST /v1/navigate` for the 8 at once, called from another process
 * (`navigateClients.ts`, as agents call), between two pages of a loopback site.
 * `npm run bench -- host` puts it in the bench's table; alone:
 * `node --import tsx packages/host/bench/overhead.ts`.
 *
 * @example
 * const times = await measureHostOverhead({ sessions: 8, rounds: 100 })
 */
import { Chromium } from '@errands/engine'
import { Supervisor } from '@errands/supervisor'
import { Context, Effect, Exit, Scope } from 'effect'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { hostSettingsFrom, startHost } from '../src/index.ts'

/** Per-call times in ms of each way of asking a session's URL. */
export interface HostTimes {
  /** `GET /v1/url`, all sessions at once (each call's own latency). */
  readonly viaHost: number[]
  /** A batch of `GET /v1/url`, one per session, divided by the number of sessions. */
  readonly viaHostPerCall: number[]
  /** `GET /v1/url`, one session at a time. */
  readonly single: number[]
  /** `GET /health`: HTTP and the checks only, no session. */
  readonly health: number[]
  /** Playwright's `page.url()` on the same pages, all sessions at once (no round trip). */
  readonly direct: number[]
  /** Playwright's `page.evaluate(() => location.href)`, all sessions at once (one CDP trip). */
  readonly evaluate: number[]
  /** `POST /v1/navigate` from another process, all sessions at once (each call's own latency). */
  readonly navigate: number[]
  /** `POST /v1/navigate` from another process, one session at a time. */
  readonly navigateSingle: number[]
}

/** A loopback site of two small pages the sessions navigate between. */
const startSite = async () => {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end(`<!doctype html><title>${req.url}</title><p>${req.url}</p>`)
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const { port } = server.address() as AddressInfo
  return { port, close: () => new Promise<void>((done) => server.close(() => done())) }
}

/** The agents' process (`navigateClients.ts`): one command a line, one JSON answer a line. */
const startClients = (base: string, keys: ReadonlyArray<string>, urls: ReadonlyArray<string>) => {
  const file = fileURLToPath(new URL('./navigateClients.ts', import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', file, base, JSON.stringify(keys), JSON.stringify(urls)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const ask = async (command: string): Promise<number[]> => {
    child.stdin.write(`${command}\n`)
    const next = await lines.next()
    if (next.done === true) throw new Error('the bench clients exited')
    const { ms, statuses } = JSON.parse(next.value) as { ms: number[]; statuses: number[] }
    if (statuses.some((s) => s !== 200)) throw new Error(`POST /v1/navigate answered ${statuses.join(', ')}`)
    return ms
  }
  return { ask, stop: () => child.kill() }
}

/**
 * Starts a host on a temp data dir, opens `sessions` sessions and measures `rounds` rounds of
 * each way, interleaved round by round (so noise lands on all alike); then stops the host.
 *
 * @example
 * const { viaHost, direct } = await measureHostOverhead({ sessions: 8, rounds: 100 })
 */
export const measureHostOverhead = async ({ sessions = 8, rounds = 100 } = {}): Promise<HostTimes> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'errands-bench-host-'))
  const scope = Effect.runSync(Scope.make())
  const site = await startSite()
  let clients: ReturnType<typeof startClients> | undefined
  try {
    const settings = Effect.runSync(
      hostSettingsFrom({
        ERRANDS_DATA_DIR: dataDir,
        ERRANDS_MAX_SESSIONS: String(sessions),
        ERRANDS_LOCALHOST_PORTS: String(site.port),
      }),
    )
    const host = await Effect.runPromise(
      startHost({ settings, port: 0, log: () => undefined, daily: false }).pipe(Scope.extend(scope)),
    )
    const supervisor = Context.get(host.services, Supervisor)
    const chromium = Context.get(host.services, Chromium)
    const keys = Array.from({ length: sessions }, (_, i) => `bench-${i}`)
    const get = (key: string) =>
      fetch(`${host.url}/v1/url`, { headers: { 'x-browser-session': key } }).then((r) => r.json())

    await Promise.all(keys.map(get)) // opens the contexts
    for (let i = 0; i < 10; i++) await Promise.all(keys.map(get)) // warm-up
    const pages = keys.map((key) => chromium.pageOf(supervisor.contextOf(`session:${key}`)!, 't1')!)
    const urls = [`http://127.0.0.1:${site.port}/a`, `http://127.0.0.1:${site.port}/b`]
    clients = startClients(host.url, keys, urls)
    for (let i = 0; i < 4; i++) await clients.ask(`all ${i}`) // warm-up

    const t: HostTimes = {
      viaHost: [],
      viaHostPerCall: [],
      single: [],
      health: [],
      direct: [],
      evaluate: [],
      navigate: [],
      navigateSingle: [],
    }
    for (let round = 0; round < rounds; round++) {
      t.navigate.push(...(await clients.ask(`all ${round}`)))
      t.navigateSingle.push(...(await clients.ask(`one ${round % sessions} ${round + 1}`)))
      const batch = performance.now()
      await Promise.all(
        keys.map(async (key) => {
          const start = performance.now()
          await get(key)
          t.viaHost.push(performance.now() - start)
        }),
      )
      t.viaHostPerCall.push((performance.now() - batch) / sessions)
      await Promise.all(
        pages.map(async (page) => {
          let start = performance.now()
          page.url()
          t.direct.push(performance.now() - start)
          start = performance.now()
          await page.evaluate(() => location.href)
          t.evaluate.push(performance.now() - start)
        }),
      )
      let start = performance.now()
      await fetch(`${host.url}/health`).then((r) => r.json())
      t.health.push(performance.now() - start)
      start = performance.now()
      await get(keys[round % sessions]!)
      t.single.push(performance.now() - start)
    }
    return t
  } finally {
    clients?.stop()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await site.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!
  return (
    `p50 ${q(0.5).toFixed(3)} ms, p95 ${q(0.95).toFixed(3)} ms, mean ` +
    `${(s.reduce((a, b) => a + b, 0) / s.length).toFixed(3)} ms (n=${s.length})`
  )
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const t = await measureHostOverhead({ sessions: 8, rounds: Number(process.env.ROUNDS ?? 100) })
  console.log(`GET /v1/url via the host, 8 sessions in parallel:     ${stats(t.viaHost)}`)
  console.log(`  the same batch, per call (batch time / 8):         ${stats(t.viaHostPerCall)}`)
  console.log(`GET /v1/url, one session at a time:                  ${stats(t.single)}`)
  console.log(`GET /health (HTTP and checks only, no session):      ${stats(t.health)}`)
  console.log(`Playwright page.url() (no round trip):               ${stats(t.direct)}`)
  console.log(`Playwright page.evaluate(location.href) (one CDP trip): ${stats(t.evaluate)}`)
  console.log(`POST /v1/navigate, 8 at once, clients in another process: ${stats(t.navigate)}`)
  console.log(`POST /v1/navigate, one at a time, another process:    ${stats(t.navigateSingle)}`)
}
