/**
 * Cookies and localStorage of one Playwright context, in the runtime's shapes (no IndexedDB,
 * no passkeys — L4).
 *
 * @example
 * const state = await readStorage(context, { book, pending, visitPage, perOriginMs: 10_000 })
 */
import { originOf, type Cookie, type OriginStorage, type StorageState } from '@errands/runtime'
import type { BrowserContext, CDPSession, Page } from 'playwright-core'
import { bounded } from './failures.ts'
import type { LocalStorageBook } from './localStorageBook.ts'
import type { PendingLocalStorage } from './localStorageRestore.ts'

type PlaywrightCookie = Awaited<ReturnType<BrowserContext['cookies']>>[number]

const toCookie = (c: PlaywrightCookie): Cookie => ({
  name: c.name,
  value: c.value,
  domain: c.domain,
  path: c.path,
  expires: c.expires,
  httpOnly: c.httpOnly,
  secure: c.secure,
  sameSite: c.sameSite,
})

/**
 * Our cookies in the shape `context.addCookies` takes.
 *
 * @example
 * await context.addCookies(toPlaywrightCookies(state.cookies))
 */
export const toPlaywrightCookies = (cookies: ReadonlyArray<Cookie>): Array<PlaywrightCookie> =>
  cookies.map((c) => ({
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path,
    expires: c.expires,
    httpOnly: c.httpOnly,
    secure: c.secure,
    sameSite: c.sameSite,
  }))

/**
 * The context's cookies and localStorage as Chromium holds them (`storageState({ indexedDB:
 * false })`, origins without items left out). Never IndexedDB (L4).
 *
 * @example
 * const { cookies, origins } = await readContextStorage(context)
 */
export const readContextStorage = async (
  context: BrowserContext,
): Promise<{ cookies: Array<Cookie>; origins: Array<OriginStorage> }> => {
  const state = await context.storageState({ indexedDB: false })
  return {
    cookies: state.cookies.map(toCookie),
    origins: state.origins
      .filter((o) => o.localStorage.length > 0)
      .map((o) => ({ origin: o.origin, localStorage: o.localStorage.map((i) => ({ name: i.name, value: i.value })) })),
  }
}

/** A page for the runtime's own work, and how to let it go. */
export interface QuietPage {
  readonly page: Page
  readonly done: () => Promise<void>
}

/** What {@link readStorage} needs besides the context. */
export interface StorageReading {
  /** Which origins to read, and the rest as last read. */
  readonly book: LocalStorageBook
  /** Origins restored into the context that no document has opened yet. */
  readonly pending: PendingLocalStorage
  /** A new page that never becomes a tab (made one at a time with the context's other pages). */
  readonly visitPage: () => Promise<QuietPage>
  /** How long one origin's read may take. */
  readonly perOriginMs: number
  /** Whether a page can answer for its document (not crashed, not one of the reads' own). */
  readonly answers: (page: Page) => boolean
}

/** Every request of a visit page gets this, from the engine: nothing reaches a network. */
const EMPTY_DOCUMENT = { status: 200, contentType: 'text/html', body: '<html></html>' } as const

/**
 * An origin's first-party localStorage through a session of a page showing a document of it (CDP, out of the page's
 * scripts' reach).
 */
const itemsThrough = async (session: CDPSession, origin: string): Promise<OriginStorage['localStorage']> => {
  const { entries } = await session.send('DOMStorage.getDOMStorageItems', {
    storageId: { storageKey: `${origin}/`, isLocalStorage: true },
  })
  return entries.map(([name, value]) => ({ name: name!, value: value! }))
}

/** Runs `work` with a CDP session of `page`, detached after. */
const withSession = async <A>(
  context: BrowserContext,
  page: Page,
  work: (session: CDPSession) => Promise<A>,
): Promise<A> => {
  const session = await context.newCDPSession(page)
  try {
    return await work(session)
  } finally {
    await session.detach().catch(() => undefined)
  }
}

/**
 * The context's cookies and localStorage (L4: never IndexedDB), reading only the origins the
 * book says may have changed ({@link LocalStorageBook}): through a tab showing that origin when
 * there is one, else by a visit in a page of our own whose every request the engine answers with
 * an empty document (service workers bypassed), so nothing leaves and no page script of the
 * site runs but ours. The origins restored and not opened yet come from `pending`. Only the visit
 * page's creation waits for the context's other page work: an agent's new tab never waits
 * behind a read. An origin that cannot be read fails the read (after the others are recorded).
 *
 * @example
 * const { cookies, origins } = await readStorage(context, { book, pending, visitPage, perOriginMs: 10_000 })
 */
