/**
 * Options of the Chromium runtime, the Chromium binary it runs and the flags it passes.
 *
 * @example
 * const options: ChromiumRuntimeOptions = { dataDir: '/var/lib/errands', log: console.log }
 */
import { existsSync } from 'node:fs'
import type { GuardPolicy } from '@errands/guard'

/**
 * What `ChromiumRuntime.make` / `layer` need.
 *
 * - `dataDir`: the person's profile lives in `<dataDir>/profile` (the main context).
 * - `executablePath`: the Chromium binary; default {@link resolveExecutable}.
 * - `policy`: the containment policy (G1, G2); default `defaultPolicy([])` — pass the engine's own ports!
 * - `mode`: `'own'` (default) or `'your-chrome'` (R3/L6: errands still run in our own browser,
 *   signed in nowhere; nothing is ever copied out of the person's Chrome).
 * - `log`: receives one line per notable event (guard blocks, crashes, launches); never secrets.
 * - `deadlineMs`: every browser call's deadline (default 30 s).
 * - `warmSpare`: keep one unused context with a blank page ready in the errands' browser, so the
 *   next `openContext` skips a renderer start (default true; costs one idle renderer, ~20 MB).
 *
 * @example
 * ChromiumRuntime.layer({ dataDir, policy: defaultPolicy([{ host: '127.0.0.1', port: 7070 }]) })
 */
export interface ChromiumRuntimeOptions {
  readonly dataDir: string
  readonly executablePath?: string | undefined
  readonly policy?: GuardPolicy | undefined
  readonly mode?: 'own' | 'your-chrome' | undefined
  readonly headless?: true | undefined
  readonly log?: ((line: string) => void) | undefined
  readonly deadlineMs?: number | undefined
  readonly warmSpare?: boolean | undefined
  /** Extra Chromium switches, after the required ones (e.g. `--host-resolver-rules=MAP *.example 127.0.0.1`). */
  readonly extraArgs?: ReadonlyArray<string> | undefined
  /**
   * The port the errands' browser listens for CDP on, for the DevTools endpoint (A1); default: a
   * free one. Whatever it is, the policy blocks it for every context (G2) — a host that decides its
   * policy itself reserves it first (`reservePort`) and puts it in.
   */
  readonly devtoolsPort?: number | undefined
}

/** The default deadline of one browser call. @example ChromiumRuntime.make({ dataDir, deadlineMs: DEFAULT_DEADLINE_MS * 2 }) */
export const DEFAULT_DEADLINE_MS = 30_000

/**
 * Flags for every Chromium we start, and why:
 * - `--headless`: no display here; `--no-sandbox`: we run as root in a container;
 * - `--disable-gpu`: no GPU; `--disable-quic`: keeps every request on TCP, where the guard and
 *   the fixture servers see it;
 * - `--no-first-run`, `--disable-background-networking`, `--disable-component-update`,
 *   `--disable-sync`: no traffic of Chromium's own (nothing leaves the machine unasked);
 * - `--disable-features=WebUIOmniboxPopup,…,PreloadTopChromeWebUI`: headless Chromium 156
 *   preloads the address-bar popup in an extra renderer per context; this saves that process
 *   (~20 MB PSS per context).
 *
 * @example
 * chromium.launchServer({ executablePath, args: [...CHROMIUM_ARGS] })
 */
export const CHROMIUM_ARGS: ReadonlyArray<string> = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,PreloadTopChromeWebUI',
]

/**
 * The Chromium binary: `explicit`, else `$CHROMIUM_PATH`, else Debian's real binary
 * `/usr/lib/chromium/chromium` (the `/usr/bin/chromium` wrapper adds flags of its own), else
 * `/usr/bin/chromium`.
 *
 * @example
 * resolveExecutable() // "/usr/lib/chromium/chromium"
 */
export const resolveExecutable = (explicit?: string): string => {
  if (explicit) return explicit
  const fromEnv = process.env['CHROMIUM_PATH']
  if (fromEnv) return fromEnv
  for (const candidate of ['/usr/lib/chromium/chromium', '/usr/bin/chromium']) {
    if (existsSync(candidate)) return candidate
  }
  return '/usr/bin/chromium'
}
