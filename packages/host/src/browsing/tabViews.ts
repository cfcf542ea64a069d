/**
 * A session's tabs as the verbs show them: public tab ids (never another session's), the label
 * each carries, and a public id taken back to the runtime's.
 */
import type { TabInfo } from '@errands/runtime'
import { Effect } from 'effect'
import { TabNotFound } from '../errors.ts'
import type { Target, TabView } from './Browsing.ts'
import { fromRuntime } from './pageCalls.ts'
import { parseTabId, publicTabId, type HostSession } from './sessions.ts'
import type { VerbCore, VerbScope } from './verbCore.ts'

/**
 * `tabView`, `tabViews` (the context's tabs) and `ownTab` (a public id of this session's).
 *
 * @example
 * const { tabViews } = makeTabViews(core)
 * yield* tabViews(scope)
 */
export const makeTabViews = (core: VerbCore) => {
  const { runtime, book } = core

  const tabView = (session: HostSession, t: TabInfo): TabView => ({
    id: publicTabId(session, t.id),
    url: t.url,
    title: t.title,
    active: t.active,
    reason: t.session.reason,
    lentSites: t.session.lentSites,
  })

  const tabViews = ({ session, contextId }: VerbScope) =>
    Effect.map(Effect.mapError(runtime.tabs(contextId), fromRuntime), (tabs) => tabs.map((t) => tabView(session, t)))

  /** A tab id of this session, or `TabNotFound` (another session's ids are never accepted). */
  const ownTab = (target: Target, publicId: string): Effect.Effect<string, TabNotFound> => {
    // A key without a record has never listed a tab: nothing of its own can match.
    const session = target._tag === 'main' ? book.main : book.peek(target.key)
    const tabId = session === undefined ? undefined : parseTabId(session, publicId)
    return tabId !== undefined
      ? Effect.succeed(tabId)
      : Effect.fail(
          new TabNotFound({
            reason: 'unknown-tab',
            message: `This session has no tab ${publicId}; list its tabs with GET /v1/tabs.`,
          }),
        )
  }

  return { tabView, tabViews, ownTab }
}