export const readStorage = async (context: BrowserContext, reading: StorageReading): Promise<StorageState> => {
  const { book, pending, visitPage, perOriginMs, answers } = reading
  const cookies = (await context.cookies()).map(toCookie)
  const pages = context.pages().filter((p) => !p.isClosed())
  const stale = book.begin(new Set(pages.flatMap((p) => p.frames().map((f) => f.url()))))
  const unread: Array<string> = []
  for (const origin of stale) {
    const page = pages.find((p) => !p.isClosed() && answers(p) && originOf(p.url()) === origin)
    const items =
      page &&
      (await bounded(
        perOriginMs,
        `localStorage of ${origin}`,
        withSession(context, page, (s) => itemsThrough(s, origin)),
      ).catch(() => undefined))
    if (items) book.record(origin, items)
    else unread.push(origin)
  }
  const failed: Array<string> = []
  if (unread.length > 0) {
    let visit: QuietPage | undefined
    const made = visitPage()
    try {
      visit = await bounded(perOriginMs, 'a page to read localStorage in', made)
      const { page } = visit
      await page.route('**/*', (route) => route.fulfill(EMPTY_DOCUMENT).catch(() => undefined))
      await withSession(context, page, async (session) => {
        await session.send('Network.setBypassServiceWorker', { bypass: true })
        for (const origin of unread) {
          try {
            await page.goto(`${origin}/`, { waitUntil: 'domcontentloaded', timeout: perOriginMs })
            book.record(origin, await bounded(perOriginMs, `localStorage of ${origin}`, itemsThrough(session, origin)))
          } catch {
            failed.push(origin)
          }
        }
      })
    } catch {
      failed.push(...unread.filter((o) => !failed.includes(o)))
    } finally {
      if (visit !== undefined) await visit.done().catch(() => undefined)
      // Made after we stopped waiting for it (its turn came late): closed when it comes, never
      // left open (a lifelong context such as the person's would keep its renderer for good).
      else void made.then((late) => late.done()).catch(() => undefined)
    }
  }
  for (const origin of failed) book.failed(origin)
  if (failed.length > 0) throw new Error(`could not read the localStorage of ${failed.join(', ')}`)
  const origins = book.origins()
  const seen = new Set(origins.map((o) => o.origin))
  for (const o of pending.origins()) if (!seen.has(o.origin)) origins.push(o)
  return { cookies, origins }
}

/**
 * Removes the cookies the predicate accepts, one exact name/domain/path at a time; returns how
 * many went.
 *
 * @example
 * await removeCookiesFrom(context, (c) => c.domain.endsWith('shop.example'))
 */
export const removeCookiesFrom = async (
  context: BrowserContext,
  which: (cookie: Cookie) => boolean,
): Promise<number> => {
  const doomed = (await context.cookies()).map(toCookie).filter(which)
  await Promise.all(doomed.map((c) => context.clearCookies({ name: c.name, domain: c.domain, path: c.path })))
  return doomed.length
}

/**
 * Clears localStorage of the origins the predicate accepts: pending ones are dropped, stored
 * ones are cleared with CDP `Storage.clearDataForOrigin` through a page of this context (that
 * session's storage partition is the context's, so other contexts keep theirs).
 *
 * @example
 * await clearOriginsIn(context, pending, book, (o) => o === 'https://a.example', () => anyPage())
 */
export const clearOriginsIn = async (
  context: BrowserContext,
  pending: PendingLocalStorage,
  book: LocalStorageBook,
  which: (origin: string) => boolean,
  aPage: () => Promise<QuietPage>,
): Promise<void> => {
  pending.drop(which)
  const origins = book.clearable(which)
  if (origins.length === 0) return
  const { page, done } = await aPage()
  try {
    await withSession(context, page, async (session) => {
      for (const origin of origins)
        await session.send('Storage.clearDataForOrigin', { origin, storageTypes: 'local_storage' })
    })
    // Documents of those origins that are open right now drop their copy too.
    await Promise.all(
      context.pages().flatMap((p) =>
        p
          .frames()
          .filter((f) => origins.includes(originOf(f.url()) ?? ''))
          // A string: no transform reaches it (ADR 0018: a transform's helpers do not exist in a page).
          .map((f) => f.evaluate('localStorage.clear()').catch(() => undefined)),
      ),
    )
    for (const origin of origins) book.record(origin, [])
  } finally {
    await done()
  }
}

/** The origin of a URL: the runtimes' one `originOf` (undefined for an opaque one). */
export { originOf }
