/**
 * Chromium's own spare renderer (ADR 0015), on and off, in two engines side by side: Errands as
 * shipped (off) and the same engine with `--enable-features=SpareRendererForSitePerProcess`.
 * Three workloads: four errands navigating in turn across the fixture sites (the pool's usual
 * shape), one errand crossing sites in one tab (where a spare helps most), and errands opened,
 * loaded and closed one after another; plus how many renderer processes each side started.
 *
 * @example
 * rows.push(...(await benchSpare(sites, 5)))
 */
import { osProbe } from '../soak/os.ts'
import type { Site } from '../test/fixtures/sites.ts'
import { interleave, startBench, type Bench } from './common.ts'
import { errandOpenLoadClose } from './open.ts'
import { median, type Row } from './table.ts'

const SECTION = "Chromium's spare renderer: off (as shipped) vs on"

/**
 * Counts the renderer processes one engine starts while `work` runs (sampled every 25 ms: one living under 25 ms may
 * be missed).
 */
const countingRenderers = async (dataDir: string, work: () => Promise<void>): Promise<number> => {
  const probe = osProbe({ owner: dataDir, tmpDir: '/nonexistent' })
  const before = new Set(probe.chromium().renderers)
  const seen = new Set<number>()
  let done = false
  const sampler = (async () => {
    while (!done) {
      for (const pid of probe.chromium().renderers) if (!before.has(pid)) seen.add(pid)
      await new Promise((r) => setTimeout(r, 25))
    }
  })()
  try {
    await work()
  } finally {
    done = true
    await sampler
  }
  return seen.size
}

const workloads = (bench: Bench, tag: string) => {
  const { supervisor, engine, run, sites } = bench
  const url = (i: number) => sites[i % sites.length]!.url(`/title?t=${tag}-${i}`)
  let n = 0
  const openErrand = async () => {
    const id = `bench-spare-${tag}-${n++}`
    const { contextId } = await run(supervisor.open({ id, kind: 'task' }))
    const [tab] = await run(engine.tabs(contextId))
    return { id, contextId, tab: tab!.id }
  }
  return {
    'four errands, 24 navigations in turn': async () => {
      const errands = await Promise.all(Array.from({ length: 4 }, openErrand))
      for (let i = 0; i < 24; i++) {
        const e = errands[i % 4]!
        await run(engine.navigate(e.contextId, e.tab, url(i)))
      }
      for (const e of errands) await run(supervisor.taskChanged(e.id, 'done'))
    },
    'one errand, 12 cross-site navigations in one tab': async () => {
      const e = await openErrand()
      for (let i = 0; i < 12; i++) await run(engine.navigate(e.contextId, e.tab, url(i)))
      await run(supervisor.taskChanged(e.id, 'done'))
    },
    '8 errands opened, loaded and closed in a row': async () => {
      for (let i = 0; i < 8; i++) await errandOpenLoadClose(bench, `bench-spare-${tag}-row-${n++}`, url(i))
    },
  }
}

export const benchSpare = async (sites: ReadonlyArray<Site>, rounds: number): Promise<Row[]> => {
  const off = await startBench(sites, rounds)
  const on = await startBench(sites, rounds, true, ['--enable-features=SpareRendererForSitePerProcess'])
  try {
    const sides = { off: workloads(off.bench, 'off'), on: workloads(on.bench, 'on') }
    const dirs = { off: off.dataDir, on: on.dataDir }
    const starts: Record<string, number[]> = {}
    const rows: Row[] = []
    for (const name of Object.keys(sides.off) as Array<keyof typeof sides.off>) {
      const wrap = (side: 'off' | 'on') => async () => {
        const n = await countingRenderers(dirs[side], sides[side][name])
        ;(starts[`${name} ${side}`] ??= []).push(n)
      }
      const times = await interleave({ off: wrap('off'), on: wrap('on') }, rounds)
      const base = median(times.off!)
      rows.push({ section: SECTION, name: `${name}: off`, median: base, ratio: 1 })
      rows.push({ section: SECTION, name: `${name}: on`, median: median(times.on!), ratio: median(times.on!) / base })
      const s = (side: 'off' | 'on') => median(starts[`${name} ${side}`]!)
      rows.push({
        section: SECTION,
        name: `${name}: renderers started, off`,
        median: s('off'),
        ratio: 1,
        unit: 'procs',
      })
      rows.push({
        section: SECTION,
        name: `${name}: renderers started, on`,
        median: s('on'),
        ratio: s('on') / s('off'),
        unit: 'procs',
      })
    }
    return rows
  } finally {
    await on.dispose()
    await off.dispose()
  }
}
