/**
 * The words the session verbs speak (docs/architecture.md, "The seam"): a conversation, the context it browses
 * in, what a face may see of its errand, how a person's hand-back ended, and an ask of a person.
 */
import type { AskKind, AskOutcome, ErrandReason } from '@errands/machines'
import type { ContextId, UpstreamProxy } from '@errands/runtime'

export type { AskKind, AskOutcome }

/**
 * A conversation: a chat a person talks in, or a task (helpers are tasks too, E1).
 *
 * @example
 * const task: Conversation = { id: 'research-42', kind: 'task' }
 * const helper: Conversation = { id: 'research-42/h1', kind: 'task', helper: true }
 */
export interface Conversation {
  readonly id: string
  readonly kind: 'task' | 'chat'
  readonly helper?: boolean | undefined
  /**
   * For a helper: the conversation that fanned it out (the live view shows it under that one),
   * e.g. a DevTools client's `browser.newContext()` in errand `session:k1` opens helper
   * `session:k1/devtools-1` with parent `session:k1`. Kept while the host runs; a helper parked
   * across a restart comes back without it.
   */
  readonly parent?: string | undefined
  /**
   * The upstream proxy its errand leaves through (issue #21), e.g.
   * `Redacted.make('http://user:pass@proxy.example:3128')`. Taken when the conversation is first
   * opened (or again after `release`); change it with `setUpstreamProxy`. A secret: never in a
   * view, a log, health or the journal; sealed with the errand when it parks.
   */
  readonly upstreamProxy?: UpstreamProxy | undefined
}

/** Which context a conversation browses in right now. */
export interface Binding {
  readonly conversationId: string
  readonly contextId: ContextId
  /** False for a chat on the person's main context. */
  readonly isolated: boolean
}

/** What the supervisor shows about one conversation's errand (no secrets: names, ids, times). */
export interface ErrandView {
  readonly conversationId: string
  readonly kind: 'task' | 'chat'
  readonly reason: ErrandReason | 'main'
  /** `seeding`, `active`, `parking`, `parked`, `resuming`, `healing`, `closing`, `closed`, or `main`. */
  readonly state: string
  /** The full state value, e.g. `active(driver=driven,watcher=unwatched,snapshot=clean)`. */
  readonly detail: string
  readonly driven: boolean
  readonly watched: boolean
  readonly lastUsedAt: number
  readonly parkedAt: number | null
  readonly lentSites: ReadonlyArray<string>
  readonly contextId: ContextId | null
  readonly lastError: string | null
  /** A helper's parent conversation, when it has one (see `Conversation.parent`). */
  readonly parent?: string | undefined
  /** Present (true) while a person has the wheel from the live view (P1). */
  readonly personDriving?: true | undefined
  /**
   * Present while an agent of this conversation waits for the person (P3, P4): the kinds of its
   * open asks, oldest first (`help`, `sign-in`); the `detail` shows `asking=waiting` too.
   */
  readonly waiting?: ReadonlyArray<AskKind> | undefined
  /** The oldest pending request for help of an agent of this conversation (P3), while it waits. */
  readonly help?: { readonly reason: string; readonly askedAt: number; readonly expiresAt: number } | undefined
}

/**
 * How an agent's request for help ended (P3): a person handed the wheel back, with their note
 * (or null), or the time ran out.
 */
export type HandBack =
  | { readonly handedBack: true; readonly note: string | null }
  | { readonly handedBack: false; readonly reason: 'timeout' }

/** One ask of a person: its id (unique while it waits), its kind and, for a sign-in, the site. */
export interface Ask {
  readonly id: string
  readonly ask: AskKind
  readonly site?: string | undefined
}
