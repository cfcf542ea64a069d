import type { AskKind, AskOutcome, TaskStatus } from '@errands/machines'
import type { StorageState } from '@errands/runtime'
import type { Effect } from 'effect'
import type { InspectionEvent, Observer } from 'xstate'
import type { Conversation } from '@errands/sessions'
import type { SupervisorSettings } from './config.ts'

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
  /**
   * Whether this process may hold the conversation's errand open now (default: every one). A
   * cluster answers from its shard locks (K1): a runner that does not own a session's shard opens,
   * resumes and heals nothing for it — its one context is its owner's — and says
   * `ErrandUnavailable('held-elsewhere')` instead. Asked before every admission, so no face that
   * forgot to route a call to the owner can open a second context beside the owner's.
   */
  readonly holds?: ((conversationId: string) => boolean) | undefined
}
