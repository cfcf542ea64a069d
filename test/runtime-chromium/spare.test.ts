/**
 * The warm spare (packages/runtime-chromium/src/browsers.ts) against real Chromium: a spare that
 * could not be made leaves nothing behind. The clean-clone soak saw 5 browser contexts under a cap
 * of 3 + the spare, one of them page-less for the rest of the run: a spare whose first page failed
 * (its renderer killed while it started) was forgotten but never closed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaultPolicy } from '@errands/guard'
import { resolveExecutable } from '@errands/runtime-chromium'
import { afterAll, describe, expect, it } from 'vitest'
import { ErrandsBrowser } from '../../packages/runtime-chromium/src/browsers.ts'
import { until } from './harness.ts'

const owner = mkdtempSync(join(tmpdir(), 'errands-spare-'))
afterAll(() => rmSync(owner, { recursive: true, force: true }))

describe('the warm spare', () => {
  it('whose first page fails is closed, not left page-less beside the cap; the next spare is made', async () => {
    let failNext = true
    const logs: string[] = []
    const errands = new ErrandsBrowser(
      {
        executablePath: resolveExecutable(),
        policy: defaultPolicy([]),
        log: (line) => logs.push(line),
        deadlineMs: 10_000,
        warmSpare: true,
        owner,
        extraArgs: [],
        // A real context whose first page fails, as it does when the renderer is killed while it starts.
        newContext: async (browser) => {
          const context = await browser.newContext()
          if (failNext) {
            failNext = false
            context.newPage = () => Promise.reject(new Error('Target page, context or browser has been closed'))
          }
          return context
        },
      },
      () => undefined,
    )
    try {
      const { browser } = await errands.ensure()
      errands.prepareSpare()
      // The failed spare goes: no context of ours is left in the browser.
      expect(await until(() => !failNext && !errands.spareReady() && browser.contexts().length === 0, 10_000)).toBe(true)
      errands.prepareSpare()
      expect(await until(() => errands.spareReady(), 10_000)).toBe(true)
      expect(browser.contexts()).toHaveLength(1)
      expect(errands.sparePage()?.isClosed()).toBe(false)
    } finally {
      await errands.close()
    }
  })
})
