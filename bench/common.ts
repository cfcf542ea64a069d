/**
 * What every bench section shares: a timer, interleaved rounds, a plain Chromium for the raw
 * sides (Playwright over CDP and raw CDP share it), and the engine under test.
 *
 * @example
 * const times = await interleave({ a: () => work(), b: () => other() }, 7)
 * median(times.a!) / median(times.b!)
 */
import { Chromium, engineLayer } from '@errands/engine'
import { Lending } from '@errands/lending'
import { Runtime } from '@errands/runtime'
import { SealedStore } from '@errands/store'
import { CHROMIUM_ARGS, resolveExecutable } from '@errands/runtime-chromium'
import { defaultSettings, Supervisor, type SupervisorSettings, type SupervisorShape } from '@errands/supervisor'
import CDP from 'chrome-remote-interface'
import { Effect, ManagedRuntime } from 'effect'
import { spawn } from 'node:child_process'
import type { EventEmitter } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import type { Site } from '../test/fixtures/sites.ts'

/** The engine under test and the fixture sites, as every section gets them. */
export interface Bench {
  readonly supervisor: SupervisorShape
  readonly engine: Chromium['Type']
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly sites: ReadonlyArray<Site>
  readonly rounds: number
}

/** The runtime's log lines with their `performance.now()` (the heal bench reads the relaunch from it). */
export const engineLog: Array<{ readonly at: number; readonly line: string }> = []

/**
 * Starts the engine under test (local Chromium, sealed store, supervisor with lending) on a temp
 * data dir: up to 6 open errands, snapshots 3 s after a load. `warmSpare: false` switches off the
 * context the runtime keeps ready; `egress: false` the egress (to measure its cost only).
 *
 * @example
 * const { bench, dispose } = await startBench(sites, 7)
 */
