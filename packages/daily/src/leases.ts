/**
 * The service's bookkeeping for one pairing/lease: the actor (which decides), and what must not
 * enter the actor — the code's and token's digests, the bound Origin, the shared page's URL and
 * document id, answers in flight and the callers waiting for them. Process-local by design (D6).
 */
import type { LeaseEndCause, LeaseMachine } from '@errands/machines'
import { Schema, type Deferred } from 'effect'
import type { ActorRefFrom, SnapshotFrom } from 'xstate'
import type { ObservationFailed } from './errors.ts'
import { pageOf, type ObservationAnswer, type ObservationResult } from './observation.ts'

/**
 * A bot id: 1–128 characters of `A–Z a–z 0–9 . _ : @ -`.
 *
 * @example
 * Schema.is(BotId)('persona-bot-7') // true
 */
export const BotId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9._:@-]{1,128}$/, {
    message: () => 'botId must be 1-128 characters of A-Z a-z 0-9 . _ : @ -',
  }),
)

/**
 * Where a lease is: `pairing` (code not redeemed yet), `awaiting` (paired, nothing shared),
 * `shared`, or one of the final states.
 *
 * @example
 * const s: LeaseState = 'shared'
 */
export type LeaseState = 'pairing' | 'awaiting' | 'shared' | 'returned' | 'revoked' | 'expired'

/**
 * A lease as the person's UI, the host and the extension may see it: no secrets, and the page
 * without its query or fragment.
 *
 * @example
 * const view = yield* daily.status('bot-1') // { state: 'shared', page: { origin, path, title }, … }
 */
export interface LeaseView {
  readonly leaseId: string
  readonly botId: string
  readonly state: LeaseState
  readonly cause: LeaseEndCause | null
  readonly approved: boolean
  readonly pendingObservations: number
  readonly page: { readonly origin: string; readonly path: string; readonly title: string } | null
  readonly createdAt: number
  readonly pairedAt: number | null
  readonly sharedAt: number | null
  readonly endedAt: number | null
  /** When the code expires (while pairing) or the lease reaches its limit (once paired). */
  readonly expiresAt: number
}

/**
 * The shared tab, as the extension reported it when the person pressed Share.
 *
 * @example
 * const share: SharedTab = { tabId: 7, url: 'https://mail.example/inbox', documentId: 'A1B2', title: 'Inbox' }
 */
export interface SharedTab {
  readonly tabId: number
  readonly url: string
  readonly documentId: string
  readonly title: string
}

/**
 * One pairing/lease record (mutable fields are only touched by the service).
 *
 * @example
 * records.get(leaseId)?.actor.send({ type: 'tab.closed', at: now })
 */
export interface LeaseRecord {
  readonly leaseId: string
  readonly botId: string
  readonly actor: ActorRefFrom<LeaseMachine>
  /** The lease secret's digest (X3): only the agent session holding the secret may observe. */
  readonly botSecretDigest: Buffer
  /** Cleared when the code is redeemed: a code works once (D1). */
  codeDigest: Buffer | null
  tokenDigest: Buffer | null
  /** The `chrome-extension://…` Origin that redeemed the code; every lease call must match it (D2). */
  origin: string | null
  share: SharedTab | null
  /** Answers between their arrival and the machine's verdict (a synchronous hand-over). */
  readonly answers: Map<string, ObservationAnswer>
  /** Why the extension could not answer, for the bot's error message. */
  readonly failures: Map<string, string>
  readonly waiters: Map<string, Deferred.Deferred<ObservationResult, ObservationFailed>>
  /** Completed (and replaced) whenever a long poll should look again. */
  wake: Deferred.Deferred<void>
}

/**
 * The lease actor's snapshot.
 *
 * @example
 * const s: LeaseSnapshot = record.actor.getSnapshot()
 */
export type LeaseSnapshot = SnapshotFrom<LeaseMachine>

/**
 * The state of a lease snapshot.
 *
 * @example
 * stateOf(record.actor.getSnapshot()) // 'awaiting'
 */
export const stateOf = (s: LeaseSnapshot): LeaseState => {
  if (s.hasTag('redeemable')) return 'pairing'
  if (s.hasTag('shared')) return 'shared'
  if (s.hasTag('leased')) return 'awaiting'
  return s.value as 'returned' | 'revoked' | 'expired'
}

/**
 * Whether the lease has ended (a final state).
 *
 * @example
 * isEnded(record) // true after a return
 */
export const isEnded = (record: LeaseRecord): boolean => record.actor.getSnapshot().status !== 'active'

/**
 * The view of a record.
 *
 * @example
 * viewOf(record).state // 'shared'
 */
export const viewOf = (record: LeaseRecord): LeaseView => {
  const s = record.actor.getSnapshot()
  const c = s.context
  return {
    leaseId: record.leaseId,
    botId: record.botId,
    state: stateOf(s),
    cause: c.endCause,
    approved: c.approved,
    pendingObservations: c.pending.length,
    page: record.share === null ? null : pageOf(record.share.url, record.share.title),
    createdAt: c.createdAt,
    pairedAt: c.pairedAt,
    sharedAt: c.sharedAt,
    endedAt: c.endedAt,
    expiresAt: c.pairedAt === null ? c.createdAt + c.pairingExpiryMs : c.pairedAt + c.leaseLimitMs,
  }
}
