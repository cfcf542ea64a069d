import type {
  BadRequest,
  ForeignOrigin,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  Unauthorized,
  UnsupportedMediaType,
  WrongHost,
} from '@errands/edge'
import type { LeaseEndCause, ObservationRejectReason } from '@errands/machines'
import { Schema } from 'effect'

/*
 * The door's refusals of the HTTP edge itself — Host, Origin, method, media type, body size,
 * tokens, routes — are `@errands/edge`'s, the same classes every front answers with (issue #24);
 * this file holds the Daily Browser's own.
 */
export {
  BadRequest,
  ForeignOrigin,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  Unauthorized,
  UnsupportedMediaType,
  WrongHost,
} from '@errands/edge'

const EndCause = Schema.Literal(
  'return',
  'navigation',
  'tab-closed',
  'access-removed',
  'target-changed',
  'host-disposed',
  'poll-timeout',
  'replaced',
  'pairing-expired',
  'lease-limit',
)

/**
 * The Daily Browser refused the caller: a peer that is not loopback (`not-loopback`), a redeem
 * from an `Origin` that is not the Daily Browser extension (`bad-origin`, checked again behind
 * the door's edge), or a token presented from another Origin than the one that redeemed it
 * (`origin-mismatch`). A foreign Host or Origin at the door itself is the edge's `WrongHost` /
 * `ForeignOrigin`.
 *
 * @example
 * new Forbidden({ reason: 'not-loopback', message: 'Only loopback peers may use the Daily Browser door.' }).status //
 * 403
 */
export class Forbidden extends Schema.TaggedError<Forbidden>()('Forbidden', {
  reason: Schema.Literal('not-loopback', 'bad-origin', 'origin-mismatch'),
  message: Schema.String,
}) {
  readonly status = 403
}

/**
 * A pairing code was refused. Unknown, used and expired codes look the same on purpose, so a
 * guesser learns nothing from the answer.
 *
 * @example
 * PairingRefused.of().message // 'That pairing code is not valid: …'
 */
export class PairingRefused extends Schema.TaggedError<PairingRefused>()('PairingRefused', {
  reason: Schema.Literal('invalid-code'),
  message: Schema.String,
}) {
  readonly status = 403
  static of(): PairingRefused {
    return new PairingRefused({
      reason: 'invalid-code',
      message:
        'That pairing code is not valid: it is wrong, used already, or older than five minutes. Ask for a new code.',
    })
  }
}

/**
 * Too many failed redeems recently, from this peer or from everyone (brute-force protection).
 *
 * @example
 * RateLimited.of(30).status // 429, with Retry-After: 30
 */
export class RateLimited extends Schema.TaggedError<RateLimited>()('RateLimited', {
  reason: Schema.Literal('too-many-failures'),
  retryAfterSeconds: Schema.Number,
  message: Schema.String,
}) {
  readonly status = 429
  static of(retryAfterSeconds: number): RateLimited {
    return new RateLimited({
      reason: 'too-many-failures',
      retryAfterSeconds,
      message: `Too many wrong pairing codes; wait ${retryAfterSeconds} s and try again.`,
    })
  }
}

/**
 * An answer to an observation that is not pending (late, repeated, or never asked).
 *
 * @example
 * new UnknownObservation({ reason: 'not-pending', message: 'No such observation is pending.' }).status // 404
 */
export class UnknownObservation extends Schema.TaggedError<UnknownObservation>()('UnknownObservation', {
  reason: Schema.Literal('not-pending'),
  message: Schema.String,
}) {
  readonly status = 404
}

/**
 * The lease is over; `reason` is why (D5). The extension shows it and forgets the token.
 *
 * @example
 * LeaseEnded.of('navigation').status // 410
 */
export class LeaseEnded extends Schema.TaggedError<LeaseEnded>()('LeaseEnded', {
  reason: EndCause,
  message: Schema.String,
}) {
  readonly status = 410
  static of(cause: LeaseEndCause): LeaseEnded {
    return new LeaseEnded({ reason: cause, message: `The Daily Browser lease has ended (${endWords[cause]}).` })
  }
}

/**
 * The request does not fit the lease's state: sharing twice (`already-shared`), approving before
 * anything is shared (`not-shared`), or no open lease for that bot (`no-lease`).
 *
 * @example
 * new LeaseConflict({ reason: 'already-shared', message: 'A tab is already shared.' }).status // 409
 */
export class LeaseConflict extends Schema.TaggedError<LeaseConflict>()('LeaseConflict', {
  reason: Schema.Literal('already-shared', 'not-shared', 'no-lease'),
  message: Schema.String,
}) {
  readonly status = 409
}

