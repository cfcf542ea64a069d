import type { LeaseEvent } from '@errands/machines'
import { Deferred, Duration, Effect } from 'effect'
import type { Credentials, ObservationRequest, PollResult, Redeemed } from './api.ts'
import {
  Forbidden,
  LeaseConflict,
  LeaseEnded,
  PairingRefused,
  RateLimited,
  Unauthorized,
  UnknownObservation,
} from './errors.ts'
import { isEnded, stateOf, viewOf, type LeaseRecord, type LeaseView, type SharedTab } from './leases.ts'
import type { ObservationAnswer, ObservationLimits } from './observation.ts'
import type { DailyBrowserOptions } from './options.ts'
import { allowedExtensionOrigin } from './peer.ts'
import { FailureLimiter } from './rateLimit.ts'
import { digest, fenceOf, findByDigest, newToken, normalizeCode } from './secrets.ts'

/**
 * Errors of an authenticated extension call: no/unknown token, wrong Origin, or a lease that ended.
 *
 * @example
 * daily.poll(creds, input).pipe(Effect.catchTag('LeaseEnded', (e) => Effect.succeed(e.reason)))
 */
export type ExtensionError = Unauthorized | Forbidden | LeaseEnded

/**
 * The extension's side of the Daily Browser (D1–D4): redeeming a code, then every call made with
 * the lease token. The door authenticates the peer; these check code, token and Origin.
 */
export interface ExtensionCalls {
  readonly redeem: (input: {
    readonly code: string
    readonly origin: string | undefined
    readonly peer: string
  }) => Effect.Effect<Redeemed, PairingRefused | RateLimited | Forbidden>
  readonly leaseStatus: (creds: Credentials) => Effect.Effect<LeaseView, ExtensionError>
  readonly share: (creds: Credentials, tab: SharedTab) => Effect.Effect<LeaseView, ExtensionError | LeaseConflict>
  readonly poll: (
    creds: Credentials,
    input: { readonly waitMs: number; readonly inFlight: ReadonlyArray<string> },
  ) => Effect.Effect<PollResult, ExtensionError>
  readonly answer: (
    creds: Credentials,
    answer: ObservationAnswer,
  ) => Effect.Effect<{ readonly accepted: true }, ExtensionError | UnknownObservation>
  readonly failObservation: (
    creds: Credentials,
    input: { readonly id: string; readonly message: string },
  ) => Effect.Effect<{ readonly accepted: true }, ExtensionError | UnknownObservation>
  readonly report: (
    creds: Credentials,
    event: 'navigated' | 'reloaded' | 'tab-closed',
  ) => Effect.Effect<LeaseView, ExtensionError>
  readonly giveBack: (creds: Credentials) => Effect.Effect<LeaseView, ExtensionError>
}

/**
 * What the extension's calls share with the rest of the Daily Browser: its options, its leases
 * (every record, ended ones included) and how an event reaches a lease's actor.
 */
export interface LeaseBook {
  readonly options: DailyBrowserOptions
  readonly records: ReadonlyMap<string, LeaseRecord>
  readonly limits: ObservationLimits
  readonly now: () => number
  readonly send: (record: LeaseRecord, event: LeaseEvent) => void
}

/**
 * Whether observation `id` is still waiting on the extension's answer.
 *
 * @example
 * if (isPending(record, id)) send(record, { type: 'observation.abandoned', id, at: now() })
 */
export const isPending = (record: LeaseRecord, id: string): boolean =>
  record.actor.getSnapshot().context.pending.some((p) => p.id === id)

const endedError = (record: LeaseRecord) => LeaseEnded.of(record.actor.getSnapshot().context.endCause ?? 'return')

/**
 * Builds the extension's calls over the Daily Browser's lease book, with the redeem rate limiter
 * they alone use.
 *
 * @example
 * const shape: DailyBrowserShape = { ...makeExtensionCalls({ options, records, limits, now, send }), … }
 */
