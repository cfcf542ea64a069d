import { words } from '@errands/supervisor'
import { Effect, Either } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from '../fixtures/processes.ts'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { seen, startEngine, type Engine } from '../errands/harness.ts'

/*
 * Issue #9, fault 2 (H2, H3): the errands' Chromium is SIGKILLed again and again. Healing is
 * bounded and backs off: the first heal of a streak is at once, each further one waits longer
 * (healBackoffMs, doubled), and the crash after maxHeals heals sets the errand aside from its
 * last snapshot instead — it is not reopened by itself, not even when watched; health says so.
 */
// Long enough that the test's own reaction to a crash (noticing it, asking for the view, then
// `use`) lands inside the cooling even on a loaded CI machine: with 400 ms, a stall of the test's
// event loop could let the backoff run out first, and the "too soon" refusal became a heal. The
// streak window (healWindowMs) is far longer than the whole test, however slow it runs.
const BACKOFF = 2_000

/** Polls an async check every 20 ms for at most `ms`. */
const until = async (check: () => Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await check()) return true
    await new Promise((r) => setTimeout(r, 20))
  }
  return check()
}
let site: Site
let engine: Engine

beforeAll(async () => {
  ;[site] = (await serveSites(1)) as [Site]
  engine = await startEngine(
    { maxErrands: 2, snapshotDebounceMs: 300 },
    { supervisor: { maxHeals: 3, healBackoffMs: BACKOFF, healWindowMs: 600_000 } },
  )
})
afterAll(async () => {
  await engine?.stop()
  await closeSites([site])
})

describe("the errands' browser crashing repeatedly (issue #9)", () => {
  it(
    'heals three times with a growing pause, then sets the errand aside with nothing lost, and stays set aside ' +
      'until resumed',
    async () => {
      const { supervisor, chromium } = engine
      const id = 'crashy'
      const detail = async () => (await engine.run(supervisor.view(id))).detail
      const { contextId } = await engine.run(supervisor.open({ id, kind: 'task' }))
      const page = await engine.newPage(contextId, site.url('/add?item=keep'))
      await page.evaluate(() => localStorage.setItem('basket', 'kept'))
      await engine.newPage(contextId, site.url('/title?t=second'))
      const tabs = (await engine.run(chromium.tabs(contextId))).map((t) => t.url)
      const snapshotHolds = () =>
        eventually(() => {
          const s = supervisor.lastSnapshot(id)
          return (
            s !== undefined &&
            JSON.stringify(s.tabs.map((t) => t.url)) === JSON.stringify(tabs) &&
            s.storage.origins.length > 0
          )
        }, 15_000)
      expect(await snapshotHolds()).toBe(true)

      // When the errand entered and left cooling, as the supervisor reports its state changes.
      const changes: Array<{ detail: string; at: number }> = []
      const stopWatching = supervisor.onChange(
        (v) => v.conversationId === id && changes.push({ detail: v.detail, at: performance.now() }),
      )
      const pids = new Set<number>()
      const crash = async () => {
        const pid = chromium.errandsBrowserPid()!
        pids.add(pid)
        process.kill(pid, 'SIGKILL')
        expect(await eventually(() => supervisor.contextOf(id) === undefined, 10_000)).toBe(true)
        return performance.now()
      }
      const cooled: number[] = []
      for (let k = 1; k <= 3; k++) {
        await crash()
        if (k === 1) expect(await detail()).toBe('healing.waiting')
        else {
          expect(await detail()).toBe('healing.cooling')
          // Too soon: a typed refusal that says when to come back, not a hang and not a heal.
          const early = await engine.run(Effect.either(supervisor.use(id, () => Effect.void)))
          expect(Either.isLeft(early) && early.left._tag === 'ErrandUnavailable' && early.left.reason).toBe(
            'heal-failed',
          )
          expect(await engine.run(supervisor.view(id)).then((v) => v.detail)).toMatch(/^healing\.(cooling|waiting)$/)
          expect(await until(async () => (await detail()) === 'healing.waiting')).toBe(true)
          const from = changes.findLast((c) => c.detail === 'healing.cooling')!
          const to = changes.find((c) => c.detail === 'healing.waiting' && c.at >= from.at)!
          cooled.push(to.at - from.at)
        }
        const healed = await engine.run(supervisor.use(id, (b) => chromium.tabs(b.contextId)))
        expect(healed.map((t) => t.url)).toEqual(tabs)
        expect(await snapshotHolds()).toBe(true)
      }
      // The pauses grow: at least the backoff, then at least twice it (lower bounds only).
      expect(cooled[0]).toBeGreaterThanOrEqual(BACKOFF - 30)
      expect(cooled[1]).toBeGreaterThanOrEqual(2 * BACKOFF - 30)

      await crash()
      expect(await until(async () => (await engine.run(supervisor.view(id))).state === 'parked')).toBe(true)
      const texts = (await engine.run(supervisor.health)).map((m) => m.text)
      expect(texts).toContain(words.crashedAgain)
      expect(texts).toContain(words.healGaveUp)

      // Watching does not reopen it: it stopped retrying.
      await engine.run(supervisor.watch(id))
      await new Promise((r) => setTimeout(r, 4 * BACKOFF))
      expect((await engine.run(supervisor.view(id))).state).toBe('parked')
      await engine.run(supervisor.unwatch(id))

      // Resumed by hand, it is as it was at its last snapshot.
      await engine.run(supervisor.resume(id))
      const back = supervisor.contextOf(id)!
      const backTabs = await engine.run(chromium.tabs(back))
      expect(backTabs.map((t) => t.url)).toEqual(tabs)
      const state = await seen(chromium.pageOf(back, backTabs[0]!.id)!, site.url('/echo'))
      expect(state.cookie).toContain('basket=keep')
      expect(state.localBasket).toBe('kept')
      expect(pids.size).toBe(4) // four different browsers were killed
      stopWatching()
    },
  )
})