/**
 * The service cannot take more right now: too many open pairings/leases, or it is shutting down.
 *
 * @example
 * new DailyUnavailable({ reason: 'disposed', message: 'The host is shutting down.' }).status // 503
 */
export class DailyUnavailable extends Schema.TaggedError<DailyUnavailable>()('DailyUnavailable', {
  reason: Schema.Literal('too-many-leases', 'disposed'),
  message: Schema.String,
}) {
  readonly status = 503
}

/**
 * `browser_observe` could not return the shared page. The message is written for a model: it
 * says what happened and what to do next (ask the person to share again, wait, retry).
 *
 * @example
 * daily.observe('bot-1').pipe(Effect.catchTag('ObservationFailed', (e) => Effect.succeed(e.message)))
 */
export class ObservationFailed extends Schema.TaggedError<ObservationFailed>()('ObservationFailed', {
  reason: Schema.Literal(
    'no-lease',
    'not-shared',
    'lease-ended',
    'fence-mismatch',
    'too-many',
    'extension-error',
    'abandoned',
    'timeout',
  ),
  cause: Schema.NullOr(EndCause),
  message: Schema.String,
}) {
  get status(): number {
    switch (this.reason) {
      case 'timeout':
        return 504
      case 'lease-ended':
        return 410
      case 'too-many':
        return 429
      case 'extension-error':
        return 502
      default:
        return 409
    }
  }
  static of(
    reason: ObservationRejectReason | 'no-lease' | 'timeout',
    cause: LeaseEndCause | null,
    detail?: string,
  ): ObservationFailed {
    return new ObservationFailed({ reason, cause, message: observationWords(reason, cause, detail) })
  }
}

/**
 * The service's options are out of range (STYLE §9): the message names the option and its range.
 *
 * @example
 * DailyBrowser.make({ pollTimeoutMs: 60_000 }) // fails with DailyConfigError('invalid-options')
 */
export class DailyConfigError extends Schema.TaggedError<DailyConfigError>()('DailyConfigError', {
  reason: Schema.Literal('invalid-options'),
  message: Schema.String,
}) {}

/**
 * Errors the door turns into HTTP answers (`{"error":{"code":"<Tag>","reason":…,"message":…}}`).
 *
 * @example
 * const status = (e: DoorError) => e.status
 */
export type DoorError =
  | Forbidden
  | Unauthorized
  | PairingRefused
  | RateLimited
  | UnsupportedMediaType
  | BadRequest
  | PayloadTooLarge
  | NotFound
  | MethodNotAllowed
  | WrongHost
  | ForeignOrigin
  | UnknownObservation
  | LeaseEnded
  | LeaseConflict
  | DailyUnavailable
  | ObservationFailed

const endWords: Record<LeaseEndCause, string> = {
  return: 'the tab was returned',
  navigation: 'the shared tab reloaded or navigated',
  'tab-closed': 'the shared tab was closed',
  'access-removed': "the bot's browser access was removed",
  'target-changed': "the bot's browser target changed",
  'host-disposed': 'the Errands host shut down',
  'poll-timeout': 'the extension stopped polling for 45 seconds',
  replaced: 'a newer pairing for the same bot replaced it',
  'pairing-expired': 'the pairing code was not used within five minutes',
  'lease-limit': 'it reached its 30-minute limit',
}

const observationWords = (
  reason: ObservationRejectReason | 'no-lease' | 'timeout',
  cause: LeaseEndCause | null,
  detail?: string,
): string => {
  const again = 'Ask the person to pair the Errands extension again and press "Share current tab read-only".'
  switch (reason) {
    case 'no-lease':
      return `No tab of the person's browser is lent to you. ${again}`
    case 'not-shared':
      return (
        'The person has paired the extension but not shared a tab yet; ask them to press "Share current tab ' +
        'read-only", then try again.'
      )
    case 'lease-ended':
      return `The lent tab is no longer available: ${endWords[cause ?? 'return']}. ${again}`
    case 'fence-mismatch':
      return `The shared tab now shows another page than the one that was lent, so the lease ended. ${again}`
    case 'too-many':
      return 'Several observations of the shared tab are already waiting; wait for them, then try again.'
    case 'extension-error':
      return `The extension could not read the shared tab${detail ? ` (${detail})` : ''}; try again in a moment.`
    case 'abandoned':
      return 'The observation was cancelled before the extension answered.'
    case 'timeout':
      return "The extension did not answer in time (is the person's browser asleep?); wait a moment and try again."
  }
}
