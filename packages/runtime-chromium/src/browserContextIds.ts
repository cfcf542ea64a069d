/**
 * A context's CDP browser context id, which Playwright does not expose: a page's target info
 * carries it. Cached, since a context keeps its id for life.
 */
import { RuntimeError } from '@errands/runtime'
import type { BrowserContext } from 'playwright-core'
import type { ContextEntry } from './contextEntry.ts'
import type { QuietPage } from './storage.ts'

/**
 * The browser context ids of one runtime's contexts.
 *
 * @example
 * const ids = new BrowserContextIds()
 * const id = await ids.of(entry, () => this.quietPage(entry))
 */
export class BrowserContextIds {
  private readonly contextIds = new WeakMap<BrowserContext, string>()

  /**
   * The context's id, read once through a page `quietPage` gives (inside the entry's `pageWork`). @example await
   * ids.of(entry, quietPage)
   */
  /** The context's id when it was read already (no page is asked). @example ids.known(entry) */
  known(entry: ContextEntry): string | undefined {
    return this.contextIds.get(entry.context)
  }

  async of(entry: ContextEntry, quietPage: () => Promise<QuietPage>): Promise<string> {
    const known = this.contextIds.get(entry.context)
    if (known !== undefined) return known
    const { page, done } = await entry.pageWork.run(quietPage)
    try {
      const session = await entry.context.newCDPSession(page)
      const { targetInfo } = await session.send('Target.getTargetInfo')
      await session.detach().catch(() => undefined)
      const id = targetInfo.browserContextId
      if (id === undefined)
        throw new RuntimeError({ reason: 'unavailable', message: `context ${entry.id} reports no browser context id` })
      this.contextIds.set(entry.context, id)
      return id
    } finally {
      await done()
    }
  }
}
