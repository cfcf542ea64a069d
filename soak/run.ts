/**
 * One soak run: the fixture sites, the host child, K sessions, the chaos loop, the monitor, the
 * wire checks, quiet periods, a clean shutdown that must leave nothing behind, and the heal
 * rounds — everything recorded in `<out>/journal.jsonl`.
 *
 * @example
 * const result = await runSoak({ seed: 7, sessions: 24, cap: 6, minutes: 3, chaosEveryMs: 8000, quietEveryMs: 60000,
 * healRounds: 1, out: '/tmp/soak' })
 * result.violations // []
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { prng } from '../test/faults/prng.ts'
import { eventually } from '../test/fixtures/processes.ts'
import { chaosOnce, chaosSchedule, leftoverTemps } from './chaos.ts'
import { healRounds, percentile, type HealResult } from './heal.ts'
import { openJournal, type RunOptions } from './journal.ts'
import { SessionModel } from './model.ts'
import { quietPeriod, startMonitor, type Quiet, type Sample } from './monitor.ts'
import { runSession } from './session.ts'
import { serveSoakSites } from './sites.ts'
import { checkWire } from './wire.ts'
import { World, type Stats, type Violation } from './world.ts'

/** Latency of one path in the first and the last tenth of the run. */
export interface Trend {
  readonly path: string
  readonly count: number
  readonly first: { readonly p50: number; readonly p95: number }
  readonly last: { readonly p50: number; readonly p95: number }
}

/** Everything a run found. */
export interface SoakResult {
  readonly options: RunOptions
  readonly journal: string
  readonly elapsedMs: number
  readonly stats: Stats
  readonly violations: ReadonlyArray<Violation>
  readonly trends: ReadonlyArray<Trend>
  readonly samples: ReadonlyArray<Sample>
  readonly quiets: ReadonlyArray<Quiet>
  readonly latencies: ReadonlyArray<{ t: number; path: string; ms: number }>
  readonly hostStartMs: { readonly p50: number; readonly max: number; readonly count: number }
  readonly heal: HealResult | undefined
  readonly diskFull: boolean
  readonly chaosLog: ReadonlyArray<string>
}

const trend = (
  latencies: ReadonlyArray<{ t: number; path: string; ms: number }>,
  path: string,
  elapsedMs: number,
): Trend => {
  const own = latencies.filter((l) => l.path === path)
  const first = own.filter((l) => l.t <= elapsedMs / 10).map((l) => l.ms)
  const last = own.filter((l) => l.t >= (elapsedMs * 9) / 10).map((l) => l.ms)
  const round = (n: number) => Math.round(n)
  return {
    path,
    count: own.length,
    first: { p50: round(percentile(first, 50)), p95: round(percentile(first, 95)) },
    last: { p50: round(percentile(last, 50)), p95: round(percentile(last, 95)) },
  }
}

/** Mounts a tmpfs for the store when this process may (root, CAP_SYS_ADMIN); says why not otherwise. */
const mountStore = (storeDir: string): string | undefined => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256m,mode=0700', 'tmpfs', storeDir], { stdio: 'pipe' })
    return undefined
  } catch (e) {
    return String((e as { stderr?: Buffer }).stderr ?? e).trim()
  }
}

/**
 * A run killed during a full-disk period leaves its tmpfs mounted (the next run's clean-up would fail with EBUSY):
 * unmount it.
 */
