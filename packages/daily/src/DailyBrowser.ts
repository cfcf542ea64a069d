import { leaseMachine, type LeaseEmitted, type LeaseEvent } from '@errands/machines'
import { Clock, Context, Deferred, Duration, Effect, Exit, FiberId, Layer, Runtime, Schema, type Scope } from 'effect'
import { createActor } from 'xstate'
import type { PairingCode } from './api.ts'
import { makeEffectClock } from '@errands/sessions'
import { BadRequest, DailyUnavailable, LeaseConflict, ObservationFailed, type DailyConfigError } from './errors.ts'
import { isPending, makeExtensionCalls, type ExtensionCalls } from './extensionCalls.ts'
import { BotId, isEnded, stateOf, viewOf, type LeaseRecord, type LeaseView } from './leases.ts'
import { toResult, type ObservationLimits, type ObservationResult } from './observation.ts'
import { decodeOptions, type DailyBrowserOptions, type DailyBrowserOptionsInput } from './options.ts'
import { digest, findByDigest, newId, newPairingCode, newToken, normalizeCode } from './secrets.ts'

export type { ExtensionError } from './extensionCalls.ts'

/**
 * What the Daily Browser does (D1–D6). Three parties call it: the person (through the host's
 * authenticated API or the door's admin routes), the extension (through the door, with its token
 * and Origin) and the bot (through the Tool Provider's `browser_observe`).
 */
export interface DailyBrowserShape extends ExtensionCalls {
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
  // — the extension: ExtensionCalls (extensionCalls.ts) —
  // — everyone —
  /** Calls `listener` with a lease's view whenever it changes; returns the unsubscribe. */
  readonly onChange: (listener: (view: LeaseView) => void) => () => void
  /** Host disposal: revokes every lease (rejecting pending observations) and refuses new pairings. Idempotent. */
  readonly dispose: Effect.Effect<void>
}

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
      ...makeExtensionCalls({ options, records, limits, now, send }),

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
