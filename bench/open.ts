/**
 * Open an errand and load a local page, four ways side by side: raw CDP (the baseline), raw
 * Playwright, a browser launched per errand, and an Errands errand (supervisor admission,
 * seeding, the guarded context, its first tab loaded, then a durable close).
 *
 * @example
 * rows.push(...(await benchOpen(bench)))
 */
import { CHROMIUM_ARGS, resolveExecutable } from '@errands/runtime-chromium'
import { chromium } from 'playwright-core'
import { cdpErrand, interleave, launchRaw, type Bench } from './common.ts'
import { median, type Row } from './table.ts'

export const OPEN_SECTION = 'open an errand, load a local page, close it'

/**
 * Opens an errand through the supervisor, loads `url` in its first tab (waits for `load`, like
 * the raw sides) and ends the task (the context closes, its record goes). Returns the tab's title.
 *
 * @example
 * await errandOpenLoadClose(bench, 'task-1', site.url('/title?t=x'))
 */
export const errandOpenLoadClose = async (
  bench: Bench,
  id: string,
  url: string,
  between?: (contextId: string) => Promise<void>,
): Promise<string> => {
  const { supervisor, engine, run } = bench
  const { contextId } = await run(supervisor.open({ id, kind: 'task' }))
  // An errand opens with one blank tab (the warm spare's page): that is where the agent browses.
  const [tab] = await run(engine.tabs(contextId))
  const info = await run(engine.navigate(contextId, tab!.id, url))
  await engine.pageOf(contextId, tab!.id)!.waitForLoadState('load')
  await between?.(contextId)
  await run(supervisor.taskChanged(id, 'done'))
  return info.title
}

export const benchOpen = async (bench: Bench, cold?: Bench, noEgress?: Bench): Promise<Row[]> => {
  const raw = await launchRaw()
  const url = bench.sites[0]!.url('/title?t=bench')
  let n = 0
  const baseline = 'raw CDP: createBrowserContext + target + load'
  const times = await interleave(
    {
      [baseline]: async () => {
        const e = await cdpErrand(raw.cdp)
        await e.load(url)
        await e.close()
      },
      'raw Playwright: newContext + newPage + goto': async () => {
        const context = await raw.browser.newContext()
        await (await context.newPage()).goto(url)
        await context.close()
      },
      'a browser launched per errand': async () => {
        const browser = await chromium.launch({
          executablePath: resolveExecutable(),
          args: [...CHROMIUM_ARGS],
          handleSIGINT: false,
          handleSIGTERM: false,
          handleSIGHUP: false,
        })
        await (await browser.newPage()).goto(url)
        await browser.close()
      },
      'Errands: open errand + load its tab + close (guarded)': () =>
        errandOpenLoadClose(bench, `bench-open-${n++}`, url),
      ...(cold
        ? { 'Errands without the warm spare context': () => errandOpenLoadClose(cold, `bench-open-cold-${n++}`, url) }
        : {}),
      ...(noEgress
        ? {
            'Errands with the egress off (measurement only, issue #21)': () =>
              errandOpenLoadClose(noEgress, `bench-open-direct-${n++}`, url),
          }
        : {}),
    },
    bench.rounds,
  )
  await raw.close()
  const base = median(times[baseline]!)
  return Object.entries(times).map(([name, xs]) => ({
    section: OPEN_SECTION,
    name,
    median: median(xs),
    ratio: median(xs) / base,
  }))
}
