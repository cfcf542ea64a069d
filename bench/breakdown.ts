/**
 * Where the time of "open an errand, load a page, close it" goes: each step of the Errands path
 * timed on its own (supervisor, seed, runtime, store), next to the raw-CDP and Playwright steps
 * it is built on. Not in the default sections: `npm run bench -- breakdown`.
 *
 * @example
 * rows.push(...(await benchBreakdown(bench, services)))
 */
import type { Lending } from '@errands/lending'
import type { Runtime } from '@errands/runtime'
import type { SealedStore } from '@errands/store'
import { cdpErrand, launchRaw, pause, timed, type Bench } from './common.ts'
import { median, type Row } from './table.ts'

/** The engine's services the breakdown reaches below the supervisor. */
export interface Below {
  readonly runtime: Runtime['Type']
  readonly store: SealedStore['Type']
  readonly lending: Lending['Type']
}

const SECTION = 'breakdown of the open path (medians of each step)'

export const benchBreakdown = async (bench: Bench, below: Below): Promise<Row[]> => {
  const { supervisor, engine, run } = bench
  const raw = await launchRaw()
  const url = bench.sites[0]!.url('/title?t=breakdown')
  const t: Record<string, number[]> = {}
  const add = (name: string, ms: number) => void (t[name] ??= []).push(ms)
  const label = { reason: 'task' as const, lentSites: [] }
  for (let i = -1; i < bench.rounds * 2; i++) {
    const id = `bench-breakdown-${i + 1}`
    // 1. The whole Errands path, step by step.
    let contextId = ''
    const openMs = await timed(async () => void ({ contextId } = await run(supervisor.open({ id, kind: 'task' }))))
    const errandsBrowser = engine.browserContextOf(contextId)!.browser()!
    const loadMs = await timed(async () => {
      const [tab] = await run(engine.tabs(contextId))
      await run(engine.navigate(contextId, tab!.id, url))
      await engine.pageOf(contextId, tab!.id)!.waitForLoadState('load')
    })
    const closeMs = await timed(() => run(supervisor.taskChanged(id, 'done')))
    await pause()
    // 2. The same below the supervisor: the seed, the runtime's open and close, the store's remove.
    const seedMs = await timed(() => run(below.lending.seed({ id, kind: 'task' })))
    let direct = ''
    const rtOpenMs = await timed(
      async () => void (direct = await run(below.runtime.openContext({ errandId: `${id}-rt`, label }))),
    )
    const rtLoadMs = await timed(async () => {
      const [tab] = await run(below.runtime.tabs(direct))
      await run(below.runtime.navigate(direct, tab!.id, url))
      await engine.pageOf(direct, tab!.id)!.waitForLoadState('load')
    })
    const rtCloseMs = await timed(() => run(below.runtime.closeContext(direct)))
    const removeMs = await timed(() => run(below.store.remove(`${id}-rt`)))
    await pause()
    // 3. Playwright's pieces in the errands' own browser, without a warm spare.
    let ctx = await errandsBrowser.newContext()
    await ctx.close()
    const pwNewContextMs = await timed(async () => void (ctx = await errandsBrowser.newContext()))
    const pwRouteWsMs = await timed(() => ctx.routeWebSocket(/.*/, (ws) => ws.connectToServer()))
    let page = await ctx.newPage().catch(() => undefined)
    await page?.close()
    const pwNewPageMs = await timed(async () => void (page = await ctx.newPage()))
    const pwGotoMs = await timed(() => page!.goto(url))
    const pwCloseMs = await timed(() => ctx.close())
    await pause()
    // 4. Raw CDP's pieces in a plain browser.
    let e: Awaited<ReturnType<typeof cdpErrand>> | undefined
    const cdpOpenMs = await timed(async () => void (e = await cdpErrand(raw.cdp)))
    const cdpLoadMs = await timed(() => e!.load(url))
    const cdpCloseMs = await timed(() => e!.close())
    await pause()
    if (i < 0) continue // warm-up
    add('Errands: supervisor.open (admission + seed + runtime open, warm spare)', openMs)
    add('Errands: tabs + navigate first tab + wait for load', loadMs)
    add('Errands: taskChanged(done) (context close + record remove)', closeMs)
    add('  seed (L1, no always-allowed sites)', seedMs)
    add('  runtime.openContext alone (warm spare)', rtOpenMs)
    add('  runtime tabs + navigate + load alone', rtLoadMs)
    add('  runtime.closeContext alone', rtCloseMs)
    add('  store.remove alone', removeMs)
    add("Playwright in the errands' browser: newContext", pwNewContextMs)
    add('  context.routeWebSocket (the WebSocket guard)', pwRouteWsMs)
    add('  newPage (renderer start)', pwNewPageMs)
    add('  goto (load)', pwGotoMs)
    add('  context.close', pwCloseMs)
    add('raw CDP: createBrowserContext + createTarget + attach + Page.enable', cdpOpenMs)
    add('  Page.navigate + load', cdpLoadMs)
    add('  disposeBrowserContext', cdpCloseMs)
  }
  await raw.close()
  return Object.entries(t).map(([name, xs]) => ({ section: SECTION, name, median: median(xs), ratio: NaN }))
}
