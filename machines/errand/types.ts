/**
 * Types of the errand machine: its input, context, events and the inputs/outputs of the
 * effects it names. Only names, ids, counts and times live here — never a cookie, a storage
 * value or a URL, because the machine's snapshots and events are shown to the XState inspector
 * and written to journals (L7).
 */
import type { Timed } from '../timed.ts'

/** What a task reports about itself (E3, E4). */
export type TaskStatus = 'running' | 'done' | 'unverified' | 'stopped' | 'interrupted' | 'failed'

/** Statuses after which the errand's context closes and its session is forgotten (E3). */
export const endingStatuses: ReadonlyArray<TaskStatus> = ['done', 'unverified', 'stopped']
/** Statuses after which the errand is parked, resumable (E4). */
export const parkingStatuses: ReadonlyArray<TaskStatus> = ['interrupted', 'failed']

/** Why an errand was parked. */
export type ParkCause = 'interrupted' | 'failed' | 'capacity' | 'idle' | 'shutdown' | 'requested' | 'heal-exhausted'

/** Who drives the errand's pages: its agents, or a person who took the wheel in the live view (P1, P2). */
export type Wheel = 'agents' | 'person'

/** What an agent asked a person (P3, P4): help (a hand on the wheel) or a site's sign-in. */
export type AskKind = 'help' | 'sign-in'

/**
 * How an ask ended: the person's Allow or Deny (sign-in), a hand-back (help), the asker's time ran
 * out, or the asker stopped waiting (its call was cancelled).
 */
export type AskOutcome = 'allow' | 'deny' | 'handed-back' | 'timeout' | 'withdrawn'

/** An ask still waiting for the person: its id and kind only (the reason and site stay out, L7). */
export interface PendingAsk {
  readonly id: string
  readonly ask: AskKind
}

/** Why a conversation has a context of its own (E1, E2). */
export type ErrandReason = 'task' | 'helper' | 'own-browser'

/** A failure of an effect, as the machine keeps it: a tag, a reason and words — nothing secret. */
export interface ErrandFailure {
  readonly tag: string
  readonly reason: string
  readonly message: string
}

/** Everything needed to start an errand actor. */
export interface ErrandInput {
  readonly errandId: string
  readonly conversationId: string
  readonly kind: 'task' | 'chat'
  readonly reason: ErrandReason
  /** The time the errand is created, from the supervisor's clock. */
  readonly now: number
  /** Set when the errand starts as a parked one (after a restart): it was parked at this time. */
  readonly parkedAt?: number | undefined
  readonly lentSites?: ReadonlyArray<string> | undefined
  /** H1's debounce; a few seconds by default. */
  readonly snapshotDebounceMs?: number | undefined
  /**
   * How many heals one crash streak may take: the crash after the last of them parks the errand
   * instead (`heal-exhausted`), and it is not reopened by itself again within the streak.
   */
  readonly maxHeals?: number | undefined
  /** The pause before the n-th heal of a streak is `healBackoffMs * 2^(n-2)` (the first is immediate). */
  readonly healBackoffMs?: number | undefined
  /**
   * Crashes less than this apart (by their events' `at`) belong to one streak; a crash later than
   * that after the previous one starts a new streak. A snapshot in between does not end a streak:
   * a browser that dies every minute would otherwise heal forever (issue #9).
   */
  readonly healWindowMs?: number | undefined
}

/** What the errand actor remembers. */
export interface ErrandContext {
  readonly errandId: string
  readonly conversationId: string
  readonly kind: 'task' | 'chat'
  readonly reason: ErrandReason
  readonly contextId: string | null
  readonly drivers: number
  readonly watchers: number
  readonly lastUsedAt: number
  readonly snapshotAt: number | null
  readonly parkedAt: number | null
  readonly parkCause: ParkCause | null
  /**
   * When idleness froze the errand (the first of setting aside's two steps, C4): its context is kept,
   * its pages' lifecycle frozen; null while active, parked or anything else (docs/parking.md).
   */
  readonly frozenAt: number | null
  /** Heals started in the current crash streak (see `healWindowMs`). */
  readonly heals: number
  /** The `at` of the last crash, which decides whether the next one continues the streak. */
  readonly lastCrashAt: number | null
  readonly lentSites: ReadonlyArray<string>
  /**
   * Who has the wheel (P1): the agents, or a person from the live view. While a person drives,
   * the errand is never parked by the cap or by idleness, nor on request (C2).
   */
  readonly wheel: Wheel
  /**
   * Asks of its agents still waiting for the person (P3, P4), oldest first. While there is one,
   * idleness does not park the errand (C2); they outlive parking and healing (asking.ts).
   */
  readonly asks: ReadonlyArray<PendingAsk>
  readonly lastError: ErrandFailure | null
  /** An ending or parking asked for while a context was being opened or parked, applied after. */
  readonly pending: { readonly kind: 'close' } | { readonly kind: 'park'; readonly cause: ParkCause } | null
  readonly snapshotDebounceMs: number
  readonly maxHeals: number
  readonly healBackoffMs: number
  readonly healWindowMs: number
}

/** Events the errand machine understands. `at` is the supervisor's clock time of the input. */
export type ErrandEvent =
  | Timed<'task.changed', { readonly status: TaskStatus }>
  | Timed<'errand.evict', { readonly cause: 'capacity' | 'idle' }>
  | Timed<'sites.changed', { readonly lentSites: ReadonlyArray<string> }>
  | Timed<'chat.deleted' | 'errand.resume' | 'errand.used' | 'errand.close' | 'errand.park' | 'system.shutdown'>
  | Timed<'page.loaded' | 'driver.attached' | 'driver.detached' | 'watcher.attached' | 'watcher.detached'>
  | Timed<'context.crashed' | 'browser.crashed'>
  | Timed<'wheel.taken' | 'wheel.handedBack'>
  | Timed<'person.asked', { readonly id: string; readonly ask: AskKind }>
  | Timed<'person.answered', { readonly id: string; readonly outcome: AskOutcome }>

/** The errand as its effects see it (ids and names only). */
export interface EffectInput {
  readonly errandId: string
  readonly conversationId: string
  readonly kind: 'task' | 'chat'
  readonly reason: ErrandReason
  readonly lentSites: ReadonlyArray<string>
  /** The open context, when there is one. */
  readonly contextId: string | null
}

/** `restoreSnapshot` input: from the sealed store (`parked`) or the last in-memory snapshot (`snapshot`, healing). */
export interface RestoreInput extends EffectInput {
  readonly source: 'parked' | 'snapshot'
}

/** `sealAndPark` input: seals a fresh snapshot of `contextId`, or the last snapshot when it is null. */
export interface ParkInput extends EffectInput {
  readonly cause: ParkCause
  /** Whether the context's pages may be frozen (parked from `frozen`): the effect thaws them before reading. */
  readonly frozen: boolean
}

/** What `openContext` and `restoreSnapshot` return. */
export interface OpenedContext {
  readonly contextId: string
  /** The sites whose sign-ins the new context holds (seeded or restored), when known. */
  readonly lentSites?: ReadonlyArray<string> | undefined
}

/** What `takeSnapshot` returns: when the snapshot was taken. */
export interface SnapshotTaken {
  readonly takenAt: number
}

/** What `sealAndPark` returns: when the errand was parked. */
export interface Parked {
  readonly parkedAt: number
}
