/**
 * Resume from frozen against resume from sealed (E8, docs/parking.md): an errand with 3 tabs on 3
 * sites idles into `frozen` (its engine's idle limit is milliseconds), and its next verb — `use`,
 * then the tabs with their titles, which a frozen page could not give — is timed; then the same
 * errand is parked (sealed and closed) and its resume, every tab loaded, is timed. Target: frozen
 * ≤ 20 ms p50.
 *
 * @example
 * rows.push(...(await benchFrozen(sites, 21)))
 */
import { Effect } from 'effect'
import type { Site } from '../test/fixtures/sites.ts'
import { pause, startBench, timed } from './common.ts'
import { allTabsLoaded, errandWithTabs, storageFor } from './resume.ts'
import { median, type Row } from './table.ts'

const ID = 'bench-frozen'

/** The value below which `p` of the sorted times fall (nearest rank). */
const percentile = (xs: ReadonlyArray<number>, p: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] ?? NaN
}

export const benchFrozen = async (sites: ReadonlyArray<Site>, rounds: number): Promise<Row[]> => {
  const { bench, dispose } = await startBench(sites, rounds, true, [], true, {
    idleMs: 300,
    parkIdleMs: 3_600_000,
    sweepEveryMs: 50,
    snapshotDebounceMs: 100,
  })
  const { supervisor, engine, run } = bench
  const state = async () => (await run(supervisor.view(ID))).state
  const untilFrozen = async () => {
    const end = Date.now() + 30_000
    while ((await state()) !== 'frozen') {
      if (Date.now() > end) throw new Error(`${ID} did not freeze within 30 s`)
      await pause(20)
    }
  }
  const nextVerb = () =>
    run(supervisor.use(ID, (b) => engine.tabs(b.contextId))).then((tabs) => {
      if (tabs.length !== 3 || tabs.some((t) => t.title === '')) throw new Error('3 tabs with their titles')
    })
  try {
    // Driven while it is set up: the setup calls the pages directly, which a frozen page would not answer.
    await run(supervisor.open({ id: ID, kind: 'task' }))
    await run(supervisor.drive(ID))
    await errandWithTabs(bench, ID, sites, storageFor(sites, 'frozen'))
    await run(supervisor.undrive(ID))
    const frozen: number[] = []
    const sealed: number[] = []
    for (let i = 0; i < rounds; i++) {
      await untilFrozen()
      frozen.push(await timed(nextVerb))
      await run(supervisor.park(ID))
      // Driven while it comes back, so the millisecond idle limit cannot freeze it mid-resume.
      sealed.push(
        await timed(async () => {
          const b = await run(supervisor.drive(ID))
          if ((await allTabsLoaded(bench, b.contextId)) !== 3) throw new Error('3 tabs after the resume')
          await nextVerb()
        }),
      )
      await run(supervisor.undrive(ID))
    }
    const base = median(frozen)
    const row = (name: string, xs: ReadonlyArray<number>, p: number) => {
      const v = p === 0.5 ? median(xs) : percentile(xs, p)
      return { section: `frozen (${rounds} rounds; target: frozen p50 ≤ 20 ms)`, name, median: v, ratio: v / base }
    }
    await run(Effect.ignore(supervisor.park(ID)))
    return [
      row('resume from frozen, p50', frozen, 0.5),
      row('resume from frozen, p95', frozen, 0.95),
      row('resume from sealed, p50', sealed, 0.5),
      row('resume from sealed, p95', sealed, 0.95),
    ]
  } finally {
    await dispose()
  }
}
