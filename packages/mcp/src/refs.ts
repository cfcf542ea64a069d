/**
 * Element refs of accessibility snapshots (Playwright's `ariaSnapshot({ mode: 'ai' })`, whose
 * YAML tags elements `[ref=e5]`; Playwright's `aria-ref=e5` selector resolves a ref against the
 * latest snapshot taken in the element's frame).
 *
 * Playwright keeps a ref for an element across snapshots and gives refs of a new document a new
 * prefix (`f1e2`), but a ref that no longer resolves makes an action wait for its whole timeout.
 * So the book remembers, per page, the refs of the latest snapshot, and every ref is checked
 * before it is used: not in the latest snapshot, or its element gone since → {@link StaleRef}
 * at once, with words that tell the model to take a new snapshot. The book is keyed by the page
 * object, so a tab that was parked and resumed, or healed, has no snapshot until one is taken.
 *
 * @example
 * const book = new RefBook()
 * const yaml = await book.snapshot(page)     // remembers its refs
 * const stale = await book.check(page, 'e5', 'Add to basket button')
 * if (stale === undefined) await book.locator(page, 'e5').click()
 */
import type { Locator, Page } from 'playwright-core'
import { StaleRef } from './errors.ts'

/** The longest snapshot returned (characters); the rest is cut and said so. @example yaml.slice(0, MAX_SNAPSHOT) */
export const MAX_SNAPSHOT = 200_000

const REF = /\[ref=([A-Za-z0-9]+)\]/g

/**
 * The refs a snapshot names, in order.
 *
 * @example
 * refsOf('- button "Add" [ref=e3]\n- link "Home" [ref=f1e2]') // ['e3', 'f1e2']
 */
export const refsOf = (yaml: string): ReadonlyArray<string> => [...yaml.matchAll(REF)].map((m) => m[1]!)

/**
 * The refs of the latest snapshot of each page.
 *
 * @example
 * const book = new RefBook()
 */
export class RefBook {
  private readonly latest = new WeakMap<Page, ReadonlySet<string>>()

  /**
   * Takes the page's snapshot (AI mode, with refs), remembers its refs as the page's latest, and
   * returns the YAML (cut at {@link MAX_SNAPSHOT}).
   *
   * @example
   * const { yaml, truncated } = await book.snapshot(page, 10_000)
   */
  async snapshot(page: Page, timeoutMs = 10_000): Promise<{ readonly yaml: string; readonly truncated: boolean }> {
    const yaml = await page.ariaSnapshot({ mode: 'ai', timeout: timeoutMs })
    this.latest.set(page, new Set(refsOf(yaml)))
    return { yaml: yaml.slice(0, MAX_SNAPSHOT), truncated: yaml.length > MAX_SNAPSHOT }
  }

  /**
   * Why `ref` cannot be used on `page` now, or `undefined` when it resolves to an element of the
   * latest snapshot. `element` is the model's description of it, repeated in the message.
   *
   * @example
   * const stale = await book.check(page, 'e5', 'Add button') // StaleRef | undefined
   */
  async check(page: Page, ref: string, element: string): Promise<StaleRef | undefined> {
    const refs = this.latest.get(page)
    const what = element.trim() === '' ? `ref ${ref}` : `${JSON.stringify(element.slice(0, 80))} (ref ${ref})`
    if (refs === undefined) {
      return new StaleRef({
        reason: 'no-snapshot',
        message:
          `There is no snapshot of this tab yet (it is new, or its page was reopened), so ${what} cannot be ` +
          `found; take a snapshot with browser_snapshot and use a ref from it.`,
      })
    }
    if (!refs.has(ref)) {
      return new StaleRef({
        reason: 'not-in-snapshot',
        message:
          `${what} is not in the latest snapshot of this tab — it is from an older snapshot or mistyped; take ` +
          `a new snapshot with browser_snapshot and use a ref from it.`,
      })
    }
    if ((await this.locator(page, ref).count()) === 0) {
      return new StaleRef({
        reason: 'gone',
        message:
          `${what} is no longer on the page: the page changed since the snapshot; take a new snapshot with ` +
          `browser_snapshot and use a ref from it.`,
      })
    }
    return undefined
  }

  /**
   * The element a ref names (check it first).
   *
   * @example
   * await book.locator(page, 'e5').hover({ timeout: 10_000 })
   */
  locator(page: Page, ref: string): Locator {
    return page.locator(`aria-ref=${ref}`)
  }
}
