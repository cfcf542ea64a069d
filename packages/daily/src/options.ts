import { Effect, ParseResult, Schema } from 'effect'
import { DailyConfigError } from './errors.ts'
import { dailyExtensionId } from './extensionId.ts'

const int = (name: string, min: number, max: number, fallback: number) =>
  Schema.optionalWith(
    Schema.Int.pipe(
      Schema.between(min, max, { message: () => `${name} must be an integer between ${min} and ${max}` }),
    ),
    { default: () => fallback },
  )

/**
 * The Daily Browser's options, decoded once when the service is built (STYLE §9). Every deadline
 * defaults to the decision record's value and may only be tightened: a pairing code lives at
 * most five minutes, a lease at most 30 minutes, and at most 45 s may pass without a poll.
 *
 * @example
 * const options = Schema.decodeUnknownSync(DailyBrowserOptions)({ pollTimeoutMs: 10_000 })
 * options.leaseLimitMs // 1_800_000
 */
export const DailyBrowserOptions = Schema.Struct({
  /** How long a pairing code may be redeemed (D1). */
  pairingExpiryMs: int('pairingExpiryMs', 1_000, 300_000, 300_000),
  /** How long a lease lasts at most, from redemption (D5). */
  leaseLimitMs: int('leaseLimitMs', 1_000, 1_800_000, 1_800_000),
  /** How long without a poll revokes a lease (D5). */
  pollTimeoutMs: int('pollTimeoutMs', 1_000, 45_000, 45_000),
  /**
   * How long a poll may wait for work before answering empty. It stays below 30 s because Chrome
   * stops an extension service worker whose fetch response takes longer than that.
   */
  pollWaitMs: int('pollWaitMs', 0, 25_000, 20_000),
  /** How long `browser_observe` waits for the extension's answer. */
  observeTimeoutMs: int('observeTimeoutMs', 100, 120_000, 20_000),
  maxPendingObservations: int('maxPendingObservations', 1, 16, 4),
  /** Open pairings and leases at once (all bots). */
  maxOpenLeases: int('maxOpenLeases', 1, 256, 32),
  /** Ended leases remembered so the extension can be told why its lease ended. */
  keepEndedLeases: int('keepEndedLeases', 0, 256, 32),
  maxTextChars: int('maxTextChars', 100, 200_000, 20_000),
  maxControls: int('maxControls', 0, 1_000, 200),
  maxLabelChars: int('maxLabelChars', 10, 1_000, 160),
  /** Failed redeems allowed per peer address within `redeemWindowMs`. */
  redeemFailuresPerPeer: int('redeemFailuresPerPeer', 1, 100, 5),
  /** Failed redeems allowed from everyone together within `redeemWindowMs`. */
  redeemFailuresGlobal: int('redeemFailuresGlobal', 1, 1_000, 20),
  redeemWindowMs: int('redeemWindowMs', 1_000, 3_600_000, 60_000),
  /** Extension ids whose Origin may redeem codes; by default only the bundled extension's. */
  extensionIds: Schema.optionalWith(
    Schema.Array(
      Schema.String.pipe(Schema.pattern(/^[a-p]{32}$/, { message: () => 'extensionIds must be 32 letters a-p each' })),
    ).pipe(Schema.minItems(1, { message: () => 'extensionIds must name at least one extension' })),
    { default: () => [dailyExtensionId] },
  ),
})

/**
 * Decoded options.
 *
 * @example
 * const o: DailyBrowserOptions = decodeOptionsSync({})
 */
export type DailyBrowserOptions = typeof DailyBrowserOptions.Type

/**
 * Options as an embedder writes them: every field optional.
 *
 * @example
 * const input: DailyBrowserOptionsInput = { pollTimeoutMs: 20_000 }
 */
export type DailyBrowserOptionsInput = typeof DailyBrowserOptions.Encoded

/**
 * Decodes options, failing with every problem named (variable and range).
 *
 * @example
 * yield* decodeOptions({ leaseLimitMs: 10 }) // DailyConfigError: leaseLimitMs must be an integer between 1000 and
 * 1800000
 */
export const decodeOptions = (
  input: DailyBrowserOptionsInput = {},
): Effect.Effect<DailyBrowserOptions, DailyConfigError> =>
  Schema.decodeUnknown(DailyBrowserOptions, { errors: 'all', onExcessProperty: 'error' })(input).pipe(
    Effect.mapError(
      (e) =>
        new DailyConfigError({
          reason: 'invalid-options',
          message: ParseResult.ArrayFormatter.formatErrorSync(e)
            .map((i) => `${i.path.join('.') || 'options'}: ${i.message}`)
            .join('; '),
        }),
    ),
  )

/**
 * Decodes options synchronously (throws a `DailyConfigError`); for tests and scripts.
 *
 * @example
 * decodeOptionsSync({}).pollTimeoutMs // 45_000
 */
export const decodeOptionsSync = (input: DailyBrowserOptionsInput = {}): DailyBrowserOptions =>
  Effect.runSync(decodeOptions(input))
