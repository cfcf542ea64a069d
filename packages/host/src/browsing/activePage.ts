/**
 * The active tab of a session's context: found (a blank tab opened when none is left), fitted to
 * the session's viewport when it changes; and where it is (URL, title, a dialog the runtime holds
 * for the verbs). Everything goes through the runtime's page verbs (`runtime.pages`): no browser
 * library here (#24).
 */
import type { ContextId, PageVerbs, PageWhere } from '@errands/runtime'
import { Effect } from 'effect'
import { PageError } from '../errors.ts'
import type { PageSummary } from './Browsing.ts'
import { dialogView, type DialogView } from './dialog.ts'
import { fromRuntime, runtimeCall } from './pageCalls.ts'
import { publicTabId, type HostSession } from './sessions.ts'
import type { VerbCore, VerbScope } from './verbCore.ts'

/**
 * The active-page helpers of the verbs.
 *
 * @example
 * const { activePage, summary } = makeActivePage(core)
 * const { tabId } = yield* activePage(scope)
 */
export const makeActivePage = (core: VerbCore) => {
  const { runtime, deadline } = core

  /** The runtime's page verbs, or `invalid` for a runtime that cannot drive pages. */
  const verbsFor = (what: string): Effect.Effect<PageVerbs, PageError> =>
    runtime.pages === undefined
      ? Effect.fail(new PageError({ reason: 'invalid', message: `${what}: this browser cannot drive pages.` }))
      : Effect.succeed(runtime.pages)

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

  /**
   * The active tab (a blank tab is opened when the session has none left). The runtime decides
   * which tab is active (a popup, a new tab, a closed one change it); the session remembers the
   * last one so a tab is fitted to its viewport once, when it becomes the one the verbs drive.
   */
  const activePage = ({ session, contextId }: VerbScope): Effect.Effect<{ readonly tabId: string }, PageError> =>
    Effect.gen(function* () {
      const verbs = yield* verbsFor('active tab')
      const now = yield* runtimeCall('active tab', deadline, verbs.activeTab(contextId))
      const cached = session.active
      if (cached && cached.contextId === contextId && cached.tabId === now) return cached
      const tabs = yield* Effect.mapError(runtime.tabs(contextId), fromRuntime)
      const tab =
        tabs.find((t) => t.active) ??
        tabs[0] ??
        (yield* Effect.mapError(runtime.openTab(contextId, 'about:blank'), fromRuntime))
      session.active = { contextId, tabId: tab.id }
      yield* fitViewport(session, contextId, tab.id)
      return session.active
    })

  /** The dialog the runtime holds for the verbs in a context, if any (#22). */
  const heldDialog = (session: HostSession, contextId: ContextId): Effect.Effect<DialogView | null> =>
    runtime.pages === undefined
      ? Effect.succeed(null)
      : Effect.map(runtime.pages.dialog(contextId), (d) =>
          d === undefined ? null : dialogView(d, (id) => publicTabId(session, id)),
        )

  /**
   * Where a tab is. A dialog held on the tab is said instead of waiting for the title it blocks
   * (unless `dialogs` is false: a navigation's summary, as before #24); `where`, when the caller
   * already read it (a history step), is used as is.
   */
  const summary = (
    session: HostSession,
    contextId: ContextId,
    tabId: string,
    options: { readonly dialogs?: boolean; readonly where?: PageWhere | undefined } = {},
  ): Effect.Effect<PageSummary, PageError> =>
    Effect.gen(function* () {
      const verbs = yield* verbsFor('title')
      const { where } = options
      const dialog = options.dialogs === false ? null : yield* heldDialog(session, contextId)
      if (dialog !== null && dialog.tab === publicTabId(session, tabId)) {
        const url = where?.url ?? (yield* runtimeCall('url', deadline, verbs.url(contextId, tabId)))
        return { url, title: '', tab: dialog.tab, dialog }
      }
      const { url, title } = where ?? (yield* runtimeCall('title', deadline, verbs.where(contextId, tabId)))
      return { url, title, tab: publicTabId(session, tabId) }
    })

  return { verbsFor, fitViewport, activePage, heldDialog, summary }
}