export const startBench = async (
  sites: ReadonlyArray<Site>,
  rounds: number,
  warmSpare = true,
  extraArgs: ReadonlyArray<string> = [],
  egress = true,
  /** Supervisor settings of the section's own (the frozen section's idle limits of milliseconds). */
  supervisor: Partial<SupervisorSettings> = {},
) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'errands-bench-'))
  const managed = ManagedRuntime.make(
    engineLayer({
      settings: defaultSettings({ dataDir, maxErrands: 6, snapshotDebounceMs: 3_000, ...supervisor }),
      chromium: {
        warmSpare,
        extraArgs,
        // `false` only to measure what the egress costs (issue #21): never a setting for real use.
        egress,
        log: (line) => {
          engineLog.push({ at: performance.now(), line })
          if (engineLog.length > 500) engineLog.splice(0, 100)
        },
      },
    }),
  )
  const services = await managed.runPromise(
    Effect.all({ supervisor: Supervisor, engine: Chromium, runtime: Runtime, store: SealedStore, lending: Lending }),
  )
  const bench: Bench = {
    supervisor: services.supervisor,
    engine: services.engine,
    run: (e) => managed.runPromise(e),
    sites,
    rounds,
  }
  return {
    bench,
    services,
    dataDir,
    dispose: async () => {
      await managed.dispose()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Milliseconds one call took. @example await timed(() => page.goto(url)) */
export const timed = async (f: () => Promise<unknown>): Promise<number> => {
  const start = performance.now()
  await f()
  return performance.now() - start
}

/** A short breather between measured calls, so one side's background work settles. @example await pause() */
export const pause = (ms = 300): Promise<void> => new Promise((r) => setTimeout(r, ms))

/**
 * Runs every side once to warm up (or the given warm-up calls), then `rounds` rounds of every side in turn
 * (interleaved, so
 * noise lands on all sides alike). Returns each side's times.
 *
 * @example
 * const times = await interleave({ raw: rawOpen, ours: errandOpen }, 7)
 */
export const interleave = async (
  sides: Record<string, () => Promise<unknown>>,
  rounds: number,
  gap = 300,
  warmUp: Record<string, () => Promise<unknown>> = sides,
): Promise<Record<string, number[]>> => {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((k) => [k, []]))
  for (const f of Object.values(warmUp)) {
    await f()
    await pause(gap)
  }
  for (let i = 0; i < rounds; i++) {
    for (const [name, f] of Object.entries(sides)) {
      times[name]!.push(await timed(f))
      await pause(gap)
    }
  }
  return times
}

/** A plain Chromium with a DevTools port, reached by Playwright (`connectOverCDP`) and raw CDP. */
export interface RawChromium {
  readonly browser: Browser
  readonly cdp: CDP.Client
  readonly browserWs: string
  readonly pid: number
  readonly close: () => Promise<void>
}

/**
 * Starts a plain Chromium (the same binary and flags as the engine's) with a DevTools port.
 *
 * @example
 * const raw = await launchRaw()
 * await raw.browser.newContext()
 * await raw.close()
 */
export const launchRaw = async (): Promise<RawChromium> => {
  const dir = mkdtempSync(join(tmpdir(), 'errands-bench-raw-'))
  const child = spawn(
    resolveExecutable(),
    [...CHROMIUM_ARGS, '--remote-debugging-port=0', `--user-data-dir=${dir}`, 'about:blank'],
    {
      stdio: 'ignore',
      env: { ...process.env, TMPDIR: dir },
    },
  )
  const exited = new Promise((r) => child.once('exit', r))
  const portFile = join(dir, 'DevToolsActivePort')
  // The file appears before its two lines are written: wait for a port and a path.
  const portAndPath = () => (existsSync(portFile) ? readFileSync(portFile, 'utf8').split('\n') : [])
  for (let i = 0; i < 400 && !(Number(portAndPath()[0]) > 0 && portAndPath()[1]); i++) await pause(25)
  const [portLine, wsPath] = portAndPath()
  const port = Number(portLine)
  if (!(port > 0) || !wsPath) {
    child.kill('SIGKILL')
    throw new Error(`Chromium did not write its DevTools port in ${dir}`)
  }
  const browserWs = `ws://127.0.0.1:${port}${wsPath}`
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`)
  const cdp = await CDP({ target: browserWs })
  return {
    browser,
    cdp,
    browserWs,
    pid: child.pid!,
    close: async () => {
      await cdp.close().catch(() => undefined)
      await browser.close().catch(() => undefined)
      child.kill('SIGKILL')
      await exited
      // Chromium's helpers may still write for a moment; a leftover temp dir is harmless.
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
      } catch {
        // left in the temp dir
      }
    },
  }
}

/** One raw-CDP context with one page attached (flat session). */
export interface CdpErrand {
  readonly browserContextId: string
  readonly sessionId: string
  /** Navigates the page and resolves on its `load` event. */
  readonly load: (url: string) => Promise<void>
  readonly close: () => Promise<void>
}

/**
 * The fastest way we know to make an isolated errand: `Target.createBrowserContext` +
 * `createTarget` + flat `attachToTarget`, on one browser-level CDP connection.
 *
 * @example
 * const e = await cdpErrand(raw.cdp)
 * await e.load(url)
 * await e.close()
 */
export const cdpErrand = async (client: CDP.Client): Promise<CdpErrand> => {
  const { browserContextId } = await client.send('Target.createBrowserContext', { disposeOnDetach: true })
  const { targetId } = await client.send('Target.createTarget', { url: 'about:blank', browserContextId })
  const { sessionId } = await client.send('Target.attachToTarget', { targetId, flatten: true })
  await client.send('Page.enable', undefined, sessionId)
  return {
    browserContextId,
    sessionId,
    load: async (url) => {
      // Events of a flat session arrive as `<method>.<sessionId>` too (chrome-remote-interface).
      const loaded = new Promise<void>((resolve) =>
        (client as unknown as EventEmitter).once(`Page.loadEventFired.${sessionId}`, () => resolve()),
      )
      await client.send('Page.navigate', { url }, sessionId)
      await loaded
    },
    close: async () => {
      await client.send('Target.disposeBrowserContext', { browserContextId })
    },
  }
}

/** `uptime`'s load averages, for the table's header. @example loadNow() // "0.52 0.61 0.70" */
export const loadNow = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
