/**
 * Heal time after a SIGKILL of the errands' Chromium with 10 live errands (H2): a host of its own
 * with room for all ten; each round every session loads a page, the browser is killed, and each
 * session's next `/v1/text` is timed from the kill until it answers 200 with its own page.
 *
 * @example
 * const heal = await healRounds({ dir, sites, rounds: 3 })
 * heal.p95 // ms
 */
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { eventually } from '../test/fixtures/processes.ts'
import { shortTmpDir, startHost } from './host.ts'
import { osProbe } from './os.ts'
import type { SoakSites } from './sites.ts'

/** The result of the heal rounds. */
export interface HealResult {
  readonly rounds: number
  readonly times: ReadonlyArray<number>
  readonly p50: number
  readonly p95: number
  /** Sessions whose page came back as it was (its own text) after the heal. */
  readonly asItWas: number
  readonly failed: number
}

/**
 * The p-th percentile (nearest rank) of `values`.
 *
 * @example
 * percentile([1, 2, 3, 4], 50) // 2
 */
export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

/**
 * Runs the rounds on a fresh host in `<dir>/heal` and removes it after.
 *
 * @example
 * await healRounds({ dir: '/tmp/soak', sites, rounds: 2 })
 */
export const healRounds = async (o: {
  readonly dir: string
  readonly sites: SoakSites
  readonly rounds: number
  readonly live?: number
}): Promise<HealResult> => {
  const live = o.live ?? 10
  const dataDir = join(o.dir, 'heal', 'data')
  const tmpDir = shortTmpDir()
  mkdirSync(dataDir, { recursive: true })
  mkdirSync(tmpDir, { recursive: true })
  const host = await startHost({ dataDir, tmpDir, env: { ERRANDS_MAX_SESSIONS: String(live + 2) } })
  const probe = osProbe({ owner: dataDir, tmpDir })
  const times: number[] = []
  let asItWas = 0
  let failed = 0
  try {
    for (let round = 0; round < o.rounds; round++) {
      const keys = Array.from({ length: live }, (_, i) => `heal-${i}`)
      await Promise.all(
        keys.map((k) =>
          host.call(k, 'POST', '/v1/navigate', {
            url: o.sites.url('news.example', `/page?t=${k}-r${round}`, `${k}~0.${round}`),
          }),
        ),
      )
      // The snapshot a heal restores is taken a debounce (500 ms here) after the page loaded;
      // reading every page's text first gives it that time under any load.
      await Promise.all(keys.map((k) => host.call(k, 'GET', '/v1/text')))
      const browser = probe.chromium().errandsBrowser
      if (browser === undefined) throw new Error('the errands browser is not running')
      const killed = performance.now()
      process.kill(browser, 'SIGKILL')
      await eventually(() => probe.chromium().errandsBrowser !== browser, 10_000, 20)
      await Promise.all(
        keys.map(async (k) => {
          while (performance.now() - killed < 30_000) {
            const r = await host.call(k, 'GET', '/v1/text')
            if (r.status === 200) {
              times.push(performance.now() - killed)
              if (String(r.body.text).includes(`page ${k}-r${round}`)) asItWas++
              return
            }
            // A crashed page answers 503 until its errand heals; ask again at once.
          }
          failed++
        }),
      )
    }
  } finally {
    await host.stop()
    rmSync(join(o.dir, 'heal'), { recursive: true, force: true })
    rmSync(tmpDir, { recursive: true, force: true })
  }
  return { rounds: o.rounds, times, p50: percentile(times, 50), p95: percentile(times, 95), asItWas, failed }
}
