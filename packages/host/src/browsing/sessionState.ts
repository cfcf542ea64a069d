/**
 * The `state` verb: what is — lifecycle, where the active tab is, tabs, viewport, lent sites, a
 * held dialog, input and frame counters — without opening, resuming or driving anything. A parked
 * errand's URL is read from its sealed record.
 */
import type { Snapshot } from '@errands/runtime'
import { Effect, Option } from 'effect'
import { conversationIdOf } from '../sessionKey.ts'
import type { makeActivePage } from './activePage.ts'
import type { BrowsingError, SessionState, Target } from './Browsing.ts'
import { fromRuntime } from './pageCalls.ts'
import type { makeTabViews } from './tabViews.ts'
import type { VerbCore } from './verbCore.ts'

/**
 * The `state` verb.
 *
 * @example
 * const state = makeSessionState(core, activePage, tabViews)
 * const { lifecycle, url } = yield* state(sessionTarget(key))
 */
export const makeSessionState = (
  core: VerbCore,
  active: ReturnType<typeof makeActivePage>,
  views: ReturnType<typeof makeTabViews>,
) => {
  const { sessions, runtime, store, book } = core
  const { heldDialog } = active
  const { tabView } = views

  /** What is, without opening, resuming or driving anything. */
  const state = (target: Target): Effect.Effect<SessionState, BrowsingError> =>
    Effect.gen(function* () {
      const session = target._tag === 'main' ? book.main : book.peek(target.key)
      const base = {
        input: { events: session?.inputEvents ?? 0 },
        frame: { seq: 0, at: null as number | null },
      }
      const conversationId = target._tag === 'session' ? conversationIdOf(target.key) : undefined
      const view =
        conversationId === undefined
          ? undefined
          : Option.getOrUndefined(yield* Effect.option(sessions.view(conversationId)))
      const empty: SessionState = {
        ...base,
        lifecycle: view?.state ?? 'none',
        url: null,
        title: null,
        tabs: [],
        viewport: session?.viewport ?? null,
        lentSites: view?.lentSites ?? [],
        lastUsedAt: view?.lastUsedAt ?? null,
        dialog: null,
      }
      if (conversationId !== undefined && view === undefined) return empty
      const contextId = conversationId === undefined ? runtime.mainContext : sessions.contextOf(conversationId)
      if (contextId === undefined) {
        if (view?.state !== 'parked' && view?.state !== 'frozen') return empty
        // Parked: where it will come back to, from the sealed record (read, never resumed). Frozen:
        // from its last snapshot, its pages untouched (a read is no use and does not thaw it, C4).
        const record = yield* Effect.option(Effect.flatten(store.get(conversationId!)))
        const snapshot: Snapshot | undefined = Option.isSome(record)
          ? record.value.snapshot
          : sessions.lastSnapshot(conversationId!)
        return { ...empty, url: snapshot?.tabs.find((t) => t.active)?.url ?? snapshot?.tabs[0]?.url ?? null }
      }
      const dialog = yield* heldDialog(session ?? book.main, contextId)
      const live = Effect.gen(function* () {
        const record = session ?? book.main
        const tabs = yield* Effect.mapError(runtime.tabs(contextId), fromRuntime)
        const active = tabs.find((t) => t.active) ?? tabs[0]
        // The viewport is the runtime's bookkeeping (no page is asked): it never waits on a busy page.
        const size = active
          ? yield* Effect.orElseSucceed(runtime.pages.viewport(contextId, active.id), () => undefined)
          : undefined
        return {
          ...empty,
          lifecycle: view?.state ?? 'main',
          url: active?.url ?? null,
          title: active?.title ?? null,
          tabs: tabs.map((t) => tabView(record, t)),
          viewport: size ?? session?.viewport ?? null,
          // The cast and its frames are the runtime's (no page is asked).
          frame: yield* runtime.pages.frames(contextId),
          dialog,
        } satisfies SessionState
      })
      // The context may close while we look (parked by the sweep, released): report the view then.
      return yield* live.pipe(Effect.catchAll(() => Effect.succeed({ ...empty, dialog })))
    })

  return state
}
