/**
 * Navigating a tab until its new document commits, and the URL a tab reports.
 *
 * @example
 * await goto(page, 30_000, 'https://shop.example/')
 * tabUrl(page) // "https://shop.example/"
 */
import type { Page } from 'playwright-core'

/** The URL each page was last asked to show (what a failed tab reports and a resume reopens). */
const intended = new WeakMap<Page, string>()

/**
 * A tab's URL; for Chromium's error page (`chrome-error://chromewebdata/`), the URL the tab was
 * asked to show, so a snapshot reopens that and not the error page.
 *
 * @example
 * tabUrl(page)
 */
export const tabUrl = (page: Page): string => {
  const url = page.url()
  return url.startsWith('chrome-error:') ? (intended.get(page) ?? 'about:blank') : url
}

/**
 * `page.goto` until commit. A failed navigation commits Chromium's error page ~100 ms after
 * `goto` rejects (measured); we wait for that commit so the next navigation is not
 * "interrupted by another navigation", and retry a navigation that such a late commit
 * interrupted anyway.
 *
 * @example
 * await goto(page, deadlineMs, url)
 */
export const goto = async (page: Page, deadlineMs: number, url: string): Promise<void> => {
  intended.set(page, url)
  for (let attempt = 0; ; attempt++) {
    try {
      await page.goto(url, { waitUntil: 'commit', timeout: deadlineMs })
      return
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      if (attempt < 2 && /interrupted by another navigation/.test(message)) continue
      if (/net::ERR_/.test(message) && !page.url().startsWith('chrome-error:')) {
        await page
          .waitForEvent('framenavigated', {
            predicate: (f) => f === page.mainFrame() && f.url().startsWith('chrome-error:'),
            timeout: 2_000,
          })
          .catch(() => undefined)
      }
      throw error
    }
  }
}

/**
 * Waits (at most `ms`) until a committed document has parsed, or a dialog stops it, so the title
 * `openTab` and `navigate` report is the page's and not the empty one of a document that has only
 * committed (seen under load: `navigate` to a page titled "moved" answered "").
 *
 * @example
 * await goto(page, deadlineMs, url)
 * await parsed(page)
 */
export const parsed = async (page: Page, ms = 2_000): Promise<void> => {
  let onDialog = (): void => undefined
  const dialog = new Promise<void>((resolve) => (onDialog = resolve))
  page.on('dialog', onDialog)
  try {
    await Promise.race([page.waitForLoadState('domcontentloaded', { timeout: ms }).catch(() => undefined), dialog])
  } finally {
    page.off('dialog', onDialog)
  }
}
