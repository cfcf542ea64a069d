/**
 * The worker's shared Chromium (shared.ts) hands every file the same browser and a clean slate:
 * the contexts a file opened are closed when it gives the lease back, and the person's main context
 * is as a fresh runtime has it (no cookies, no storage, one blank tab).
 */
import { describe, expect } from 'vitest'
import { serveSite } from '../fixtures/sites.ts'
import { spec } from './harness.ts'
import { test } from './shared.ts'

describe("the worker's shared browser (issue #28)", () => {
  test('one browser for successive files, none of what a file left behind for the next', async ({ chromium }) => {
    const site = await serveSite('127.0.0.1')
    try {
      const first = await chromium.lease()
      const { h } = first
      const errand = await h.run(
        h.runtime.openContext(spec('left-open', { tabs: [{ url: site.url('/signin'), active: true }] })),
      )
      const pid = h.runtime.errandsBrowserPid()
      expect(pid).toBeTypeOf('number')
      const [main] = await h.run(h.runtime.tabs('main'))
      await h.run(h.runtime.navigate('main', main!.id, site.url('/signin')))
      await h.runtime.pageOf('main', main!.id)!.evaluate(() => localStorage.setItem('k', 'v'))
      await h.run(h.runtime.openTab('main', site.url('/title?t=extra')))
      expect(h.logs.length + h.events.length).toBeGreaterThan(0)
      await expect(chromium.lease()).rejects.toThrow(/already leased/)
      await first.release()

      const second = await chromium.lease()
      try {
        const next = second.h
        expect(next.runtime.errandsBrowserPid()).toBe(pid)
        expect(await next.run(next.runtime.isOpen(errand))).toBe(false)
        expect(await next.run(next.runtime.storageState('main'))).toEqual({ cookies: [], origins: [] })
        expect((await next.run(next.runtime.tabs('main'))).map((t) => t.url)).toEqual(['about:blank'])
        expect(next.logs).toEqual([])
        expect(next.events).toEqual([])
        await expect(next.stop()).rejects.toThrow(/stopped by its worker/)
        expect(chromium.leases()).toBeGreaterThanOrEqual(2)
      } finally {
        await second.release()
      }
    } finally {
      await site.close()
    }
  })
})