const unmountLeftover = (storeDir: string): void => {
  const mounted =
    existsSync('/proc/mounts') &&
    readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .some((line) => line.split(' ')[1] === resolve(storeDir))
  if (mounted) execFileSync('umount', ['-l', storeDir], { stdio: 'pipe' })
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Runs the soak with these options.
 *
 * @example
 * await runSoak(options)
 */
export const runSoak = async (options: RunOptions, say: (line: string) => void = () => {}): Promise<SoakResult> => {
  mkdirSync(options.out, { recursive: true })
  const dir = join(options.out, 'work')
  unmountLeftover(join(dir, 'data', 'store'))
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(join(dir, 'data', 'store'), { recursive: true })
  const journal = openJournal(join(options.out, 'journal.jsonl'), options)
  const sites = await serveSoakSites()
  const cannotMount = mountStore(join(dir, 'data', 'store'))
  if (cannotMount !== undefined) say(`disk-full chaos off: cannot mount a tmpfs for the store (${cannotMount})`)
  const chaosLog: string[] = []
  let world: World | undefined
  try {
    const w = await World.start({ dir, options, sites, journal })
    world = w
    const endAt = Date.now() + options.minutes * 60_000
    for (let i = 0; i < options.sessions; i++) w.sessions.push(new SessionModel(`s${i}`))
    w.stats.sessions = options.sessions
    const monitor = startMonitor(w)
    const wire = setInterval(() => checkWire(w), 1_000)
    const quiets: Quiet[] = []
    const loops = w.sessions.map((s, i) => runSession(w, s, prng(options.seed * 7919 + i)))

    // The conductor: chaos at seeded random moments, a quiet period every quietEveryMs.
    const random = prng(options.seed ^ 0x5eed)
    let nextQuiet = Date.now() + Math.min(20_000, options.quietEveryMs / 2)
    const nextChaos = chaosSchedule(random, cannotMount === undefined)
    const hardEndAt = Date.now() + (options.atLeast?.maxMinutes ?? options.minutes) * 60_000
    const workDone = () => {
      const done: Readonly<Record<string, number>> = { ...w.stats, kills: w.stats.rendererKills + w.stats.browserKills }
      return Object.entries(options.atLeast?.counts ?? {}).every(([k, n]) => (done[k] ?? 0) >= n)
    }
    const going = () => Date.now() < endAt || (!workDone() && Date.now() < hardEndAt)
    let chaosAt = Date.now() + options.chaosEveryMs * (0.5 + random())
    while (going()) {
      // Past the planned end, the work still owed is looked at every second.
      const wakeAt = Date.now() < endAt ? endAt : Date.now() + 1_000
      await sleep(Math.max(0, Math.min(chaosAt, nextQuiet, wakeAt) - Date.now()))
      if (!going()) break
      if (Date.now() < Math.min(chaosAt, nextQuiet)) continue
      if (Date.now() >= nextQuiet) {
        const q = await quietPeriod(w, quiets, random)
        say(
          `quiet at ${Math.round(q.t / 1000)} s: ${q.chromium} Chromium processes, ${q.fds} fds, ${q.tempDirs} temp ` +
            `dirs, heap ${q.heapMb} MB (settled in ${q.settledMs} ms)`,
        )
        nextQuiet = Date.now() + options.quietEveryMs
        continue
      }
      chaosAt = Date.now() + options.chaosEveryMs * (0.5 + random())
      const what = await chaosOnce(w, nextChaos(), random, {
        diskFull: cannotMount === undefined,
        diskFullMs: Math.min(20_000, options.chaosEveryMs),
      })
      chaosLog.push(`${Math.round(w.elapsed() / 1000)} s ${what}`)
      say(`chaos at ${Math.round(w.elapsed() / 1000)} s: ${what}`)
    }
    const last = await quietPeriod(w, quiets, random)
    say(
      `last quiet: ${last.chromium} Chromium processes, ${last.fds} fds, ${last.tempDirs} temp dirs, heap ` +
        `${last.heapMb} MB`,
    )
    // Every parked session resumes once more and is checked against its model before the end.
    w.reopen()
    await eventually(
      () =>
        w.sessions.every((s) => !s.parkedAcked) ||
        w.elapsed() > (options.atLeast?.maxMinutes ?? options.minutes) * 60_000 + 120_000,
      120_000,
      100,
    )
    w.stopping = true
    w.reopen()
    await Promise.all(loops)
    await monitor.stop()
    clearInterval(wire)
    checkWire(w)
    const elapsedMs = w.elapsed()

    // A clean shutdown leaves no Chromium process and no temp dir, and no half-written record.
    const host = w.host!
    const exit = await host.stop()
    if (exit.code !== 0) w.violation('shutdown', '-', `the host exited ${exit.code ?? exit.signal} on SIGTERM`)
    await eventually(() => w.probe.chromium().total === 0, 15_000)
    if (w.probe.chromium().total > 0)
      w.violation('leak-processes', '-', `${w.probe.chromium().total} Chromium processes after the host stopped`)
    const left = readdirSync(w.tmpDir).filter((n) => !n.startsWith('tsx-'))
    if (left.length > 0)
      w.violation('leak-temp-dirs', '-', `left in TMPDIR after shutdown: ${left.slice(0, 5).join(', ')}`)
    if (leftoverTemps(w) > 0)
      w.violation('torn-record', '-', `${leftoverTemps(w)} temp records left in the store after shutdown`)

    const heal = options.healRounds > 0 ? await healRounds({ dir, sites, rounds: options.healRounds }) : undefined
    if (heal)
      say(
        `heal: p50 ${Math.round(heal.p50)} ms, p95 ${Math.round(heal.p95)} ms over ${heal.times.length} heals, ` +
          `${heal.asItWas} as they were, ${heal.failed} failed`,
      )
    const starts = w.hostStarts
    return {
      options,
      journal: journal.path,
      elapsedMs,
      stats: w.stats,
      violations: w.violations,
      trends: [trend(w.latencies, '/v1/navigate', elapsedMs), trend(w.latencies, '/v1/text', elapsedMs)],
      samples: monitor.samples,
      quiets,
      latencies: w.latencies,
      hostStartMs: {
        p50: Math.round(percentile(starts, 50)),
        max: Math.round(Math.max(...starts)),
        count: starts.length,
      },
      heal,
      diskFull: cannotMount === undefined,
      chaosLog,
    }
  } finally {
    await world?.host?.kill()
    if (world) rmSync(world.tmpDir, { recursive: true, force: true })
    journal.close()
    await sites.close()
    if (cannotMount === undefined) {
      try {
        execFileSync('umount', ['-l', join(dir, 'data', 'store')], { stdio: 'pipe' })
      } catch {
        // already unmounted
      }
    }
  }
}
