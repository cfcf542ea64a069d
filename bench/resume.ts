/**
 * Resume an errand with 3 tabs on 3 sites (cookies + 10 localStorage items each) against
 * Playwright's own path: `newContext({ storageState })` and a `goto` per tab. Both sides restore
 * exactly 3 tabs (the bench checks it).
 *
 * @example
 * rows.push(...(await benchResume(bench)))
 */
import type { StorageState } from '@errands/runtime'
import { launchRaw, pause, timed, type Bench } from './common.ts'
import { median, type Row } from './table.ts'

/**
 * The storage a 3-site errand holds in the resume and heal benches: a session cookie and 10
 * localStorage items per site.
 *
 * @example
 * const state = storageFor(bench.sites, 'r1')
 */
export const storageFor = (sites: Bench['sites'], tag: string): StorageState => ({
  cookies: sites.map((s, i) => ({
    name: 'session',
    value: `${tag}-v${i}`,
    domain: s.host,
    path: '/',
    expires: -1,
    httpOnly: true,
    secure: false,
    sameSite: 'Lax' as const,
  })),
  origins: sites.map((s, i) => ({
    origin: s.origin,
    localStorage: Array.from({ length: 10 }, (_, k) => ({ name: `k${k}`, value: `${tag}-${i}-${k}` })),
  })),
})

/**
 * Opens errand `id` with one tab per site in `sites`, the site's cookie and localStorage set.
 *
 * @example
 * const contextId = await errandWithTabs(bench, 'bench-resume', bench.sites, storageFor(bench.sites, 'x'))
 */
export const errandWithTabs = async (
  bench: Bench,
  id: string,
  sites: Bench['sites'],
  state: StorageState,
): Promise<string> => {
  const { supervisor, engine, run } = bench
  const { contextId } = await run(supervisor.open({ id, kind: 'task' }))
  await run(engine.addCookies(contextId, state.cookies))
  // Exactly one tab per site: the errand's first (blank) tab takes the first site.
  const [first] = await run(engine.tabs(contextId))
  for (const [i, site] of sites.entries()) {
    const url = site.url('/title?t=tab')
    const tab =
      i === 0 ? await run(engine.navigate(contextId, first!.id, url)) : await run(engine.openTab(contextId, url))
    const items = state.origins.find((o) => o.origin === site.origin)!.localStorage
    await engine.pageOf(contextId, tab.id)!.evaluate((xs) => {
      for (const it of xs) localStorage.setItem(it.name, it.value)
    }, items)
  }
  if ((await run(engine.tabs(contextId))).length !== sites.length)
    throw new Error(`errand ${id} should hold exactly ${sites.length} tabs`)
  return contextId
}

/**
 * Waits until every tab of the conversation's live context has loaded; returns how many. @example await
 * allTabsLoaded(bench, 'e1')
 */
export const allTabsLoaded = async (bench: Bench, contextId: string): Promise<number> => {
  const open = await bench.run(bench.engine.tabs(contextId))
  await Promise.all(open.map((t) => bench.engine.pageOf(contextId, t.id)!.waitForLoadState('load')))
  return open.length
}

export const benchResume = async (bench: Bench): Promise<Row[]> => {
  const { supervisor, run, sites } = bench
  const raw = await launchRaw()
  const tabs = sites.map((s) => s.url('/title?t=tab'))
  const state = storageFor(sites, 'resume')
  await errandWithTabs(bench, 'bench-resume', sites, state)
  const ours: number[] = []
  const oursParkResume: number[] = []
  const playwright: number[] = []
  const resumeLoaded = async () => {
    const b = await run(supervisor.resume('bench-resume'))
    if ((await allTabsLoaded(bench, b.contextId)) !== 3)
      throw new Error('the resumed errand should hold exactly 3 tabs')
  }
  const backToBack: number[] = []
  const parkResume = async () => {
    await run(supervisor.park('bench-resume'))
    await resumeLoaded()
  }
  for (let i = 0; i < bench.rounds; i++) {
    await run(supervisor.park('bench-resume'))
    ours.push(await timed(resumeLoaded))
    // The runtime makes its warm spare context 1 s after an open: once right after the resume
    // above (no spare ready yet), once after the spare's delay.
    await pause()
    backToBack.push(await timed(parkResume))
    await pause(1_500)
    oursParkResume.push(await timed(parkResume))
    await pause()
    playwright.push(
      await timed(async () => {
        const context = await raw.browser.newContext({
          storageState: {
            cookies: state.cookies.map((c) => ({ ...c })),
            origins: state.origins.map((o) => ({ ...o, localStorage: [...o.localStorage] })),
          },
        })
        for (const url of tabs) await (await context.newPage()).goto(url)
        await context.close()
      }),
    )
    await pause()
  }
  await run(supervisor.release('bench-resume'))
  await raw.close()
  const base = median(playwright)
  const section = 'resume 3 tabs on 3 sites (cookies + localStorage)'
  return [
    { section, name: 'Playwright: newContext({ storageState }) + goto per tab', median: base, ratio: 1 },
    {
      section,
      name: 'Errands: resume (unseal + restore + tabs loaded)',
      median: median(ours),
      ratio: median(ours) / base,
    },
    { section, name: 'Errands: park + resume', median: median(oursParkResume), ratio: median(oursParkResume) / base },
    {
      section,
      name: 'Errands: park + resume 0.3 s after the last open (no warm spare yet)',
      median: median(backToBack),
      ratio: median(backToBack) / base,
    },
  ]
}
