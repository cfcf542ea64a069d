/**
 * An errand's own IndexedDB (E7): read for its snapshots, restored into the context it resumes or
 * heals in — never lent, never in the `StorageState` lending moves (L4).
 *
 * Reading follows the localStorage book's rule (`originBook.ts`): only the origins a document
 * has shown since the last read are read, through a tab showing the origin when there is one,
 * else in a page of the runtime's own whose every request the engine answers with an empty
 * document, so no script of the site runs. The reader runs in an isolated world of that document
 * (`indexedDbScripts.ts`): the page cannot rewrite the functions it uses. A service worker can
 * write its origin's IndexedDB with no document open; such writes are read the next time a
 * document of the origin shows (the errand's pages are what it resumes to).
 *
 * The cap is per errand: databases are counted in order (origin, then name), and one that would
 * take the total past the cap is left out, by origin, for health to say (the rest are kept).
 *
 * Restoring happens before any tab opens: each origin's databases are written in a page of the
 * runtime's own showing that origin (one per origin, in parallel). Playwright's
 * `newContext({ storageState })` does the same per origin, but it loses Blobs and writes after
 * opening, racing the page's own scripts (measured: docs/adr/0038-exact-resume-and-frozen-errands.md).
 *
 * @example
 * const { indexedDB, leftOut } = await readIndexedDb(context, { book, visitPage, perOriginMs, answers, maxBytes })
 * await restoreIndexedDb(indexedDB, { book, visitPage, perOriginMs, log })
 */
import { originOf, type IndexedDbDatabase, type IndexedDbLeftOut, type OriginIndexedDb } from '@errands/runtime'
import type { BrowserContext, Page } from 'playwright-core'
import { bounded } from './failures.ts'
import { readerScript, restoreDatabasesScript, type ReaderAnswer } from './indexedDbScripts.ts'
import type { OriginBook } from './originBook.ts'
import type { QuietPage } from './storage.ts'

/** What one origin held when last read: its databases, and why any were left out. */
export interface OriginDatabases {
  readonly databases: ReadonlyArray<IndexedDbDatabase>
  readonly leftOut: ReadonlyArray<IndexedDbLeftOut['reason']>
}

/** What {@link readIndexedDb} needs besides the context. */
export interface IndexedDbReading {
  readonly book: OriginBook<OriginDatabases>
  /** A new page that never becomes a tab. */
  readonly visitPage: () => Promise<QuietPage>
  readonly perOriginMs: number
  /** Whether a page can answer for its document (not crashed, not frozen, not one of the reads' own). */
  readonly answers: (page: Page) => boolean
  /** The errand's cap on IndexedDB, in bytes of the clone encoding. */
  readonly maxBytes: number
  readonly log: (line: string) => void
}

/** Every request of a visit page gets this, from the engine: nothing reaches a network. */
const EMPTY_DOCUMENT = { status: 200, contentType: 'text/html', body: '<html></html>' } as const

/** Runs `expression` in an isolated world of `page`'s main document and returns its string result. */
const inIsolatedWorld = async (context: BrowserContext, page: Page, expression: string): Promise<string> => {
  const session = await context.newCDPSession(page)
  try {
    const { frameTree } = await session.send('Page.getFrameTree')
    const { executionContextId } = await session.send('Page.createIsolatedWorld', {
      frameId: frameTree.frame.id,
      worldName: 'errands-storage',
    })
    const answer = await session.send('Runtime.evaluate', {
      expression,
      contextId: executionContextId,
      awaitPromise: true,
      returnByValue: true,
    })
    if (answer.exceptionDetails !== undefined || typeof answer.result.value !== 'string')
      throw new Error(answer.exceptionDetails?.exception?.description?.split('\n')[0] ?? 'the script gave no answer')
    return answer.result.value
  } finally {
    await session.detach().catch(() => undefined)
  }
}

const readThrough = async (context: BrowserContext, page: Page, maxBytes: number): Promise<OriginDatabases> => {
  const answer = JSON.parse(await inIsolatedWorld(context, page, readerScript(maxBytes))) as ReaderAnswer
  return { databases: answer.databases, leftOut: answer.leftOut.map((l) => l.reason) }
}

/**
 * Runs `work` in a page of the runtime's own for each origin, on an empty document of that origin
 * (the engine answers every request; service workers bypassed).
 */
const visiting = async <A>(
  origin: string,
  visitPage: () => Promise<QuietPage>,
  perOriginMs: number,
  work: (page: Page) => Promise<A>,
): Promise<A> => {
  const made = visitPage()
  let visit: QuietPage | undefined
  try {
    visit = await bounded(perOriginMs, 'a page to visit storage in', made)
    const { page } = visit
    await page.route('**/*', (route) => route.fulfill(EMPTY_DOCUMENT).catch(() => undefined))
    const session = await page.context().newCDPSession(page)
    await session
      .send('Network.setBypassServiceWorker', { bypass: true })
      .finally(() => session.detach().catch(() => undefined))
    await page.goto(`${origin}/`, { waitUntil: 'domcontentloaded', timeout: perOriginMs })
    return await work(page)
  } finally {
    if (visit !== undefined) await visit.done().catch(() => undefined)
    // Made after we stopped waiting for it: closed when it comes, never left open.
    else void made.then((late) => late.done()).catch(() => undefined)
  }
}

