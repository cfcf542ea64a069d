/**
 * The supervisor's actors: registering a conversation, spawning its errand actor and following
 * the actor's states (the context index, crash warnings, traces and change listeners).
 */
import type { errandMachine, ErrandEvent } from '@errands/machines'
import { Effect } from 'effect'
import { createActor } from 'xstate'
import type { XStateClock } from '@errands/sessions'
import type { SupervisorCore } from './core.ts'
import { UnknownConversation } from '@errands/sessions'
import { words } from './health.ts'
import type { Conversation } from '@errands/sessions'
import { stateString, viewOf, type Entry, type ErrandActor, type ErrandSnapshot } from './views.ts'

/** What a parked errand's actor starts from when it comes back from the store (E5). */
export interface ParkedStart {
  readonly parkedAt: number
  readonly lentSites: ReadonlyArray<string>
}

/** The supervisor's actors: see {@link makeActors}. */
export type Actors = ReturnType<typeof makeActors>

/**
 * The actors of one supervisor, spawning actors of `machine` on `clock`. `healWatched` is called
 * when a watched errand's actor enters `healing.waiting` (H2).
 *
 * @example
 * const actors = makeActors(core, machine, clock, (entry, actor) => admission.healWatched(entry, actor))
 * actors.spawn(actors.register({ id: 'task-1', kind: 'task' }))
 */
export const makeActors = (
  core: SupervisorCore,
  machine: typeof errandMachine,
  clock: XStateClock,
  healWatched: (entry: Entry, actor: ErrandActor) => void,
) => {
  const { runtime, options, settings, health, entries, byContext, changeListeners, now } = core

  const onSnapshot = (entry: Entry, actor: ErrandActor, snapshot: ErrandSnapshot) => {
    if (entry.actor !== actor) return
    for (const [id, e] of byContext) if (e === entry && id !== snapshot.context.contextId) byContext.delete(id)
    if (snapshot.context.contextId !== null) byContext.set(snapshot.context.contextId, entry)
    const state = snapshot.status === 'done' ? 'closed' : stateString(snapshot.value)
    if (state === entry.lastState) return
    entry.lastState = state
    if (state === 'healing.waiting' && snapshot.context.watchers > 0) healWatched(entry, actor)
    // Crashed again soon after a heal: the machine backs off; say so, so nobody waits blindly.
    if (state === 'healing.cooling')
      health.add({ at: now(), level: 'warning', text: words.crashedAgain, conversationId: entry.conversation.id })
    options.trace?.({ t: now(), conversationId: entry.conversation.id, state })
    const view = viewOf(entry, runtime.mainContext)
    for (const listener of changeListeners) listener(view)
  }

  /** Starts a new actor for the entry (a parked one when `parked` is given) and follows its states. */
  const spawn = (entry: Entry, parked?: ParkedStart): ErrandActor => {
    const conversation = entry.conversation
    const actor = createActor(machine, {
      id: `errand:${conversation.id}`,
      clock,
      ...(options.inspect ? { inspect: options.inspect } : {}),
      input: {
        errandId: conversation.id,
        conversationId: conversation.id,
        kind: conversation.kind,
        reason: conversation.kind === 'chat' ? 'own-browser' : conversation.helper ? 'helper' : 'task',
        now: now(),
        parkedAt: parked?.parkedAt,
        lentSites: parked?.lentSites,
        snapshotDebounceMs: settings.snapshotDebounceMs,
        maxHeals: options.maxHeals,
        healBackoffMs: options.healBackoffMs,
        healWindowMs: options.healWindowMs,
      },
    })
    entry.actor = actor
    entry.lastState = undefined
    actor.subscribe({ next: (s) => onSnapshot(entry, actor, s), error: () => undefined })
    actor.start()
    return actor
  }

  /** Sends `event` to the entry's actor, if it is still running. */
  const send = (entry: Entry, event: ErrandEvent) => {
    const actor = entry.actor
    if (actor !== undefined && actor.getSnapshot().status === 'active') actor.send(event)
  }

  /** The entry of a known conversation, or `UnknownConversation`. */
  const entryOf = (conversationId: string) =>
    Effect.suspend(() => {
      const entry = entries.get(conversationId)
      return entry === undefined
        ? Effect.fail(
            new UnknownConversation({
              reason: 'unknown-conversation',
              conversationId,
              message: `No conversation "${conversationId}" is known; open it first.`,
            }),
          )
        : Effect.succeed(entry)
    })

  /** The conversation's entry, made on first sight (no actor yet). */
  const register = (conversation: Conversation): Entry => {
    const existing = entries.get(conversation.id)
    if (existing !== undefined) return existing
    const entry: Entry = { conversation, ownBrowser: false, actor: undefined, driving: [], lastState: undefined }
    entries.set(conversation.id, entry)
    return entry
  }

  return { register, entryOf, send, spawn }
}
