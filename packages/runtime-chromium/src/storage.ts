/**
 * Cookies and localStorage of one Playwright context, in the runtime's shapes (no IndexedDB,
 * no passkeys — L4).
 *
 * @example
 * const state = await readStorage(context, pending)
 */
import type { Cookie, OriginStorage, StorageState } from '@errands/runtime'
import type { BrowserContext, Page } from 'playwright-core'
import type { PendingLocalStorage } from './localStorageRestore.ts'

type PlaywrightCookie = Awaited<ReturnType<BrowserContext['cookies']>>[number]

const toCookie = (c: PlaywrightCookie): Cookie => ({
  name: c.name, value: c.value, domain: c.domain, path: c.path, expires: c.expires,
  httpOnly: c.httpOnly, secure: c.secure, sameSite: c.sameSite,
})

/**
 * Our cookies in the shape `context.addCookies` takes.
 *
 * @example
 * await context.addCookies(toPlaywrightCookies(state.cookies))
 */
export const toPlaywrightCookies = (cookies: ReadonlyArray<Cookie>): Array<PlaywrightCookie> =>
  cookies.map((c) => ({
    name: c.name, value: c.value, domain: c.domain, path: c.path, expires: c.expires,
    httpOnly: c.httpOnly, secure: c.secure, sameSite: c.sameSite,
  }))

/**
 * The context's cookies and localStorage as Chromium holds them (`storageState({ indexedDB:
 * false })`, origins without items left out). Never IndexedDB (L4).
 *
 * @example
 * const { cookies, origins } = await readContextStorage(context)
 */
export const readContextStorage = async (context: BrowserContext): Promise<{ cookies: Array<Cookie>; origins: Array<OriginStorage> }> => {
  const state = await context.storageState({ indexedDB: false })
  return {
    cookies: state.cookies.map(toCookie),
    origins: state.origins
      .filter((o) => o.localStorage.length > 0)
      .map((o) => ({ origin: o.origin, localStorage: o.localStorage.map((i) => ({ name: i.name, value: i.value })) })),
  }
}

/**
 * {@link readContextStorage}, plus the origins restored into the context that no document has
 * opened yet (still pending).
 *
 * @example
 * const { cookies, origins } = await readStorage(context, pending)
 */
export const readStorage = async (context: BrowserContext, pending: PendingLocalStorage): Promise<StorageState> => {
  const { cookies, origins } = await readContextStorage(context)
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
export const removeCookiesFrom = async (context: BrowserContext, which: (cookie: Cookie) => boolean): Promise<number> => {
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
 * await clearOriginsIn(context, pending, (o) => o === 'https://a.example', () => anyPage())
 */
export const clearOriginsIn = async (
  context: BrowserContext,
  pending: PendingLocalStorage,
  which: (origin: string) => boolean,
  aPage: () => Promise<{ readonly page: Page; readonly done: () => Promise<void> }>,
): Promise<void> => {
  pending.drop(which)
  const stored = (await context.storageState({ indexedDB: false })).origins
    .filter((o) => o.localStorage.length > 0 && which(o.origin))
    .map((o) => o.origin)
  if (stored.length === 0) return
  const { page, done } = await aPage()
  try {
    const session = await context.newCDPSession(page)
    try {
      for (const origin of stored) {
        await session.send('Storage.clearDataForOrigin', { origin, storageTypes: 'local_storage' })
      }
    } finally {
      await session.detach().catch(() => undefined)
    }
    // Documents of those origins that are open right now drop their copy too.
    await Promise.all(
      context.pages().flatMap((p) =>
        p.frames()
          .filter((f) => stored.includes(originOf(f.url())))
          .map((f) => f.evaluate('localStorage.clear()').catch(() => undefined)), // a string: no transform reaches it (#22)
      ),
    )
  } finally {
    await done()
  }
}

/**
 * The origin of a URL (`'null'` for opaque ones and for what does not parse).
 *
 * @example
 * originOf('http://shop.example:8080/a?b') // 'http://shop.example:8080'
 */
export const originOf = (url: string): string => {
  try {
    return new URL(url).origin
  } catch {
    return 'null'
  }
}
