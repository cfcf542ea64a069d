/**
 * What both Chromiums of a runtime are started with, and the launch options they share: no signal
 * handlers of Playwright's, its artifacts inside our own TMPDIR, a launch deadline of its own.
 */
import { mkdirSync, rmSync } from 'node:fs'
import { join, resolve as resolvePath } from 'node:path'
import { defaultPolicy, type GuardPolicy } from '@errands/guard'
import { RuntimeError } from '@errands/runtime'
import { Effect } from 'effect'
import type { Browser, BrowserContext } from 'playwright-core'
import type { Log } from './containment.ts'
import { DEFAULT_DEADLINE_MS, resolveExecutable, type ChromiumRuntimeOptions } from './options.ts'
import { tmpDirProblem } from './tmpDirs.ts'

/**
 * How long a browser may take to start: the page deadline, but never under 30 s — a launch on a
 * loaded machine is not a page call, and a short page deadline (a test's, a strict embedder's)
 * must not make the engine unable to start.
 *
 * @example
 * launchTimeoutMs({ deadlineMs: 2_000 }) // 30000
 */
export const launchTimeoutMs = (settings: Pick<LaunchSettings, 'deadlineMs'>): number =>
  Math.max(settings.deadlineMs, 30_000)

/**
 * What both browsers are started with.
 *
 * @example
 * const settings: LaunchSettings = { executablePath, policy, log: console.log, deadlineMs: 30_000, warmSpare: true }
 */
export interface LaunchSettings {
  readonly executablePath: string
  readonly policy: GuardPolicy
  readonly log: Log
  readonly deadlineMs: number
  /** Keep one fresh context with a blank page ready in the errands' browser (see `ErrandsBrowser`). */
  readonly warmSpare: boolean
  /**
   * Marks every Chromium we start (`ERRANDS_OWNER=<owner>` in its environment, inherited by its
   * children), so the next engine on the same data dir can find what a killed one left behind.
   */
  readonly owner: string
  /** Extra Chromium switches (e.g. `--host-resolver-rules=…` for tests with real host names). */
  readonly extraArgs: ReadonlyArray<string>
  /** The main context's proxy: its lane of the egress (G3); unset: none. */
  readonly mainProxy?: { readonly server: string; readonly bypass: string } | undefined
  /**
   * Makes each errand context (and the warm spare) with its own egress lane as its proxy (G3); unset: a plain
   * `newContext()`.
   */
  readonly newContext?: ((browser: Browser) => Promise<BrowserContext>) | undefined
  /**
   * Wires an interception of the errands' browser before the guard's, so it sees each request
   * after the guard did, last before the wire (the stand-in swap, standInSwap.ts).
   */
  readonly interceptFirst?: ((browser: Browser) => Promise<void>) | undefined
  /** Told of each errands' browser once it is launched and guarded, with Playwright's artifacts folder of it. */
  readonly launched?: ((browser: Browser, artifactsDir: string) => Promise<void>) | undefined
}

/**
 * The runtime's options as launch settings, or why Chromium cannot start with them (a headful
 * browser, an upstream proxy without the egress, a TMPDIR Chromium cannot use). The egress's
 * proxies are added once it runs.
 *
 * @example
 * const settings = yield* launchSettingsOf({ dataDir: '/var/lib/errands' })
 */
export const launchSettingsOf = (options: ChromiumRuntimeOptions): Effect.Effect<LaunchSettings, RuntimeError> =>
  Effect.gen(function* () {
    if (options.headless !== undefined && options.headless !== true) {
      return yield* new RuntimeError({ reason: 'invalid', message: 'only headless Chromium is supported here' })
    }
    if (options.egress === false && options.upstreamProxy !== undefined) {
      return yield* new RuntimeError({
        reason: 'invalid',
        message: 'an upstream proxy needs the egress (egress: false was given)',
      })
    }
    const tmpProblem = tmpDirProblem()
    if (tmpProblem !== undefined)
      return yield* new RuntimeError({ reason: 'invalid', message: `cannot start Chromium: ${tmpProblem}` })
    const log = options.log ?? (() => undefined)
    const policy = options.policy ?? defaultPolicy([])
    const settings: LaunchSettings = {
      executablePath: resolveExecutable(options.executablePath),
      policy,
      log,
      deadlineMs: options.deadlineMs ?? DEFAULT_DEADLINE_MS,
      warmSpare: options.warmSpare ?? true,
      owner: resolvePath(options.dataDir),
      extraArgs: options.extraArgs ?? [],
    }
    if (options.mode === 'your-chrome') {
      // R3/L6: nothing is read from the person's own Chrome; errands run in our browser, signed in nowhere.
      log('mode your-chrome: errands run in our own Chromium, signed in nowhere; no cookie is copied from your Chrome')
    }
    return settings
  })

/** Playwright installs no signal handlers: the engine decides how it shuts down. */
export const NO_SIGNAL_HANDLERS = { handleSIGTERM: false, handleSIGINT: false, handleSIGHUP: false } as const

/**
 * Playwright's folder for downloads and traces, inside our own TMPDIR instead of a
 * `playwright-artifacts-*` of its own in the system temp dir: a killed engine could not remove
 * that one, and nothing would ever know it was ours (the soak counted one per host kill).
 * `artifactsDir` is a launch parameter of Playwright's protocol, not of its typed options.
 */
export const artifactsIn = (tmpDir: string): { readonly artifactsDir: string } => {
  const artifactsDir = join(tmpDir, 'artifacts')
  mkdirSync(artifactsDir)
  return { artifactsDir }
}

/** Removes a folder of ours (a TMPDIR), if given. @example removeDir(tmpDir) */
export const removeDir = (dir: string | undefined): void => {
  if (dir) rmSync(dir, { recursive: true, force: true })
}
