/**
 * The runtime owns the page (docs/adr/0049-runtime-owns-the-page.md): which tab the verbs drive, its
 * viewport and input lock live there, and each page verb is one runtime call answering the page
 * summary. What is left here is the host's view of that answer (public tab ids, the held dialog
 * as the API shows it).
 */
import type { ContextId, PageSummary as RuntimeSummary } from '@errands/runtime'
import { Effect } from 'effect'
import type { PageSummary } from './Browsing.ts'
import { dialogView, type DialogView } from './dialog.ts'
import { publicTabId, type HostSession } from './sessions.ts'
import type { VerbCore } from './verbCore.ts'

/**
 * The page-summary helpers of the verbs.
 *
 * @example
 * const { summaryView } = makeActivePage(core)
 * const page = summaryView(session, yield* drive(runtime.pages.go(id, url, deadline)))
 */
export const makeActivePage = (core: VerbCore) => {
  const { runtime } = core

  /** The runtime's summary as the API shows it (the session's public tab ids). */
  const summaryView = (session: HostSession, s: RuntimeSummary): PageSummary => {
    const tab = publicTabId(session, s.tabId)
    return s.dialog === undefined
      ? { url: s.url, title: s.title, tab }
      : { url: s.url, title: '', tab, dialog: dialogView(s.dialog, (id) => publicTabId(session, id)) }
  }

  /** The dialog the runtime holds for the verbs in a context, if any (#22). */
  const heldDialog = (session: HostSession, contextId: ContextId): Effect.Effect<DialogView | null> =>
    Effect.map(runtime.pages.dialog(contextId), (d) =>
      d === undefined ? null : dialogView(d, (id) => publicTabId(session, id)),
    )

  return { summaryView, heldDialog }
}
