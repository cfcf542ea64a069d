import { leaseMachine, type LeaseEmitted, type LeaseEvent } from '@errands/machines'
import { Clock, Context, Deferred, Duration, Effect, Exit, FiberId, Layer, Runtime, Schema, type Scope } from 'effect'
import { createActor } from 'xstate'
import type { Credentials, ObservationRequest, PairingCode, PollResult, Redeemed } from './api.ts'
import { makeEffectClock } from '@errands/sessions'
import {
  BadRequest,
  DailyUnavailable,
  Forbidden,
  LeaseConflict,
  LeaseEnded,
  ObservationFailed,
  PairingRefused,
  RateLimited,
  Unauthorized,
  UnknownObservation,
  type DailyConfigError,
} from './errors.ts'
import { BotId, isEnded, stateOf, viewOf, type LeaseRecord, type LeaseView, type SharedTab } from './leases.ts'
import { toResult, type ObservationAnswer, type ObservationLimits, type ObservationResult } from './observation.ts'
import { decodeOptions, type DailyBrowserOptions, type DailyBrowserOptionsInput } from './options.ts'
import { allowedExtensionOrigin } from './peer.ts'
import { FailureLimiter } from './rateLimit.ts'
import { digest, fenceOf, findByDigest, newId, newPairingCode, newToken, normalizeCode } from './secrets.ts'

/**
 * What the Daily Browser does (D1–D6). Three parties call it: the person (through the host's
 * authenticated API or the door's admin routes), the extension (through the door, with its token
 * and Origin) and the bot (through the Tool Provider's `browser_observe`).
 */
export interface DailyBrowserShape {
  readonly options: DailyBrowserOptions
  // — the person —
  /** A one-use, five-minute code for one bot (D1). A newer code for the same bot replaces its lease. */
  readonly createPairing: (botId: string) => Effect.Effect<PairingCode, DailyUnavailable | BadRequest>
  /** Ends the bot's lease as if Return was pressed. Idempotent: `undefined` when there is none. */
  readonly returnLease: (botId: string) => Effect.Effect<LeaseView | undefined>
  /** Browser Access removed or the bot's target changed (D5). Idempotent. */
  readonly revoke: (botId: string, cause: 'access-removed' | 'target-changed') => Effect.Effect<LeaseView | undefined>
  /** Records the Tool Provider's first-action approval for the shared document; any end invalidates it. */
  readonly approve: (botId: string) => Effect.Effect<LeaseView, LeaseConflict>
  readonly status: (botId: string) => Effect.Effect<LeaseView | undefined>
  /** The lease a lease secret was issued for (X3), compared in constant time against every lease. */
  readonly leaseOf: (botSecret: string) => Effect.Effect<LeaseView | undefined>
  readonly list: Effect.Effect<ReadonlyArray<LeaseView>>
  // — the bot —
  /** `browser_observe`: the shared tab's bounded text and control labels, fenced and untrusted (D4). */
  readonly observe: (botId: string) => Effect.Effect<ObservationResult, ObservationFailed>
  // — the extension (the door authenticates the peer; these check code, token and Origin) —
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
  // — everyone —
  /** Calls `listener` with a lease's view whenever it changes; returns the unsubscribe. */
  readonly onChange: (listener: (view: LeaseView) => void) => () => void
  /** Host disposal: revokes every lease (rejecting pending observations) and refuses new pairings. Idempotent. */
  readonly dispose: Effect.Effect<void>
}

/**
 * Errors of an authenticated extension call: no/unknown token, wrong Origin, or a lease that ended.
 *
 * @example
 * daily.poll(creds, input).pipe(Effect.catchTag('LeaseEnded', (e) => Effect.succeed(e.reason)))
 */
export type ExtensionError = Unauthorized | Forbidden | LeaseEnded

/**
 * Builds the Daily Browser. Everything it holds is process-local and gone on restart (D6); closing
 * the scope is host disposal.
 *
 * @example
 * const daily = yield* makeDailyBrowser({ pollTimeoutMs: 45_000 })
 * const { code } = yield* daily.createPairing('bot-1')
 */
