/**
 * Starting and stopping the two Chromiums of a runtime (R1):
 *
 * - the **main browser**: the person's persistent profile in `<dataDir>/profile`
 *   (`launchPersistentContext`), started with the runtime;
 * - the **errands' browser**: non-persistent, started on the first errand, one context per
 *   errand; relaunched on next use after it died. It runs as `chromium.launch()` over Playwright's
 *   pipe: no TCP port of it listens, not even a launch server's (A1, A4; ADR 0016). Its pid is
 *   found in `/proc` by the TMPDIR only it has; the DevTools proxy rides the same connection
 *   (cdpChannel.ts).
 *
 * Each Chromium gets its own `TMPDIR` (a fresh `/tmp/errands-chromium-*` folder), so the
 * `org.chromium.Chromium.*` folders it makes — left behind when it is killed — are exactly ours
 * to remove, and never another Chromium's.
 *
 * This file starts and stops the main browser; the errands' browser and its warm spare are
 * `errandsBrowser.ts`, what both are started with `launchSettings.ts`, and finding and reaping
 * their processes `processes.ts`.
 *
 * @example
 * const errands = new ErrandsBrowser({ executablePath, policy, log, onCrash: (g) => forget(g) })
 * const { browser, generation } = await errands.ensure()
 */
import { chromium, type BrowserContext } from 'playwright-core'
import { guardBrowserRequests } from './containment.ts'
import { within } from './failures.ts'
import { artifactsIn, launchTimeoutMs, NO_SIGNAL_HANDLERS, removeDir, type LaunchSettings } from './launchSettings.ts'
import { chromiumArgs } from './options.ts'
import { browserEnv } from './browserEnv.ts'
import { killAll, pidsWithCmdline } from './processes.ts'
import { freshTmpDir } from './tmpDirs.ts'

// The errands' browser, the launch settings and the process helpers live in files of their own.
export { ErrandsBrowser, SPARE_DELAY_MS } from './errandsBrowser.ts'
export { launchTimeoutMs, type LaunchSettings } from './launchSettings.ts'
export { pidsWithCmdline, pidsWithEnv, reapOrphans } from './processes.ts'

/**
 * Launches the main browser on the person's profile and guards it.
 *
 * @example
 * const main = await launchMain(settings, '/var/lib/errands/profile')
 */
export const launchMain = async (
  settings: LaunchSettings,
  profileDir: string,
): Promise<{ readonly context: BrowserContext; readonly tmpDir: string }> => {
  const tmpDir = freshTmpDir(settings.owner)
  try {
    const context = await chromium.launchPersistentContext(profileDir, {
      executablePath: settings.executablePath,
      args: chromiumArgs(settings.extraArgs),
      headless: true,
      timeout: launchTimeoutMs(settings),
      env: browserEnv(process.env, tmpDir, settings.owner),
      ...(settings.mainProxy ? { proxy: settings.mainProxy } : {}),
      ...NO_SIGNAL_HANDLERS,
      ...artifactsIn(tmpDir),
    })
    const browser = context.browser()
    if (browser) await guardBrowserRequests(browser, settings.policy, settings.log, 'main')
    return { context, tmpDir }
  } catch (error) {
    removeDir(tmpDir)
    throw error
  }
}

/**
 * Closes the main browser (if given), then kills whatever still runs on that profile (if given)
 * and removes its TMPDIR.
 *
 * @example
 * await closeMain(context, tmpDir, profileDir)
 */
export const closeMain = async (
  context: BrowserContext | undefined,
  tmpDir: string | undefined,
  profileDir: string | undefined,
): Promise<void> => {
  if (context) await within(10_000, context.close())
  if (profileDir) killAll(pidsWithCmdline(`--user-data-dir=${profileDir}`))
  removeDir(tmpDir)
}
