/**
 * The active page of a session's context: found (a blank tab opened when none is left), cached
 * until a popup or a new context replaces it, fitted to the session's viewport; and where it is
 * (URL, title, a dialog the runtime holds for the verbs).
 */
import type { ContextId } from '@errands/runtime'
import { Effect } from 'effect'
import type { Page } from 'playwright-core'
import { PageError } from '../errors.ts'
import type { PageSummary } from './Browsing.ts'
import { dialogView, type DialogView } from './dialog.ts'
import { fromRuntime, pageCall, runtimeCall } from './pageCalls.ts'
import { publicTabId, type HostSession } from './sessions.ts'
import type { VerbCore, VerbScope } from './verbCore.ts'

/**
 * The active-page helpers of the verbs.
 *
 * @example
 * const { activePage, summary } = makeActivePage(core)
 * const { tabId, page } = yield* activePage(scope)
 */
export const makeActivePage = (core: VerbCore) => {
  const { runtime, pages, deadline } = core

  /** Sizes a tab to the session's viewport, through the runtime's page verbs. */
  const fitViewport = (session: HostSession, contextId: ContextId, tabId: string) =>
    Effect.gen(function* () {
      const want = session.viewport
      const verbs = runtime.pages
      if (want === undefined || verbs === undefined) return
      const have = yield* runtimeCall('viewport', deadline, verbs.viewport(contextId, tabId))
      if (have?.width === want.width && have.height === want.height) return
      yield* runtimeCall('set viewport', deadline, verbs.setViewport(contextId, tabId, want))
    })

  const watchContext = (session: HostSession, contextId: ContextId) => {
    const context = pages.browserContextOf(contextId)
    if (context === undefined || session.watched.has(context)) return
    session.watched.add(context)
    // A popup becomes the active tab in the runtime: forget the cached one.
    context.on('page', () => {
      if (session.active?.contextId === contextId) session.active = undefined
    })
  }

  /** The active tab's page (a blank tab is opened when the session has none left). */
  const activePage = ({ session, contextId }: VerbScope): Effect.Effect<{ readonly tabId: string; readonly page: Page }, PageError> =>
    Effect.gen(function* () {
      const cached = session.active
      if (cached && cached.contextId === contextId && !cached.page.isClosed() && pages.pageOf(contextId, cached.tabId) === cached.page) {
        return cached
      }
      watchContext(session, contextId)
      const tabs = yield* Effect.mapError(runtime.tabs(contextId), fromRuntime)
      const tab = tabs.find((t) => t.active) ?? tabs[0] ?? (yield* Effect.mapError(runtime.openTab(contextId, 'about:blank'), fromRuntime))
      const page = pages.pageOf(contextId, tab.id)
      if (page === undefined) return yield* new PageError({ reason: 'target-closed', message: 'The tab closed while the call ran; call again.' })
      session.active = { contextId, tabId: tab.id, page }
      yield* fitViewport(session, contextId, tab.id)
      return session.active
    })

  /** The dialog the runtime holds for the verbs in a context, if any (#22). */
  const heldDialog = (session: HostSession, contextId: ContextId): DialogView | null => {
    const d = pages.pendingDialog?.(contextId)
    return d === undefined ? null : dialogView(d, (id) => publicTabId(session, id))
  }

  const summary = (session: HostSession, tabId: string, page: Page, contextId?: ContextId): Effect.Effect<PageSummary, PageError> => {
    // A held dialog blocks the page's scripts (its title too): say so instead of waiting.
    const dialog = contextId === undefined ? null : heldDialog(session, contextId)
    if (dialog !== null && dialog.tab === publicTabId(session, tabId)) return Effect.succeed({ url: page.url(), title: '', tab: dialog.tab, dialog })
    return Effect.map(pageCall('title', deadline, () => page.title()), (title) => ({ url: page.url(), title, tab: publicTabId(session, tabId) }))
  }

  return { fitViewport, watchContext, activePage, heldDialog, summary }
}
