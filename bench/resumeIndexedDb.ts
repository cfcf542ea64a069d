/**
 * A sealed resume of an errand holding 5 MB of IndexedDB in two databases (a Blob, a File and
 * Dates among the values, E7) against Playwright's own round trip: `storageState({ indexedDB:
 * true })` from a context, then `newContext({ storageState })` and a `goto`. Each side's row says
 * whether the page read its data back byte for byte (the digest of `DUMP_SCRIPT`), and which kinds
 * of value it lost (docs/adr/0043-exact-resume-indexeddb.md).
 *
 * @example
 * rows.push(...(await benchResumeIndexedDb(bench)))
 */
import { DUMP_SCRIPT, fillScript } from '../test/fixtures/indexedDbPages.ts'
import { launchRaw, pause, timed, type Bench } from './common.ts'
import { median, type Row } from './table.ts'

interface Dump {
  readonly digest: string
  readonly kinds: ReadonlyArray<string>
}

export const benchResumeIndexedDb = async (bench: Bench): Promise<Row[]> => {
  const { supervisor, engine, run, sites } = bench
  const url = sites[0]!.url('/title?t=idb')
  const raw = await launchRaw()

  // Ours: one tab, 5 MB written once; each round parks (seals) and resumes it.
  const { contextId } = await run(supervisor.open({ id: 'bench-idb', kind: 'task' }))
  const [first] = await run(engine.tabs(contextId))
  await run(engine.navigate(contextId, first!.id, url))
  const page = engine.pageOf(contextId, first!.id)!
  await page.evaluate(fillScript({ mb: 5, seed: 1 }))
  const before = JSON.parse(await page.evaluate(DUMP_SCRIPT)) as Dump
  let oursAfter: Dump | undefined
  const ours: number[] = []
  const oursPark: number[] = []

  // Playwright's: the same 5 MB, read with storageState({ indexedDB: true }) and put back.
  const source = await raw.browser.newContext()
  const sourcePage = await source.newPage()
  await sourcePage.goto(url)
  await sourcePage.evaluate(fillScript({ mb: 5, seed: 1 }))
  let theirsAfter: Dump | undefined
  const theirsRead: number[] = []
  const theirsRestore: number[] = []

  for (let i = 0; i < bench.rounds; i++) {
    oursPark.push(await timed(() => run(supervisor.park('bench-idb'))))
    await pause()
    ours.push(
      await timed(async () => {
        const b = await run(supervisor.resume('bench-idb'))
        const [tab] = await run(engine.tabs(b.contextId))
        const back = engine.pageOf(b.contextId, tab!.id)!
        await back.waitForLoadState('load')
        oursAfter ??= JSON.parse(await back.evaluate(DUMP_SCRIPT)) as Dump
      }),
    )
    await pause()
    let state: Awaited<ReturnType<typeof source.storageState>> | undefined
    theirsRead.push(await timed(async () => (state = await source.storageState({ indexedDB: true }))))
    theirsRestore.push(
      await timed(async () => {
        const context = await raw.browser.newContext({ storageState: state })
        const p = await context.newPage()
        await p.goto(url)
        theirsAfter ??= JSON.parse(await p.evaluate(DUMP_SCRIPT)) as Dump
        await context.close()
      }),
    )
    await pause()
  }
  await run(supervisor.release('bench-idb'))
  await source.close()
  await raw.close()

  const verdict = (after: Dump | undefined) => {
    if (after?.digest === before.digest) return 'byte for byte'
    const lost = before.kinds.filter((k) => !after?.kinds.includes(k))
    return `differs${lost.length > 0 ? `; lost ${lost.join(', ')}` : ''}`
  }
  const base = median(theirsRestore)
  const section = 'resume with 5 MB of IndexedDB in two databases (Blob, File, Date among the values)'
  return [
    {
      section,
      name: `Playwright: newContext({ storageState }) + goto (${verdict(theirsAfter)})`,
      median: base,
      ratio: 1,
    },
    {
      section,
      name: 'Playwright: storageState({ indexedDB: true }) read',
      median: median(theirsRead),
      ratio: median(theirsRead) / base,
    },
    {
      section,
      name: `Errands: sealed resume, tab loaded (${verdict(oursAfter)})`,
      median: median(ours),
      ratio: median(ours) / base,
    },
    { section, name: 'Errands: park (snapshot + seal)', median: median(oursPark), ratio: median(oursPark) / base },
  ]
}