export const makeExtensionCalls = (book: LeaseBook): ExtensionCalls => {
  const { options, records, limits, now, send } = book
  const limiter = new FailureLimiter({
    perPeer: options.redeemFailuresPerPeer,
    global: options.redeemFailuresGlobal,
    windowMs: options.redeemWindowMs,
  })

  const authenticate = (creds: Credentials): Effect.Effect<LeaseRecord, ExtensionError> =>
    Effect.suspend((): Effect.Effect<LeaseRecord, ExtensionError> => {
      if (creds.token === undefined || creds.token.length === 0) {
        return Effect.fail(
          new Unauthorized({
            reason: 'missing-token',
            message: 'Send the lease token as "Authorization: Bearer <token>".',
          }),
        )
      }
      const record = findByDigest(records.values(), (r) => r.tokenDigest, digest(creds.token))
      if (record === undefined)
        return Effect.fail(
          new Unauthorized({ reason: 'wrong-token', message: 'Unknown lease token; pair the extension again.' }),
        )
      // The token is bound to the Origin that redeemed the code (D2): a copy used elsewhere fails.
      if (creds.origin !== record.origin) {
        return Effect.fail(
          new Forbidden({ reason: 'origin-mismatch', message: 'This token belongs to another extension Origin.' }),
        )
      }
      const s = record.actor.getSnapshot()
      if (s.status !== 'active') return Effect.fail(LeaseEnded.of(s.context.endCause ?? 'return'))
      // Any authenticated call shows the extension is alive, as a poll does.
      send(record, { type: 'extension.polled', at: now() })
      return Effect.succeed(record)
    })

  const requestsFor = (record: LeaseRecord, inFlight: ReadonlyArray<string>): ReadonlyArray<ObservationRequest> =>
    record.actor
      .getSnapshot()
      .context.pending.filter((p) => !inFlight.includes(p.id))
      .map((p) => ({ id: p.id, kind: 'observe' as const, limits }))

  return {
    redeem: ({ code, origin, peer }) =>
      Effect.suspend((): Effect.Effect<Redeemed, PairingRefused | RateLimited | Forbidden> => {
        if (allowedExtensionOrigin(origin, options.extensionIds) === undefined) {
          return Effect.fail(
            new Forbidden({
              reason: 'bad-origin',
              message: 'Only the Errands Daily Browser extension may redeem a pairing code.',
            }),
          )
        }
        const at = now()
        // A source is the peer address and the Origin (D1): one guesser cannot lock out the extension.
        const source = `${peer} ${origin ?? ''}`
        const wait = limiter.retryAfterMs(source, at)
        if (wait > 0) return Effect.fail(RateLimited.of(Math.ceil(wait / 1000)))
        const canonical = normalizeCode(code)
        // An impossible code is still hashed and compared, so it costs what a plausible one does.
        const candidate = digest(canonical ?? `invalid:${code}`)
        const record = findByDigest(records.values(), (r) => r.codeDigest, candidate)
        const snapshot = record?.actor.getSnapshot()
        if (
          record === undefined ||
          canonical === undefined ||
          !snapshot?.hasTag('redeemable') ||
          at >= snapshot.context.createdAt + snapshot.context.pairingExpiryMs
        ) {
          limiter.failed(source, at)
          return Effect.fail(PairingRefused.of())
        }
        const token = newToken()
        record.codeDigest = null
        record.tokenDigest = digest(token)
        record.origin = origin!
        send(record, { type: 'pairing.redeemed', at })
        return Effect.succeed({
          token,
          botId: record.botId,
          leaseId: record.leaseId,
          expiresAt: at + options.leaseLimitMs,
          pollTimeoutMs: options.pollTimeoutMs,
          pollWaitMs: options.pollWaitMs,
        })
      }),

    leaseStatus: (creds) => Effect.map(authenticate(creds), viewOf),

    share: (creds, tab) =>
      Effect.flatMap(authenticate(creds), (record): Effect.Effect<LeaseView, LeaseConflict> => {
        if (stateOf(record.actor.getSnapshot()) !== 'awaiting') {
          return Effect.fail(
            new LeaseConflict({
              reason: 'already-shared',
              message: 'A tab is already shared on this lease; return it and pair again to share another.',
            }),
          )
        }
        record.share = tab
        send(record, { type: 'lease.shared', fence: fenceOf(tab.url, tab.documentId), at: now() })
        return Effect.succeed(viewOf(record))
      }),

    poll: (creds, input) =>
      Effect.gen(function* () {
        const record = yield* authenticate(creds)
        const waitMs = Math.min(input.waitMs, options.pollWaitMs)
        if (requestsFor(record, input.inFlight).length === 0 && waitMs > 0) {
          yield* Effect.raceFirst(Deferred.await(record.wake), Effect.sleep(Duration.millis(waitMs)))
        }
        if (isEnded(record)) return yield* Effect.fail(endedError(record))
        return { lease: viewOf(record), requests: requestsFor(record, input.inFlight) }
      }),

    answer: (creds, answer) =>
      Effect.flatMap(
        authenticate(creds),
        (record): Effect.Effect<{ readonly accepted: true }, LeaseEnded | UnknownObservation> => {
          if (!isPending(record, answer.id)) {
            return Effect.fail(
              new UnknownObservation({
                reason: 'not-pending',
                message: 'No such observation is pending (answered already, cancelled, or never asked).',
              }),
            )
          }
          record.answers.set(answer.id, answer)
          send(record, {
            type: 'observation.answered',
            id: answer.id,
            fence: fenceOf(answer.url, answer.documentId),
            at: now(),
          })
          record.answers.delete(answer.id)
          return isEnded(record) ? Effect.fail(endedError(record)) : Effect.succeed({ accepted: true as const })
        },
      ),

    failObservation: (creds, { id, message }) =>
      Effect.flatMap(authenticate(creds), (record): Effect.Effect<{ readonly accepted: true }, UnknownObservation> => {
        if (!isPending(record, id))
          return Effect.fail(
            new UnknownObservation({ reason: 'not-pending', message: 'No such observation is pending.' }),
          )
        record.failures.set(id, message.replace(/[^\x20-\x7e]/g, '').slice(0, 200))
        send(record, { type: 'observation.failed', id, at: now() })
        return Effect.succeed({ accepted: true as const })
      }),

    report: (creds, event) =>
      Effect.map(authenticate(creds), (record) => {
        send(record, { type: event === 'tab-closed' ? 'tab.closed' : 'tab.navigated', at: now() })
        return viewOf(record)
      }),

    giveBack: (creds) =>
      Effect.map(authenticate(creds), (record) => {
        send(record, { type: 'lease.return', at: now() })
        return viewOf(record)
      }),
  }
}
