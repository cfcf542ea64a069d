/**
 * Compatibility matrix: Stagehand 4 (`stagehand4`, the npm alias of @browserbasehq/stagehand 4.4.0)
 * with `localBrowser.connect({ cdpUrl })`, in its own Node process (stagehand4-child.ts). It does
 * not reach the agent task on either side, each for its own reason
 * (docs/adr/0052-stagehand-4-extension-not-confined.md): the matrix asserts where each stops, so
 * it turns red when that changes.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { installed } from './matrix.ts'

const run = promisify(execFile)
const repo = join(import.meta.dirname, '../..')

/** The installed Stagehand 4's version (the alias's package.json). @example version // '4.4.0' */
export const { version } = installed('stagehand4')

/**
 * What `localBrowser.connect` came to against `cdpUrl`: `{ connect: 'ok' }` or its error's first line.
 *
 * @example
 * await connectStagehand4(url) // { connect: "… Extensions.getExtensions …" }
 */
export const connectStagehand4 = async (cdpUrl: string): Promise<{ readonly connect: string }> => {
  // Stagehand 4 uses Node 22's global WebSocket; Node 20 has it behind this switch.
  const { stdout } = await run(
    process.execPath,
    ['--experimental-websocket', '--import', 'tsx', join(import.meta.dirname, 'stagehand4-child.ts'), cdpUrl],
    { cwd: repo, timeout: 120_000 },
  )
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { connect: string }
}
