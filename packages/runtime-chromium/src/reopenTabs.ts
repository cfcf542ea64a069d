/**
 * Reopening a context's tabs: pages made in parallel, registered in order, loaded through the
 * guard, the active one in front — and, after a restore, what the reloads changed in the
 * context's storage put back (see `restoreDrift.ts`).
 */
import type { Decision } from '@errands/guard'
import type { ContextId, StorageState, TabSpec } from '@errands/runtime'
import type { Page } from 'playwright-core'
import type { ContextEntry } from './contextEntry.ts'
import { toRuntimeError, within } from './failures.ts'
import { putBackScript, storageDrift } from './restoreDrift.ts'
import { restoreSessionStorage } from './sessionStorage.ts'
import { originOf, toPlaywrightCookies } from './storage.ts'

/**
 * What reopening tabs needs from its runtime: its deadline and log, and the hooks it navigates,
 * registers and reads storage with.
 *
 * @example
 * const hooks: ReopenHooks<ContextEntry> = { deadlineMs, log, noun, register, checkNavigation, goto, readStorage }
 */
export interface ReopenHooks<E extends ContextEntry> {
  readonly deadlineMs: number
  readonly log: (line: string) => void
  /** How log lines name the context: `context`, `remote context`. */
  readonly noun: string
  readonly register: (entry: E, page: Page, activate: boolean, id?: string) => string
  readonly checkNavigation: (url: string, contextId: ContextId) => Promise<Decision>
  readonly goto: (page: Page, url: string) => Promise<void>
  readonly readStorage: (entry: E) => Promise<StorageState>
}

/**
 * Opens a context's tabs as `tabs` lists them (one blank tab when none), reusing `ready` pages;
 * see `ContextRuntime.openTabs`.
 *
 * @example
 * await openTabs(entry, spec.tabs, spec.storage, context.pages(), hooks)
 */
export const openTabs = async <E extends ContextEntry>(
  entry: E,
  tabs: ReadonlyArray<TabSpec> | undefined,
  sealed: StorageState | undefined,
  ready: ReadonlyArray<Page>,
  hooks: ReopenHooks<E>,
): Promise<void> => {
  const specs = tabs && tabs.length > 0 ? tabs : [{ url: 'about:blank', active: true }]
  const activeIndex = Math.max(
    0,
    specs.findIndex((t) => t.active),
  )
  entry.quietPages++
  let pages: Array<Page>
  try {
    pages = [
      ...ready.slice(0, specs.length),
      ...(await Promise.all(specs.slice(ready.length).map(() => entry.context.newPage()))),
    ]
  } finally {
    entry.quietPages--
  }
  for (const [i, page] of pages.entries()) hooks.register(entry, page, i === activeIndex, specs[i]!.id)
  // Each tab's sessionStorage, into its first document of its origin before the page's scripts run (E7).
  await Promise.all(specs.map((tab, i) => restoreSessionStorage(pages[i]!, tab.sessionStorage)))
  await Promise.all(
    specs.map(async (tab, i) => {
      if (tab.url === 'about:blank' || !(await hooks.checkNavigation(tab.url, entry.id)).allow) return
      await hooks.goto(pages[i]!, tab.url).catch((e: unknown) => {
        const failure = toRuntimeError('restore tab', e)
        if (failure.reason === 'crashed' || failure.reason === 'target-closed') throw failure
        // The tab stays, without its page: said (the origin only, never a URL's path or query).
        hooks.log(
          `${hooks.noun} ${entry.id}: a reopened tab of ${originOf(tab.url) ?? 'a page'} did not load ` +
            `(${failure.reason})`,
        )
      })
    }),
  )
  if (pages.length > 1) await pages[activeIndex]!.bringToFront()
  if (sealed && specs.some((t) => t.url !== 'about:blank')) await putBackStorage(entry, sealed, pages, hooks)
}

/**
 * After reopened tabs have loaded (their documents parsed, bounded), puts back what their
 * reloads changed in the context's storage: cookies as the record held them, localStorage of
 * each changed origin through a tab of that origin. Best effort: a failure is logged, never
 * fails the open.
 *
 * @example
 * await putBackStorage(entry, spec.storage, pages, hooks)
 */
const putBackStorage = async <E extends ContextEntry>(
  entry: E,
  sealed: StorageState,
  pages: ReadonlyArray<Page>,
  hooks: ReopenHooks<E>,
): Promise<void> => {
  const settleMs = Math.min(5_000, hooks.deadlineMs)
  try {
    await Promise.all(
      pages.map((p) => p.waitForLoadState('domcontentloaded', { timeout: settleMs }).catch(() => undefined)),
    )
    const drift = storageDrift(sealed, await hooks.readStorage(entry), Date.now() / 1000)
    if (drift.clean) return
    await Promise.all(
      drift.cookiesToRemove.map((c) => entry.context.clearCookies({ name: c.name, domain: c.domain, path: c.path })),
    )
    if (drift.cookiesToAdd.length > 0) await entry.context.addCookies(toPlaywrightCookies(drift.cookiesToAdd))
    for (const o of drift.originsToReset) {
      const page = pages.find((p) => !p.isClosed() && originOf(p.url()) === o.origin)
      if (page === undefined) {
        hooks.log(
          `${hooks.noun} ${entry.id}: localStorage of ${o.origin} changed while its tabs reopened, and no tab of it ` +
            `is left to put it back`,
        )
        continue
      }
      await within(settleMs, page.evaluate(putBackScript(o.localStorage)))
    }
    hooks.log(
      `${hooks.noun} ${entry.id}: put back what reopening its tabs changed ` +
        `(${drift.cookiesToAdd.length + drift.cookiesToRemove.length} cookies, ${drift.originsToReset.length} origins)`,
    )
  } catch (e) {
    hooks.log(
      `${hooks.noun} ${entry.id}: could not put back what reopening its tabs changed ` +
        `(${e instanceof Error ? e.message : String(e)})`,
    )
  }
}
