import { askKinds, mayEvict, type errandMachine } from '@errands/machines'
import type { Deferred } from 'effect'
import type { Actor, SnapshotFrom, StateValue } from 'xstate'
import type { Conversation, ErrandView } from '@errands/sessions'

/** A running errand actor. */
export type ErrandActor = Actor<typeof errandMachine>
/** One snapshot of an errand actor. */
export type ErrandSnapshot = SnapshotFrom<typeof errandMachine>

/**
 * A state value as one stable line: nested states joined by `.`, parallel regions in
 * parentheses with sorted keys — the form traces and golden files use.
 *
 * @example
 * stateString({ active: { driver: 'free', watcher: 'watched', snapshot: 'due' } })
 * // 'active(driver=free,snapshot=due,watcher=watched)'
 */
export const stateString = (value: StateValue): string => {
  if (typeof value === 'string') return value
  const keys = Object.keys(value).sort()
  if (keys.length === 1) {
    const key = keys[0]!
    const child = value[key]
    if (child === undefined) return key
    if (typeof child === 'string') return `${key}.${child}`
    const inner = Object.keys(child)
    return inner.length > 1
      ? `${key}(${inner
          .sort()
          .map((k) => `${k}=${stateString(child[k] as StateValue)}`)
          .join(',')})`
      : `${key}.${stateString(child)}`
  }
  return `(${keys.map((k) => `${k}=${stateString(value[k] as StateValue)}`).join(',')})`
}

/** The top-level state name of a snapshot (`closed` once the actor is done). */
export const topState = (snapshot: ErrandSnapshot): string =>
  snapshot.status === 'done'
    ? 'closed'
    : typeof snapshot.value === 'string'
      ? snapshot.value
      : Object.keys(snapshot.value)[0]!

/** What the supervisor keeps per conversation: the conversation, a chat's toggle, its errand actor. */
export interface Entry {
  readonly conversation: Conversation
  /** For chats: whether the person gave it a browser of its own (E2). Tasks are always isolated. */
  ownBrowser: boolean
  actor: ErrandActor | undefined
  /** Actors this entry's open `drive` calls attached to, innermost last. */
  readonly driving: ErrandActor[]
  lastState: string | undefined
  /** Agents waiting for a person's hand-back (P3), oldest first; see wheel.ts. */
  help?: ReadonlyArray<HelpAsked> | undefined
}

/** An agent's pending request for help: its id, its reason, and the hand-back's note once a person hands back. */
export interface HelpAsked {
  readonly id: string
  readonly reason: string
  readonly askedAt: number
  readonly expiresAt: number
  readonly answered: Deferred.Deferred<string | null>
}

/** Whether the entry's errand holds (or is opening, parking or closing) a browser context. */
export const holdsContext = (entry: Entry): boolean => {
  const snapshot = entry.actor?.getSnapshot()
  return snapshot !== undefined && snapshot.status === 'active' && snapshot.hasTag('holds-context')
}

/**
 * Whether the entry's errand is open and may be parked for `cause` (C2's candidates): nobody
 * drives or watches it, no person has the wheel (P1), and — for idleness — no agent of it waits
 * for the person (P3, P4). The machine's own guard decides, so the two never disagree.
 */
export const isEvictable = (entry: Entry, cause: 'capacity' | 'idle' = 'capacity'): boolean => {
  const snapshot = entry.actor?.getSnapshot()
  return (
    snapshot !== undefined &&
    snapshot.status === 'active' &&
    (snapshot.matches('active') || snapshot.matches('frozen')) &&
    mayEvict(snapshot.context, { type: 'errand.evict', cause, at: 0 })
  )
}

/** Whether the entry's errand is frozen: context kept, pages frozen, the first step of setting it aside (C4). */
export const isFrozen = (entry: Entry): boolean => {
  const snapshot = entry.actor?.getSnapshot()
  return snapshot !== undefined && snapshot.status === 'active' && snapshot.matches('frozen')
}

/** Whether a person has the wheel of the entry's live errand (P1). */
export const isPersonDriving = (entry: Entry): boolean => {
  const snapshot = entry.actor?.getSnapshot()
  return snapshot !== undefined && snapshot.status === 'active' && snapshot.context.wheel === 'person'
}

/** Whether an agent of the entry's live errand waits for the person (P3, P4), parked or not. */
export const isWaitingForPerson = (entry: Entry): boolean => {
  const snapshot = entry.actor?.getSnapshot()
  return snapshot !== undefined && snapshot.status === 'active' && snapshot.context.asks.length > 0
}

/** Whether the conversation browses in an errand context (tasks always, chats when toggled). */
export const isIsolated = (entry: Entry): boolean => entry.conversation.kind === 'task' || entry.ownBrowser

/** The view of one entry, for lists, health and the live view. */
export const viewOf = (entry: Entry, mainContext: string): ErrandView => {
  const conversation = entry.conversation
  const snapshot = entry.actor?.getSnapshot()
  if (snapshot === undefined || (!isIsolated(entry) && snapshot.status === 'done')) {
    return {
      conversationId: conversation.id,
      kind: conversation.kind,
      reason: 'main',
      state: 'main',
      detail: 'main',
      driven: false,
      watched: false,
      lastUsedAt: 0,
      parkedAt: null,
      lentSites: [],
      contextId: mainContext,
      lastError: null,
    }
  }
  const c = snapshot.context
  return {
    conversationId: conversation.id,
    kind: conversation.kind,
    reason: c.reason,
    state: topState(snapshot),
    detail: snapshot.status === 'done' ? 'closed' : stateString(snapshot.value),
    driven: c.drivers > 0,
    watched: c.watchers > 0,
    lastUsedAt: c.lastUsedAt,
    parkedAt: c.parkedAt,
    lentSites: c.lentSites,
    contextId: c.contextId,
    lastError: c.lastError === null ? null : `${c.lastError.tag}(${c.lastError.reason}): ${c.lastError.message}`,
    ...(c.wheel === 'person' && snapshot.status === 'active' ? { personDriving: true } : {}),
    ...(c.asks.length > 0 && snapshot.status === 'active' ? { waiting: askKinds(c) } : {}),
    ...(entry.help !== undefined && entry.help.length > 0
      ? {
          help: { reason: entry.help[0]!.reason, askedAt: entry.help[0]!.askedAt, expiresAt: entry.help[0]!.expiresAt },
        }
      : {}),
    ...(conversation.parent === undefined ? {} : { parent: conversation.parent }),
  }
}
