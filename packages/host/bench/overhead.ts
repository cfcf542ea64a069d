/**
 * The host's own overhead: `GET /v1/url` through the real server (HTTP, checks, the supervisor's
 * drive/undrive, the active-tab lookup) against Playwright's `page.url()` on the same pages,
 * 8 sessions in parallel. Run: `node --import tsx packages/host/bench/overhead.ts`.
 *
 * @example
 * // node --import tsx packages/host/bench/overhead.ts
 */
import { Chromium } from '@errands/engine'
import { Supervisor } from '@errands/supervisor'
import { Context, Effect, Exit, Scope } from 'effect'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hostSettingsFrom, startHost } from '../src/index.ts'

const SESSIONS = 8
const ROUNDS = Number(process.env['ROUNDS'] ?? 100)

const dataDir = mkdtempSync(join(tmpdir(), 'errands-bench-'))
const scope = Effect.runSync(Scope.make())
const settings = Effect.runSync(hostSettingsFrom({ ERRANDS_DATA_DIR: dataDir, ERRANDS_MAX_SESSIONS: String(SESSIONS) }))
const host = await Effect.runPromise(startHost({ settings, port: 0, log: () => undefined, daily: false }).pipe(Scope.extend(scope)))
const supervisor = Context.get(host.services, Supervisor)
const chromium = Context.get(host.services, Chromium)
const keys = Array.from({ length: SESSIONS }, (_, i) => `bench-${i}`)
const get = (key: string) => fetch(`${host.url}/v1/url`, { headers: { 'x-browser-session': key } }).then((r) => r.json())

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!
  return `p50 ${q(0.5).toFixed(3)} ms, p95 ${q(0.95).toFixed(3)} ms, mean ${(s.reduce((a, b) => a + b, 0) / s.length).toFixed(3)} ms (n=${s.length})`
}

await Promise.all(keys.map(get)) // opens the 8 contexts
for (let i = 0; i < 10; i++) await Promise.all(keys.map(get)) // warm-up

const viaHost: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  await Promise.all(keys.map(async (key) => {
    const t = performance.now()
    await get(key)
    viaHost.push(performance.now() - t)
  }))
}

const health: number[] = []
const single: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  let t = performance.now()
  await fetch(`${host.url}/health`).then((r) => r.json())
  health.push(performance.now() - t)
  t = performance.now()
  await get(keys[0]!)
  single.push(performance.now() - t)
}

const pages = keys.map((key) => chromium.pageOf(supervisor.contextOf(`session:${key}`)!, 't1')!)
const direct: number[] = []
const evaluate: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  await Promise.all(pages.map(async (page) => {
    let t = performance.now()
    page.url()
    direct.push(performance.now() - t)
    t = performance.now()
    await page.evaluate(() => location.href)
    evaluate.push(performance.now() - t)
  }))
}

console.log(`GET /v1/url via the host, ${SESSIONS} sessions in parallel: ${stats(viaHost)}`)
console.log(`GET /v1/url, one session at a time:                ${stats(single)}`)
console.log(`GET /health (HTTP and checks only, no session):   ${stats(health)}`)
console.log(`Playwright page.url() (no round trip):               ${stats(direct)}`)
console.log(`Playwright page.evaluate(location.href) (one CDP trip): ${stats(evaluate)}`)
await Effect.runPromise(Scope.close(scope, Exit.void))
rmSync(dataDir, { recursive: true, force: true })
