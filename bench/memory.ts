/**
 * Memory per open context, measured where it is spent: the PSS of the Chromium process tree
 * (`/proc/<pid>/smaps_rollup` of the browser and all its descendants) before and after opening N
 * contexts with one loaded page each — Errands' errands in its errands' browser against raw
 * Playwright contexts in a plain Chromium. Then the errands are parked: their contexts are gone
 * and the tree's PSS comes back down (a parked errand holds no browser memory).
 *
 * @example
 * rows.push(...(await benchMemory(bench, 3)))
 */
import { readdirSync, readFileSync } from 'node:fs'
import type { BrowserContext } from 'playwright-core'
import { launchRaw, pause, type Bench } from './common.ts'
import { median, type Row } from './table.ts'

const N = 4
const SETTLE_MS = 2_000
const SECTION = `memory: PSS of the Chromium process tree, ${N} contexts with one loaded page each`

/** The pids of `root` and all its descendants (Linux `/proc`). @example treeOf(browserPid) */
export const treeOf = (root: number): number[] => {
  const children = new Map<number, number[]>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      // The command name may hold spaces and parentheses: the ppid is the 2nd field after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)])
    } catch {
      // exited while we looked
    }
  }
  const out: number[] = []
  const walk = (pid: number) => {
    out.push(pid)
    for (const c of children.get(pid) ?? []) walk(c)
  }
  walk(root)
  return out
}

/** PSS of a process tree in MB, and how many processes it has. @example pssOf(pid).mb */
export const pssOf = (root: number): { readonly mb: number; readonly processes: number } => {
  let kb = 0
  const pids = treeOf(root)
  for (const pid of pids) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))
      kb += Number(m?.[1] ?? 0)
    } catch {
      // exited while we looked
    }
  }
  return { mb: kb / 1024, processes: pids.length }
}

const settled = async (pid: number) => {
  await pause(SETTLE_MS)
  return pssOf(pid)
}

export const benchMemory = async (bench: Bench, rounds: number): Promise<Row[]> => {
  const { supervisor, engine, run, sites } = bench
  const raw = await launchRaw()
  const url = (i: number) => sites[i % sites.length]!.url('/title?t=memory')
  const ours: number[] = []
  const oursProcs: number[] = []
  const parkedLeft: number[] = []
  const rawPer: number[] = []
  const rawProcs: number[] = []
  const contextsLeft: number[] = []
  const waitSpare = async () => {
    for (let i = 0; i < 100 && !engine.hasWarmSpare(); i++) await pause(50)
  }
  for (let round = 0; round < rounds; round++) {
    // Errands: N errands, each with its first tab loaded; then park them all.
    const ids = Array.from({ length: N }, (_, i) => `bench-memory-${round}-${i}`)
    const warm = await run(supervisor.open({ id: `bench-memory-warm-${round}`, kind: 'task' }))
    const browser = engine.browserContextOf(warm.contextId)!.browser()!
    await run(supervisor.taskChanged(`bench-memory-warm-${round}`, 'done'))
    await waitSpare()
    const pid = engine.errandsBrowserPid()!
    const before = await settled(pid)
    const contextsBefore = browser.contexts().length
    for (const [i, id] of ids.entries()) {
      const { contextId } = await run(supervisor.open({ id, kind: 'task' }))
      const [tab] = await run(engine.tabs(contextId))
      await run(engine.navigate(contextId, tab!.id, url(i)))
      await engine.pageOf(contextId, tab!.id)!.waitForLoadState('load')
    }
    await waitSpare()
    const open = await settled(pid)
    for (const id of ids) await run(supervisor.park(id))
    await waitSpare()
    const parked = await settled(pid)
    contextsLeft.push(browser.contexts().length - contextsBefore)
    ours.push((open.mb - before.mb) / N)
    oursProcs.push((open.processes - before.processes) / N)
    parkedLeft.push((parked.mb - before.mb) / N)
    for (const id of ids) await run(supervisor.release(id))
    // Raw: N Playwright contexts in a plain Chromium, each with one loaded page.
    const rawBefore = await settled(raw.pid)
    const contexts: BrowserContext[] = []
    for (let i = 0; i < N; i++) {
      const context = await raw.browser.newContext()
      await (await context.newPage()).goto(url(i))
      contexts.push(context)
    }
    const rawOpen = await settled(raw.pid)
    rawPer.push((rawOpen.mb - rawBefore.mb) / N)
    rawProcs.push((rawOpen.processes - rawBefore.processes) / N)
    for (const c of contexts) await c.close()
  }
  await raw.close()
  const base = median(rawPer)
  return [
    {
      section: SECTION,
      name: `raw Playwright context + page (${median(rawProcs).toFixed(1)} processes each)`,
      median: base,
      ratio: 1,
      unit: 'MB',
    },
    {
      section: SECTION,
      name: `Errands errand + its tab (${median(oursProcs).toFixed(1)} processes each)`,
      median: median(ours),
      ratio: median(ours) / base,
      unit: 'MB',
    },
    {
      section: SECTION,
      name: `Errands parked errand, PSS left vs before (contexts left: ${median(contextsLeft)})`,
      median: median(parkedLeft),
      ratio: NaN,
      unit: 'MB',
    },
  ]
}