export const makeDailyBrowser = (
  input: DailyBrowserOptionsInput = {},
): Effect.Effect<DailyBrowserShape, DailyConfigError, Scope.Scope> =>
  Effect.gen(function* () {
    const options = yield* decodeOptions(input)
    const runtime = yield* Effect.runtime<never>()
    const clock = yield* makeEffectClock
    const now = () => Runtime.runSync(runtime)(Clock.currentTimeMillis)
    const records = new Map<string, LeaseRecord>()
    const latestByBot = new Map<string, LeaseRecord>()
    const listeners = new Set<(view: LeaseView) => void>()
    const limiter = new FailureLimiter({
      perPeer: options.redeemFailuresPerPeer,
      global: options.redeemFailuresGlobal,
      windowMs: options.redeemWindowMs,
    })
    const limits: ObservationLimits = {
      maxTextChars: options.maxTextChars,
      maxControls: options.maxControls,
      maxLabelChars: options.maxLabelChars,
    }
    let disposed = false

    const newWake = () => Deferred.unsafeMake<void>(FiberId.none)
    const notify = (record: LeaseRecord) => {
      const wake = record.wake
      record.wake = newWake()
      Deferred.unsafeDone(wake, Exit.void)
    }
    const send = (record: LeaseRecord, event: LeaseEvent) => record.actor.send(event)
    const publish = (record: LeaseRecord) => {
      const view = viewOf(record)
      for (const listener of listeners) listener(view)
    }
    const settle = (record: LeaseRecord, id: string, exit: Exit.Exit<ObservationResult, ObservationFailed>) => {
      const waiter = record.waiters.get(id)
      record.waiters.delete(id)
      record.failures.delete(id)
      if (waiter !== undefined) Deferred.unsafeDone(waiter, exit)
    }
    // Ended leases are remembered a while (so the extension learns why); the oldest go first.
    const prune = () => {
      const ended = [...records.values()].filter(isEnded)
      for (const record of ended.slice(0, Math.max(0, ended.length - options.keepEndedLeases))) {
        records.delete(record.leaseId)
        if (latestByBot.get(record.botId) === record) latestByBot.delete(record.botId)
      }
    }

    const onEmitted = (record: LeaseRecord) => (event: LeaseEmitted) => {
      switch (event.type) {
        case 'observation.resolved': {
          const answer = record.answers.get(event.id)
          if (answer !== undefined)
            settle(
              record,
              event.id,
              Exit.succeed(toResult(answer, { leaseId: record.leaseId, observedAt: now(), limits })),
            )
          return
        }
        case 'observation.rejected':
          return settle(
            record,
            event.id,
            Exit.fail(ObservationFailed.of(event.reason, event.cause, record.failures.get(event.id))),
          )
        case 'lease.ended':
          record.codeDigest = null
          notify(record)
          return
      }
    }

    const openRecordOf = (botId: string): LeaseRecord | undefined => {
      const record = latestByBot.get(botId)
      return record !== undefined && !isEnded(record) ? record : undefined
    }

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

    const isPending = (record: LeaseRecord, id: string) =>
      record.actor.getSnapshot().context.pending.some((p) => p.id === id)
    const endedError = (record: LeaseRecord) => LeaseEnded.of(record.actor.getSnapshot().context.endCause ?? 'return')

    const endFor = (
      botId: string,
      event: LeaseEvent['type'] & ('lease.return' | 'access.removed' | 'target.changed'),
    ) =>
      Effect.sync(() => {
        const record = openRecordOf(botId)
        if (record === undefined) return latestByBot.get(botId) && viewOf(latestByBot.get(botId)!)
        send(record, { type: event, at: now() })
        return viewOf(record)
      })

    const shape: DailyBrowserShape = {
      options,

      createPairing: (botId) =>
        Effect.suspend((): Effect.Effect<PairingCode, DailyUnavailable | BadRequest> => {
          if (!Schema.is(BotId)(botId))
            return Effect.fail(
              new BadRequest({
                reason: 'invalid-body',
                message: 'botId must be 1-128 characters of A-Z a-z 0-9 . _ : @ -',
              }),
            )
          if (disposed)
            return Effect.fail(
              new DailyUnavailable({ reason: 'disposed', message: 'The host is shutting down; no new pairings.' }),
            )
          const at = now()
          const previous = openRecordOf(botId)
          if (previous !== undefined) send(previous, { type: 'lease.replaced', at })
          const open = [...records.values()].filter((r) => !isEnded(r)).length
          if (open >= options.maxOpenLeases) {
            return Effect.fail(
              new DailyUnavailable({
                reason: 'too-many-leases',
                message: `At most ${options.maxOpenLeases} pairings and leases may be open; return one first.`,
              }),
            )
          }
          const leaseId = newId('lease')
          const code = newPairingCode()
          const botSecret = newToken()
          const actor = createActor(leaseMachine, {
            clock,
            input: {
              leaseId,
              botId,
              now: at,
              pairingExpiryMs: options.pairingExpiryMs,
              leaseLimitMs: options.leaseLimitMs,
              pollTimeoutMs: options.pollTimeoutMs,
              maxPending: options.maxPendingObservations,
            },
          })
          const record: LeaseRecord = {
            leaseId,
            botId,
            actor,
            botSecretDigest: digest(botSecret),
            codeDigest: digest(normalizeCode(code)!),
            tokenDigest: null,
            origin: null,
            share: null,
            answers: new Map(),
            failures: new Map(),
            waiters: new Map(),
            wake: newWake(),
          }
          actor.on('*', onEmitted(record))
          actor.subscribe({
            next: () => publish(record),
            complete: () => {
              publish(record)
              prune()
            },
          })
          records.set(leaseId, record)
          latestByBot.set(botId, record)
          actor.start()
          return Effect.succeed({ code, botId, leaseId, expiresAt: at + options.pairingExpiryMs, botSecret })
        }),

      returnLease: (botId) => endFor(botId, 'lease.return'),
      revoke: (botId, cause) => endFor(botId, cause === 'access-removed' ? 'access.removed' : 'target.changed'),

      approve: (botId) =>
        Effect.suspend((): Effect.Effect<LeaseView, LeaseConflict> => {
          const record = openRecordOf(botId)
          if (record === undefined || stateOf(record.actor.getSnapshot()) !== 'shared') {
            return Effect.fail(
              new LeaseConflict({
                reason: 'not-shared',
                message: 'Nothing is shared for this bot, so there is nothing to approve.',
              }),
            )
          }
          send(record, { type: 'approval.granted', at: now() })
          return Effect.succeed(viewOf(record))
        }),

      status: (botId) => Effect.sync(() => (latestByBot.has(botId) ? viewOf(latestByBot.get(botId)!) : undefined)),
      leaseOf: (botSecret) =>
        Effect.sync(() => {
          const record = findByDigest(records.values(), (r) => r.botSecretDigest, digest(botSecret))
          return record === undefined ? undefined : viewOf(record)
        }),
      list: Effect.sync(() => [...records.values()].map(viewOf)),

      observe: (botId) =>
        Effect.gen(function* () {
          const record = openRecordOf(botId)
          if (record === undefined) {
            const last = latestByBot.get(botId)
            const cause = last?.actor.getSnapshot().context.endCause ?? null
            return yield* Effect.fail(
              cause === null ? ObservationFailed.of('no-lease', null) : ObservationFailed.of('lease-ended', cause),
            )
          }
          const id = newId('obs')
          const done = yield* Deferred.make<ObservationResult, ObservationFailed>()
          record.waiters.set(id, done)
          send(record, { type: 'observation.requested', id, at: now() })
          notify(record)
          return yield* Deferred.await(done).pipe(
            Effect.timeoutFail({
              duration: Duration.millis(options.observeTimeoutMs),
              onTimeout: () => ObservationFailed.of('timeout', null),
            }),
            // Timed out or interrupted: the request is withdrawn so the extension stops being asked.
            Effect.onExit(() =>
              Effect.sync(() => {
                record.waiters.delete(id)
                if (isPending(record, id)) send(record, { type: 'observation.abandoned', id, at: now() })
              }),
            ),
          )
        }),

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
        Effect.flatMap(
          authenticate(creds),
          (record): Effect.Effect<{ readonly accepted: true }, UnknownObservation> => {
            if (!isPending(record, id))
              return Effect.fail(
                new UnknownObservation({ reason: 'not-pending', message: 'No such observation is pending.' }),
              )
            record.failures.set(id, message.replace(/[^\x20-\x7e]/g, '').slice(0, 200))
            send(record, { type: 'observation.failed', id, at: now() })
            return Effect.succeed({ accepted: true as const })
          },
        ),

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

      onChange: (listener) => {
        listeners.add(listener)
        return () => void listeners.delete(listener)
      },

      dispose: Effect.sync(() => {
        // A second dispose finds nothing open: every lease already ended with `host-disposed`.
        disposed = true
        const at = now()
        for (const record of records.values()) if (!isEnded(record)) send(record, { type: 'host.disposed', at })
      }),
    }

    yield* Effect.addFinalizer(() => shape.dispose)
    return shape
  })

