/**
 * Reading an errand's storage when it has shown twenty origins (each wrote localStorage, then its
 * tab closed; one tab stays open): Playwright's `storageState()` — what the runtime used before,
 * which visits every origin without an open page on every read — against the runtime's own read,
 * which reads only the origins a document of has existed since the last read
 * (docs/runtime-chromium.md, Storage). Two shapes of the runtime's read: nothing shown since the
 * last read, and one origin shown again (a visit).
 *
 * @example
 * rows.push(...(await benchReads(bench, sites20)))
 */
import type { Site } from '../test/fixtures/sites.ts'
import { pause, timed, type Bench } from './common.ts'
import { median, type Row } from './table.ts'

const SECTION = 'storage read of an errand that has shown 20 origins'

export const benchReads = async (bench: Bench, many: ReadonlyArray<Site>): Promise<Row[]> => {
  const { supervisor, engine, run, rounds } = bench
  const { contextId } = await run(supervisor.open({ id: 'bench-reads', kind: 'task' }))
  for (const site of many) {
    const tab = await run(engine.openTab(contextId, site.url('/title?t=reads')))
    await engine.pageOf(contextId, tab.id)!.evaluate((o) => localStorage.setItem('origin', o), site.origin)
    await run(engine.closeTab(contextId, tab.id))
  }
  const context = engine.browserContextOf(contextId)!
  const [first] = await run(engine.tabs(contextId))
  let again = 0
  const check = (origins: ReadonlyArray<{ readonly origin: string }>) => {
    if (many.some((s) => !origins.some((o) => o.origin === s.origin))) throw new Error('a read missed an origin')
  }
  const playwright = 'Playwright storageState(): every origin, every read'
  const sides: Record<
    string,
    {
      readonly before?: () => Promise<unknown>
      readonly read: () => Promise<ReadonlyArray<{ readonly origin: string }>>
    }
  > = {
    [playwright]: { read: async () => (await context.storageState({ indexedDB: false })).origins },
    'Errands, nothing shown since the last read': {
      read: async () => (await run(engine.storageState(contextId))).origins,
    },
    'Errands, one origin shown again (one visit)': {
      // Not timed: a document of one origin comes and goes, so the read must visit it.
      before: async () => {
        await run(engine.navigate(contextId, first!.id, many[again++ % many.length]!.url('/title?t=again')))
        await run(engine.navigate(contextId, first!.id, 'about:blank'))
      },
      read: async () => (await run(engine.storageState(contextId))).origins,
    },
  }
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((k) => [k, []]))
  for (let round = -1; round < rounds; round++) {
    for (const [name, side] of Object.entries(sides)) {
      await side.before?.()
      const took = await timed(async () => check(await side.read()))
      if (round >= 0) times[name]!.push(took) // round -1 warms up
      await pause()
    }
  }
  const base = median(times[playwright]!)
  await run(supervisor.taskChanged('bench-reads', 'done'))
  return Object.entries(times).map(([name, xs]) => ({
    section: SECTION,
    name,
    median: median(xs),
    ratio: median(xs) / base,
  }))
}
