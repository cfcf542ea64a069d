/**
 * Heal 4 errands after a SIGKILL of their browser, against the raw way back: relaunch Chromium,
 * restore 4 contexts from `storageState` and reopen their tabs. Each errand (and each raw
 * context) holds 2 tabs on 2 sites with a cookie and 10 localStorage items per site. Both sides
 * are timed from the kill until every tab of the 4 has loaded, crash detection included.
 *
 * @example
 * rows.push(...(await benchHeal(bench, 5)))
 */
import { CHROMIUM_ARGS, resolveExecutable } from '@errands/runtime-chromium'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import { engineLog, pause, type Bench } from './common.ts'
import { allTabsLoaded, errandWithTabs, storageFor } from './resume.ts'
import { median, type Row } from './table.ts'

const ERRANDS = 4
const SECTION = `heal ${ERRANDS} errands (2 tabs each, cookies + localStorage) after SIGKILL of their browser`

const until = async (ok: () => boolean, ms: number, what: string): Promise<void> => {
  const end = Date.now() + ms
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await pause(10)
  }
}

/** The 2 sites of errand `i` and what it holds on them. */
const holding = (bench: Bench, i: number, tag: string) => {
  const sites = [bench.sites[i % 3]!, bench.sites[(i + 1) % 3]!]
  const all = storageFor(sites, `${tag}-${i}`)
  return { sites, state: all }
}

/** One heal, timed from the kill: crash detected, browser back, all tabs loaded. */
interface Heal {
  readonly detected: number
  readonly relaunched: number
  readonly total: number
}

const healErrands = async (bench: Bench, round: number): Promise<Heal> => {
  const { supervisor, engine, run } = bench
  const ids = Array.from({ length: ERRANDS }, (_, i) => `bench-heal-${round}-${i}`)
  const urls = new Map<string, string[]>()
  for (const [i, id] of ids.entries()) {
    const { sites, state } = holding(bench, i, `heal${round}`)
    const contextId = await errandWithTabs(bench, id, sites, state)
    urls.set(
      id,
      (await run(engine.tabs(contextId))).map((t) => t.url),
    )
  }
  // H1: the snapshot (debounced after the last load) must hold the tabs and the storage.
  await until(
    () =>
      ids.every((id) => {
        const s = supervisor.lastSnapshot(id)
        return (
          s !== undefined &&
          JSON.stringify(s.tabs.map((t) => t.url)) === JSON.stringify(urls.get(id)) &&
          s.storage.origins.length === 2
        )
      }),
    30_000,
    'the snapshots',
  )
  await pause(500)
  const pid = engine.errandsBrowserPid()!
  const start = performance.now()
  process.kill(pid, 'SIGKILL')
  await until(() => ids.every((id) => supervisor.contextOf(id) === undefined), 10_000, 'crash detection')
  const detected = performance.now() - start
  await Promise.all(
    ids.map(async (id) => {
      const b = await run(supervisor.drive(id))
      try {
        if ((await allTabsLoaded(bench, b.contextId)) !== 2) throw new Error(`healed errand ${id} should hold 2 tabs`)
      } finally {
        await run(supervisor.undrive(id))
      }
    }),
  )
  const total = performance.now() - start
  // The runtime logs the relaunch the moment it is connected and guarded (a poll here lags under load).
  const started = engineLog.find((l) => l.at > start && l.line.startsWith('errands browser started'))
  const relaunched = started ? started.at - start : NaN
  for (const id of ids) await run(supervisor.release(id))
  return { detected, relaunched, total }
}

const healRaw = async (bench: Bench, round: number): Promise<Heal> => {
  const launch = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'errands-bench-heal-'))
    const server = await chromium.launchServer({
      executablePath: resolveExecutable(),
      args: [...CHROMIUM_ARGS],
      env: { ...process.env, TMPDIR: dir },
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    })
    const browser = await chromium.connect(server.wsEndpoint())
    return { server, browser, dir }
  }
  const first = await launch()
  const states: Array<{ state: Awaited<ReturnType<BrowserContext['storageState']>>; urls: string[] }> = []
  for (let i = 0; i < ERRANDS; i++) {
    const { sites, state } = holding(bench, i, `raw${round}`)
    const context = await first.browser.newContext()
    await context.addCookies(state.cookies.map((c) => ({ ...c })))
    for (const site of sites) {
      const page = await context.newPage()
      await page.goto(site.url('/title?t=tab'))
      await page.evaluate(
        (xs) => {
          for (const it of xs) localStorage.setItem(it.name, it.value)
        },
        state.origins.find((o) => o.origin === site.origin)!.localStorage,
      )
    }
    // What a raw setup would keep for a crash: the storage state and the tabs' URLs.
    states.push({ state: await context.storageState({ indexedDB: false }), urls: context.pages().map((p) => p.url()) })
  }
  await pause(500)
  const gone = new Promise<void>((r) => first.browser.once('disconnected', () => r()))
  const start = performance.now()
  process.kill(first.server.process().pid!, 'SIGKILL')
  await gone
  const detected = performance.now() - start
  const second = await launch()
  const relaunched = performance.now() - start
  await Promise.all(
    states.map(async ({ state, urls }) => {
      const context = await second.browser.newContext({ storageState: state })
      await Promise.all(urls.map(async (url) => (await context.newPage()).goto(url)))
    }),
  )
  const total = performance.now() - start
  for (const run of [first, second]) {
    await run.browser.close().catch(() => undefined)
    await run.server.kill()
    rmSync(run.dir, { recursive: true, force: true })
  }
  return { detected, relaunched, total }
}

export const benchHeal = async (bench: Bench, rounds: number): Promise<Row[]> => {
  const ours: Heal[] = []
  const raw: Heal[] = []
  for (let round = -1; round < rounds; round++) {
    const a = await healRaw(bench, round + 1)
    await pause(500)
    const b = await healErrands(bench, round + 1)
    await pause(500)
    if (round < 0) continue // warm-up
    raw.push(a)
    ours.push(b)
  }
  const base = median(raw.map((h) => h.total))
  const of = (hs: Heal[], k: keyof Heal) => median(hs.map((h) => h[k]))
  return [
    {
      section: SECTION,
      name: 'raw: relaunch + 4 × newContext({ storageState }) + reopen tabs',
      median: base,
      ratio: 1,
    },
    { section: SECTION, name: '  of which: kill → disconnected', median: of(raw, 'detected'), ratio: NaN },
    {
      section: SECTION,
      name: '  of which: kill → relaunched and connected',
      median: of(raw, 'relaunched'),
      ratio: NaN,
    },
    {
      section: SECTION,
      name: 'Errands: crash detected, 4 errands healed from snapshots, tabs loaded',
      median: of(ours, 'total'),
      ratio: of(ours, 'total') / base,
    },
    {
      section: SECTION,
      name: '  of which: kill → all 4 errands know they crashed',
      median: of(ours, 'detected'),
      ratio: NaN,
    },
    {
      section: SECTION,
      name: "  of which: kill → errands' browser relaunched (its log)",
      median: of(ours, 'relaunched'),
      ratio: NaN,
    },
  ]
}
