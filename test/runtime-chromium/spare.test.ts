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

/**
 * An errands browser whose next context's first page is `firstPage` (as when its renderer is
 * killed while it starts); `used()` says whether that context was made yet.
 */
const spareBrowser = (firstPage: () => Promise<never>, deadlineMs: number) => {
  let pending = true
  const errands = new ErrandsBrowser(
    {
      executablePath: resolveExecutable(),
      policy: defaultPolicy([]),
      log: () => undefined,
      deadlineMs,
      warmSpare: true,
      owner,
      extraArgs: [],
      newContext: async (browser) => {
        const context = await browser.newContext()
        if (pending) {
          pending = false
          context.newPage = firstPage
        }
        return context
      },
    },
    () => undefined,
  )
  return { errands, used: () => !pending }
}

describe('the warm spare', () => {
  it('whose first page fails is closed, not left page-less beside the cap; the next spare is made', async () => {
    const { errands, used } = spareBrowser(
      () => Promise.reject(new Error('Target page, context or browser has been closed')),
      10_000,
    )
    try {
      const { browser } = await errands.ensure()
      errands.prepareSpare()
      // The failed spare goes: no context of ours is left in the browser.
      expect(await until(() => used() && !errands.spareReady() && browser.contexts().length === 0, 10_000)).toBe(true)
      errands.prepareSpare()
      expect(await until(() => errands.spareReady(), 10_000)).toBe(true)
      expect(browser.contexts()).toHaveLength(1)
      expect(errands.sparePage()?.isClosed()).toBe(false)
    } finally {
      await errands.close()
    }
  })

  // The clean-clone soak again, after one renderer kill: a spare "being made" whose first page
  // never answered stood beside the cap with a page that never committed, for the rest of the run.
  it('whose first page never comes is given up at the deadline and closed; the next spare is made', async () => {
    const { errands, used } = spareBrowser(() => new Promise<never>(() => {}), 1_500)
    try {
      const { browser } = await errands.ensure()
      errands.prepareSpare()
      expect(await until(() => used() && browser.contexts().length === 1, 10_000)).toBe(true)
      // Given up at the deadline: closed, and no spare is "being made" any more.
      expect(await until(() => browser.contexts().length === 0, 10_000)).toBe(true)
      expect(errands.spareReady()).toBe(false)
      errands.prepareSpare()
      expect(await until(() => errands.spareReady(), 10_000)).toBe(true)
      expect(browser.contexts()).toHaveLength(1)
    } finally {
      await errands.close()
    }
  })
})
