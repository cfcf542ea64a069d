/**
 * What both Chromiums of a runtime are started with, and the launch options they share: no signal
 * handlers of Playwright's, its artifacts inside our own TMPDIR, a launch deadline of its own.
 */
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { GuardPolicy } from '@errands/guard'
import type { Browser, BrowserContext } from 'playwright-core'
import type { Log } from './containment.ts'

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
}

/** Playwright installs no signal handlers: the engine decides how it shuts down. */
export const NO_SIGNAL_HANDLERS = { handleSIGTERM: false, handleSIGINT: false, handleSIGHUP: false } as const

/**
 * Playwright's folder for downloads and traces, inside our own TMPDIR instead of a
 * `playwright-artifacts-*` of its own in the system temp dir: a killed engine could not remove
 * that one, and nothing would ever know it was ours (the soak counted one per host kill).
 * `artifactsDir` is a launch parameter of Playwright's protocol, not of its typed options.
 */
export const artifactsIn = (tmpDir: string): object => {
  const artifactsDir = join(tmpDir, 'artifacts')
  mkdirSync(artifactsDir)
  return { artifactsDir }
}

/** Removes a folder of ours (a TMPDIR), if given. @example removeDir(tmpDir) */
export const removeDir = (dir: string | undefined): void => {
  if (dir) rmSync(dir, { recursive: true, force: true })
}