/**
 * The Daily Browser service (`"@errands/daily/DailyBrowser"`).
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const daily = yield* DailyBrowser
 *   return yield* daily.createPairing('bot-1')
 * }).pipe(Effect.provide(DailyBrowser.layer()), Effect.scoped)
 */
export class DailyBrowser extends Context.Tag('@errands/daily/DailyBrowser')<DailyBrowser, DailyBrowserShape>() {
  /**
   * The service with decoded options; closing the layer's scope disposes it (D5 host disposal).
   *
   * @example
   * Effect.provide(program, DailyBrowser.layer({ pollTimeoutMs: 30_000 }))
   */
  static layer(options: DailyBrowserOptionsInput = {}): Layer.Layer<DailyBrowser, DailyConfigError> {
    return Layer.scoped(DailyBrowser, makeDailyBrowser(options))
  }

  /**
   * A fake for tests of code that uses the service: methods not given die loudly when called.
   *
   * @example
   * DailyBrowser.layerTest({ observe: () => Effect.succeed(result) })
   */
  static layerTest(methods: Partial<DailyBrowserShape>): Layer.Layer<DailyBrowser> {
    const missing = (name: string) => Effect.dieMessage(`DailyBrowser.${name} is not provided by this test layer`)
    const shape = new Proxy(methods as DailyBrowserShape, {
      get: (target, key: string) =>
        key in target
          ? target[key as keyof DailyBrowserShape]
          : key === 'list' || key === 'dispose'
            ? missing(key)
            : key === 'onChange'
              ? () => () => {}
              : () => missing(key),
    })
    return Layer.succeed(DailyBrowser, shape)
  }
}
