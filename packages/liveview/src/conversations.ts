/**
 * The conversations the live view lists (V1): each errand of this host's supervisor with its
 * tabs, and — in a cluster — the errands other hosts hold open, marked with the host that holds
 * them (issue #24). An errand held elsewhere is known here at most as a sealed copy ("parked"),
 * so the list says where it is open instead.
 *
 * @example
 * conversations.push({ ...seen, tabs, ...heldAt(elsewhere, view.conversationId) })
 */
import type { ContextId, RuntimeShape } from '@errands/runtime'
import type { ErrandView } from '@errands/sessions'
import { Effect } from 'effect'
import type { LiveConversation, LiveTab } from './protocol.ts'

/**
 * A context's tabs as the list shows them (none when it cannot be read now). @example yield* tabsOf(runtime, 'e1.1')
 */
export const tabsOf = (runtime: RuntimeShape, contextId: ContextId): Effect.Effect<ReadonlyArray<LiveTab>> =>
  runtime.tabs(contextId).pipe(
    Effect.map((tabs) => tabs.map(({ id, url, title, active }) => ({ id, url, title, active }))),
    Effect.orElseSucceed(() => [] as ReadonlyArray<LiveTab>),
  )

/** Whether a view's context has tabs worth listing. @example holdsTabs(view) // true while active or seeding */
export const holdsTabs = (view: ErrandView): boolean =>
  view.contextId !== null && view.reason !== 'main' && (view.state === 'active' || view.state === 'seeding')

/**
 * What the list says of a conversation another host holds open (and takes it out of `elsewhere`,
 * so what is left there is unknown to this host): active, on that host. Nothing for one held here.
 *
 * @example
 * heldAt(new Map([['session:k1', '127.0.0.1:7001']]), 'session:k1') // { state: 'active', heldBy: '127.0.0.1:7001' }
 */
export const heldAt = (
  elsewhere: Map<string, string>,
  conversationId: string,
): { readonly state?: string; readonly heldBy?: string } => {
  const runner = elsewhere.get(conversationId)
  if (runner === undefined) return {}
  elsewhere.delete(conversationId)
  return { state: 'active', heldBy: runner }
}

/**
 * A session errand this host has never seen (opened on another host and not sealed yet), as the
 * list shows it: a task, with nothing known here but its id.
 *
 * @example
 * unknownHere('session:k1').kind // 'task'
 */
export const unknownHere = (conversationId: string): Omit<ErrandView, 'contextId'> => ({
  conversationId,
  kind: 'task',
  reason: 'task',
  state: 'active',
  detail: 'held by another host',
  driven: false,
  watched: false,
  lastUsedAt: 0,
  parkedAt: null,
  lentSites: [],
  lastError: null,
})

/** What an errand's owner says of the person in its loop (K4): driving, waiting, a request for help. */
export type PersonFields = Pick<ErrandView, 'personDriving' | 'waiting' | 'help'>

/**
 * Marks the errands other hosts hold with what their owners say of the person (K4): whether a
 * person drives there (`driving`), or — given `view`, the owner's view of the errand — that and
 * whether an agent waits for the person there, and its request for help. One whose owner does not
 * answer within a second is shown as the agent's, waiting for nobody. Replaces the entries of
 * `conversations` in place.
 *
 * @example
 * yield* markDriving(conversations, options.wheel?.driving, options.wheel?.view)
 */
export const markDriving = (
  conversations: LiveConversation[],
  driving: ((conversationId: string) => Effect.Effect<boolean, unknown>) | undefined,
  view?: ((conversationId: string) => Effect.Effect<PersonFields, unknown>) | undefined,
): Effect.Effect<void> => {
  const ask =
    view ??
    (driving === undefined
      ? undefined
      : (id: string) => Effect.map(driving(id), (on): PersonFields => (on ? { personDriving: true } : {})))
  return ask === undefined
    ? Effect.void
    : Effect.forEach(
        conversations.map((c, i) => [c, i] as const).filter(([c]) => c.heldBy !== undefined),
        ([c, i]) =>
          Effect.map(
            Effect.orElseSucceed(Effect.timeout(ask(c.conversationId), '1 second'), (): PersonFields => ({})),
            (owner) => {
              const { personDriving: _, waiting: _w, help: _h, ...rest } = c
              conversations[i] = {
                ...rest,
                ...(owner.personDriving === true ? { personDriving: true as const } : {}),
                ...(owner.waiting !== undefined && owner.waiting.length > 0 ? { waiting: owner.waiting } : {}),
                ...(owner.help !== undefined ? { help: owner.help } : {}),
              }
            },
          ),
        { concurrency: 'unbounded', discard: true },
      )
}
