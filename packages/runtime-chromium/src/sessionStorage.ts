/**
 * Each tab's sessionStorage (E7): read for the origin the tab shows, and written back into the
 * reopened tab's first document of that origin before the page's scripts run — by an init script
 * of that page alone (sessionStorage belongs to one tab), dropped once that document has
 * committed so a page that clears its storage later is not refilled. Other origins of a tab's
 * history are not kept (the tab reopens on its URL, not its history).
 *
 * @example
 * const kept = await readSessionStorage(context, page)
 * await restoreSessionStorage(page, kept)
 */
import { originOf, type OriginStorage } from '@errands/runtime'
import type { BrowserContext, Page } from 'playwright-core'

/**
 * The sessionStorage a tab holds for the origin it shows, read through a CDP session of it (out of
 * the page's scripts' reach); undefined when it shows no origin or holds nothing.
 *
 * @example
 * await readSessionStorage(context, page) // { origin: 'https://a.example', localStorage: [{ name, value }] }
 */
export const readSessionStorage = async (context: BrowserContext, page: Page): Promise<OriginStorage | undefined> => {
  const origin = originOf(page.url())
  if (origin === undefined || !/^https?:/.test(origin)) return undefined
  const session = await context.newCDPSession(page)
  try {
    const { entries } = await session.send('DOMStorage.getDOMStorageItems', {
      storageId: { storageKey: `${origin}/`, isLocalStorage: false },
    })
    return entries.length === 0
      ? undefined
      : { origin, localStorage: entries.map(([name, value]) => ({ name: name!, value: value! })) }
  } finally {
    await session.detach().catch(() => undefined)
  }
}

/**
 * The init script that fills a top-level document of `storage.origin` whose sessionStorage is
 * empty. A string, not a function: no loader transform can reach what runs in the page (#22).
 *
 * @example
 * await page.addInitScript({ content: sessionStorageScript(kept) })
 */
export const sessionStorageScript = (storage: OriginStorage): string => `
(function (w) {
  try {
    if (w.top !== w.self || w.location.origin !== ${JSON.stringify(storage.origin)}) return;
    var s = w.sessionStorage;
    if (s.length !== 0) return;
    var items = ${JSON.stringify(storage.localStorage.map((i) => [i.name, i.value]))
      .replace(/</g, '\\u003c')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029')};
    for (var i = 0; i < items.length; i++) s.setItem(items[i][0], items[i][1]);
  } catch (e) { /* storage may be disabled for this document: nothing to restore into */ }
})(typeof window !== 'undefined' ? window : globalThis);
`

/**
 * Puts a tab's sessionStorage back into its page before it navigates: an init script of that
 * page, removed once a top-level document of the origin has committed.
 *
 * @example
 * await restoreSessionStorage(page, spec.sessionStorage)
 */
export const restoreSessionStorage = async (page: Page, storage: OriginStorage | undefined): Promise<void> => {
  if (storage === undefined || storage.localStorage.length === 0 || originOf(storage.origin) === undefined) return
  const script = await page.addInitScript({ content: sessionStorageScript(storage) })
  const committed = (frame: { url(): string }) => {
    if (frame !== page.mainFrame() || originOf(frame.url()) !== storage.origin) return
    page.off('framenavigated', committed)
    void script.dispose().catch(() => undefined)
  }
  page.on('framenavigated', committed)
}
