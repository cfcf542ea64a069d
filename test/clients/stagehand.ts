/**
 * Compatibility matrix (#22): Stagehand 3 in LOCAL mode with `localBrowserLaunchOptions.cdpUrl`
 * runs the agent task (stagehand-child.ts, in its own Node process: see there why) through an
 * errand's DevTools URL and against plain Chromium; the errand must behave the same.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { installed, type MatrixClient, type Outcome, type Side, type TaskSite } from './matrix.ts'

const { version } = installed('@browserbasehq/stagehand')
const run = promisify(execFile)
const repo = join(import.meta.dirname, '../..')

const task = async (cdpUrl: string, _side: Side, site: TaskSite): Promise<Outcome> => {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'stagehand-child.ts'), cdpUrl, site.url('')],
    {
      cwd: repo,
      timeout: 120_000,
    },
  )
  const line = stdout.trim().split('\n').at(-1) ?? ''
  return JSON.parse(line) as Outcome
}

/** The client, for matrix.test.ts. */
export const client: MatrixClient = { name: `Stagehand ${version} (LOCAL, cdpUrl)`, key: 'matrix-stagehand', task }