/**
 * The errand's IndexedDB, every origin it used, within its cap; what was left out, by origin.
 * An origin that cannot be read keeps what it held when last read (and is read again next time).
 *
 * @example
 * const { indexedDB, leftOut } = await readIndexedDb(context, reading)
 */
export const readIndexedDb = async (
  context: BrowserContext,
  reading: IndexedDbReading,
): Promise<{ readonly indexedDB: Array<OriginIndexedDb>; readonly leftOut: Array<IndexedDbLeftOut> }> => {
  const { book, visitPage, perOriginMs, answers, maxBytes, log } = reading
  const pages = context.pages().filter((p) => !p.isClosed())
  const stale = book.begin(new Set(pages.flatMap((p) => p.frames().map((f) => f.url()))))
  for (const origin of stale) {
    const tab = pages.find((p) => !p.isClosed() && answers(p) && originOf(p.url()) === origin)
    try {
      const read = (page: Page) => bounded(perOriginMs, `IndexedDB of ${origin}`, readThrough(context, page, maxBytes))
      book.record(origin, tab ? await read(tab) : await visiting(origin, visitPage, perOriginMs, read))
    } catch (e) {
      book.failed(origin)
      log(`the IndexedDB of ${origin} could not be read (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`)
    }
  }
  return withinCap(book.entries(), maxBytes)
}

/**
 * Keeps databases in order (origin, then name) while their total fits `maxBytes`; the others,
 * and the ones the reader already left out, are named by origin.
 *
 * @example
 * withinCap([['https://a.example', { databases: [big, small], leftOut: [] }]], 1024).leftOut
 * // [{ origin: 'https://a.example', reason: 'over-cap' }]
 */
export const withinCap = (
  origins: ReadonlyArray<readonly [string, OriginDatabases]>,
  maxBytes: number,
): { readonly indexedDB: Array<OriginIndexedDb>; readonly leftOut: Array<IndexedDbLeftOut> } => {
  let total = 0
  const indexedDB: Array<OriginIndexedDb> = []
  const leftOut: Array<IndexedDbLeftOut> = []
  for (const [origin, held] of [...origins].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const kept: Array<IndexedDbDatabase> = []
    const reasons = new Set(held.leftOut)
    for (const db of [...held.databases].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (total + db.data.length > maxBytes) reasons.add('over-cap')
      else {
        total += db.data.length
        kept.push(db)
      }
    }
    if (kept.length > 0) indexedDB.push({ origin, databases: kept })
    for (const reason of reasons) leftOut.push({ origin, reason })
  }
  return { indexedDB, leftOut }
}

/** What {@link restoreIndexedDb} needs besides the context. */
export interface IndexedDbRestoring {
  readonly book: OriginBook<OriginDatabases>
  readonly visitPage: () => Promise<QuietPage>
  readonly perOriginMs: number
  readonly log: (line: string) => void
}

/**
 * Writes the errand's databases back into a fresh context, one page of the runtime's own per
 * origin, before any tab opens; the book then knows them, so the next snapshot reads an origin
 * only once a document of it shows. An origin that cannot be written is said in the log and
 * stays in the book (so the next park seals it again): nothing is lost.
 *
 * @example
 * await restoreIndexedDb(record.snapshot.indexedDB ?? [], restoring)
 */
export const restoreIndexedDb = async (
  origins: ReadonlyArray<OriginIndexedDb>,
  restoring: IndexedDbRestoring,
): Promise<void> => {
  const { book, visitPage, perOriginMs, log } = restoring
  await Promise.all(
    origins.map(async ({ origin, databases }) => {
      const at = originOf(origin)
      book.record(origin, { databases, leftOut: [] })
      if (at === undefined || databases.length === 0) return
      try {
        const failed = JSON.parse(
          await visiting(at, visitPage, perOriginMs, (page) =>
            bounded(
              perOriginMs,
              `restoring the IndexedDB of ${at}`,
              inIsolatedWorld(
                page.context(),
                page,
                restoreDatabasesScript(databases.map((d) => [d.name, d.version, d.data] as const)),
              ),
            ),
          ),
        ) as Array<string>
        if (failed.length > 0) log(`${failed.length} IndexedDB databases of ${at} could not be restored`)
      } catch (e) {
        log(
          `the IndexedDB of ${at} could not be restored (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`,
        )
      }
    }),
  )
}
