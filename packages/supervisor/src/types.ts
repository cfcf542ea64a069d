import type { AskKind, AskOutcome, ErrandReason, TaskStatus } from '@errands/machines'
import type { ContextId, StorageState, UpstreamProxy } from '@errands/runtime'
import type { Effect } from 'effect'
import type { InspectionEvent, Observer } from 'xstate'
import type { SupervisorSettings } from './config.ts'

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

/** A new errand's seed: a copy of the main context's storage for the always-allowed sites (L1). */
export interface Seed {
  readonly storage: StorageState
  readonly lentSites: ReadonlyArray<string>
}

/** One line of a state trace: at time `t`, conversation `conversationId`'s errand entered `state`. */
export interface TraceLine {
  readonly t: number
  readonly conversationId: string
  readonly state: string
}

/** One recorded input of the supervisor (T1). Times are the supervisor clock's milliseconds. */
export type JournalEntry =
  | { readonly t: number; readonly op: 'open'; readonly conversation: Conversation }
  | { readonly t: number; readonly op: 'drive' | 'undrive' | 'watch' | 'unwatch'; readonly conversationId: string }
  | { readonly t: number; readonly op: 'task'; readonly conversationId: string; readonly status: TaskStatus }
  | { readonly t: number; readonly op: 'chat.deleted' | 'park' | 'resume' | 'release'; readonly conversationId: string }
  | { readonly t: number; readonly op: 'own-browser'; readonly conversationId: string; readonly on: boolean }
  | { readonly t: number; readonly op: 'page.loaded' | 'context.crashed'; readonly conversationId: string }
  | { readonly t: number; readonly op: 'wheel.take' | 'wheel.handback'; readonly conversationId: string }
  | {
      readonly t: number
      readonly op: 'question.asked'
      readonly conversationId: string
      readonly id: string
      readonly ask: AskKind
      readonly site?: string | undefined
    }
  | {
      readonly t: number
      readonly op: 'question.answered'
      readonly conversationId: string
      readonly id: string
      readonly outcome: AskOutcome
    }
  | { readonly t: number; readonly op: 'browser.crashed' }
  | { readonly t: number; readonly op: 'shutdown' }
  | { readonly t: number; readonly op: 'advance' }

/** How the supervisor is set up. */
export interface SupervisorOptions {
  readonly settings: SupervisorSettings
  /** Receives every errand actor's inspection events (V3), e.g. `createInspector(...).inspect`. */
  readonly inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void) | undefined
  /** Receives every input as it happens, for a JSON-lines journal (T1). */
  readonly journal?: ((entry: JournalEntry) => void) | undefined
  /** Receives every state change of every errand. */
  readonly trace?: ((line: TraceLine) => void) | undefined
  /** Seeds a new errand (L1). Default: nothing — an errand starts signed in nowhere. */
  readonly seed?: ((conversation: Conversation) => Effect.Effect<Seed>) | undefined
  /** Runs the idle sweep on the clock (default true). Replay and some tests drive it by hand. */
  readonly sweep?: boolean | undefined
  /**
   * Heals per crash streak before giving up and parking (default 3), the base backoff, doubled
   * for each further heal of a streak (default 1 s), and how far apart two crashes may be to
   * belong to one streak (default 5 minutes). See docs/faults.md.
   */
  readonly maxHeals?: number | undefined
  readonly healBackoffMs?: number | undefined
  readonly healWindowMs?: number | undefined
  /**
   * Seals every debounced snapshot (H1) too, as the errand's record in the store, so another
   * process sharing the store (a cluster peer, issue #16) can heal it from there when this one
   * dies without a goodbye. Default false: snapshots stay in memory.
   */
  readonly sealSnapshots?: boolean | undefined
}
