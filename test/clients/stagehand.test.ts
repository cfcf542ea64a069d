/**
 * Compatibility matrix (#22): Stagehand 3 in LOCAL mode with `localBrowserLaunchOptions.cdpUrl`
 * runs the agent task (stagehand-child.ts, in its own Node process: see there why) through an
 * errand's DevTools URL and against plain Chromium; the errand must behave the same.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, it } from 'vitest'
import { both, compare, installed, useMatrix, type Outcome } from './matrix.ts'

const env = useMatrix()
const { version } = installed('@browserbasehq/stagehand')
const run = promisify(execFile)
const repo = join(import.meta.dirname, '../..')

const task = async (cdpUrl: string): Promise<Outcome> => {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'stagehand-child.ts'), cdpUrl, env().site.url('')], {
    cwd: repo,
    timeout: 120_000,
  })
  const line = stdout.trim().split('\n').at(-1) ?? ''
  return JSON.parse(line) as Outcome
}

describe(`Stagehand ${version} (LOCAL, cdpUrl)`, () => {
  it('does the task through an errand as against Chromium', async () => {
    const { plain, errand } = await both(env, 'matrix-stagehand', task)
    compare(plain, errand)
  })
})
