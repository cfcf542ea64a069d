/**
 * Types of the Daily Browser lease machine (D1–D6): one actor per pairing code, from the code
 * the person creates for one bot to the end of the one lease it allows.
 *
 * Only ids, counts, times and an opaque fence live here — never the pairing code, the Bearer
 * token, the shared page's URL or its text — because snapshots and events are shown to the
 * XState inspector and written to journals (L7). The service passes the fence as a digest of
 * the shared document's URL and document id, so the machine can compare without knowing either.
 */
import type { Timed } from '../timed.ts'

/**
 * Why a lease ended. The final state it ends in follows from the cause:
 * `returned` ← `return`; `expired` ← `pairing-expired` | `lease-limit`; `revoked` ← the rest.
 *
 * @example
 * const cause: LeaseEndCause = 'navigation' // the shared tab reloaded or navigated
 */
export type LeaseEndCause =
  /** The extension or the person pressed Return. */
  | 'return'
  /** The shared tab reloaded or navigated (same-document navigations included). */
  | 'navigation'
  /** The shared tab was closed (or replaced, or discarded). */
  | 'tab-closed'
  /** The person removed the bot's Browser Access. */
  | 'access-removed'
  /** The bot's browser target changed away from this Daily Browser lease. */
  | 'target-changed'
  /** The host is shutting down (or the service is disposed). */
  | 'host-disposed'
  /** No poll from the extension within `pollTimeout` (45 s). */
  | 'poll-timeout'
  /** A newer pairing for the same bot took this one's place. */
  | 'replaced'
  /** The code was not redeemed within `pairingExpiry` (5 min). */
  | 'pairing-expired'
  /** The lease reached `leaseLimit` (30 min after pairing). */
  | 'lease-limit'

/**
 * Causes that revoke a lease (final state `revoked`), as events a caller may send.
 *
 * @example
 * revokingCauses.includes('tab-closed') // true
 */
export const revokingCauses: ReadonlyArray<LeaseEndCause> = [
  'navigation',
  'tab-closed',
  'access-removed',
  'target-changed',
  'host-disposed',
  'poll-timeout',
  'replaced',
]

/**
 * Why one observation was rejected instead of answered.
 *
 * @example
 * const reason: ObservationRejectReason = 'fence-mismatch'
 */
export type ObservationRejectReason =
  /** The lease ended while the observation was pending (its `cause` says why). */
  | 'lease-ended'
  /** The answer came from another URL or document than the shared one. */
  | 'fence-mismatch'
  /** Nothing is shared yet: the person has not pressed "Share current tab read-only". */
  | 'not-shared'
  /** Too many observations are already pending for this lease. */
  | 'too-many'
  /** The extension could not read the page. */
  | 'extension-error'
  /** The caller stopped waiting (its deadline passed). */
  | 'abandoned'

/**
 * One observation the bot asked for and the extension has not answered yet.
 *
 * @example
 * const p: PendingObservation = { id: 'obs-1', requestedAt: 1_000 }
 */
export interface PendingObservation {
  readonly id: string
  readonly requestedAt: number
}

/**
 * Everything needed to start a lease actor: ids, the creation time and the deadlines.
 *
 * @example
 * createActor(leaseMachine, { input: { leaseId: 'l1', botId: 'bot-1', now: Date.now() } })
 */
export interface LeaseInput {
  readonly leaseId: string
  readonly botId: string
  /** The time the pairing code is created, from the service's clock. */
  readonly now: number
  /** How long the pairing code may be redeemed (D1: 5 minutes). */
  readonly pairingExpiryMs?: number | undefined
  /** How long a lease lasts at most, counted from redemption (D5: 30 minutes). */
  readonly leaseLimitMs?: number | undefined
  /** How long without a poll from the extension revokes the lease (D5: 45 seconds). */
  readonly pollTimeoutMs?: number | undefined
  /** How many observations may be pending at once. */
  readonly maxPending?: number | undefined
}

/**
 * What the lease actor remembers.
 *
 * @example
 * actor.getSnapshot().context.pending.length // observations waiting for the extension
 */
export interface LeaseContext {
  readonly leaseId: string
  readonly botId: string
  readonly createdAt: number
  readonly pairedAt: number | null
  readonly sharedAt: number | null
  readonly lastPollAt: number | null
  /** An opaque digest of the shared document's URL and document id; `null` until shared. */
  readonly fence: string | null
  readonly pending: ReadonlyArray<PendingObservation>
  /** The Tool Provider's first-action approval for this lease; every end invalidates it (D5). */
  readonly approved: boolean
  readonly endCause: LeaseEndCause | null
  readonly endedAt: number | null
  readonly pairingExpiryMs: number
  readonly leaseLimitMs: number
  readonly pollTimeoutMs: number
  readonly maxPending: number
}

/**
 * Events the lease machine understands. `at` is the service's clock time of the input.
 *
 * @example
 * actor.send({ type: 'observation.answered', id: 'obs-1', fence: fenceOf(url, documentId), at: now })
 */
export type LeaseEvent =
  | Timed<'pairing.redeemed' | 'extension.polled' | 'approval.granted' | 'lease.return'>
  | Timed<'lease.shared', { readonly fence: string }>
  | Timed<'observation.requested' | 'observation.failed' | 'observation.abandoned', { readonly id: string }>
  | Timed<'observation.answered', { readonly id: string; readonly fence: string }>
  | Timed<'tab.navigated' | 'tab.closed' | 'access.removed' | 'target.changed' | 'host.disposed' | 'lease.replaced'>

/**
 * What the lease actor tells the service (`actor.on(type, handler)`): the service holds the
 * answers' contents and the waiting callers, and settles them on these events. Every requested
 * observation is settled exactly once — resolved or rejected.
 *
 * @example
 * actor.on('lease.ended', (e) => audit(`lease ${e.leaseId} ended: ${e.cause}`))
 */
export type LeaseEmitted =
  | { readonly type: 'observation.resolved'; readonly leaseId: string; readonly id: string }
  | {
      readonly type: 'observation.rejected'
      readonly leaseId: string
      readonly id: string
      readonly reason: ObservationRejectReason
      /** Set when `reason` is `lease-ended`. */
      readonly cause: LeaseEndCause | null
    }
  | {
      readonly type: 'lease.ended'
      readonly leaseId: string
      readonly botId: string
      readonly state: 'returned' | 'revoked' | 'expired'
      readonly cause: LeaseEndCause
      readonly at: number
      /** Pending observations rejected by this end (each also got its own `observation.rejected`). */
      readonly rejected: ReadonlyArray<string>
      /** Whether a first-action approval was invalidated by this end. */
      readonly approvalInvalidated: boolean
    }
