import { Either, ParseResult, Schema, type Effect, type Option, type Redacted } from 'effect'
import { StoreConfigError, type RecordUnreadable, type StoreError, type UnreadableReason } from './errors.ts'
import type { ParkedEntry, ParkedRecord } from './record.ts'
import { DAY_MS, DEFAULT_RETENTION, type Retention } from './retention.ts'

/**
 * A sealed file `list` could not read the header of (or whose length does not match it). It
 * is reported here instead of crashing `list`; `discard(file)` removes it.
 *
 * @example
 * for (const p of yield* store.problems()) yield* Effect.logWarning(`parked errand lost: ${p.reason}`)
 */
export interface StoreProblem {
  /** The file's base name inside `<dir>/errands/`. */
  readonly file: string
  /** The errand it belongs to, when its header names one whose hash matches the file name. */
  readonly errandId: string | undefined
  readonly reason: UnreadableReason
}

/**
 * The sealed store of parked errands (S1–S4). Every method is safe to call concurrently; writes
 * are serialised inside one store. One process owns a store directory at a time.
 *
 * @example
 * const store = yield* SealedStore
 * yield* store.put(record)
 * const back = yield* store.get(record.errandId) // Option.some(record)
 */
export interface SealedStoreShape {
  /** Seals and writes the record crash-safely (replacing the errand's previous one), then applies retention. */
  readonly put: (record: ParkedRecord) => Effect.Effect<void, StoreError>
  /** The errand's record, `None` when there is none; `RecordUnreadable` for this errand only. */
  readonly get: (errandId: string) => Effect.Effect<Option.Option<ParkedRecord>, StoreError | RecordUnreadable>
  /** Removes the errand's record. Idempotent. */
  readonly remove: (errandId: string) => Effect.Effect<void, StoreError>
  /** Every readable header, oldest first, without decrypting any payload. Unreadable files are in `problems()`. */
  readonly list: () => Effect.Effect<ReadonlyArray<ParkedEntry>, StoreError>
  /** Files whose header cannot be read: reported, never a crash. Empty for the memory store. */
  readonly problems: () => Effect.Effect<ReadonlyArray<StoreProblem>, StoreError>
  /** Removes a file `problems()` reported, if it is still unreadable. */
  readonly discard: (file: string) => Effect.Effect<void, StoreError>
  /**
   * Unseals, applies `f`, reseals; returns the new record, or `None` if the errand has none.
   * `f` must keep the errand id (changing it is a defect).
   */
  readonly update: (
    errandId: string,
    f: (record: ParkedRecord) => ParkedRecord,
  ) => Effect.Effect<Option.Option<ParkedRecord>, StoreError | RecordUnreadable>
  /** Removes every record ("sign out of every site", L5). The device key stays. */
  readonly clear: () => Effect.Effect<void, StoreError>
  /** Applies retention now (S2); returns the dropped errand ids, oldest first. */
  readonly prune: () => Effect.Effect<ReadonlyArray<string>, StoreError>
  /** Whether `path` is inside this store's directory (always `false` for the memory store). */
  readonly isProtectedPath: (path: string) => boolean
  /** The store's directory, `undefined` for the memory store. */
  readonly dir: string | undefined
}

/**
 * How to open a store on disk. `key` is the embedder's 32-byte device key; without it the key
 * lives in `<dir>/device.key` (0600), created on first use.
 *
 * @example
 * const options: SealedStoreOptions = { dir: '/home/me/.errands/store', maxRecords: 40 }
 */
export interface SealedStoreOptions {
  readonly dir: string
  readonly key?: Redacted.Redacted<Uint8Array> | undefined
  /** Default 40, accepted 1..100000. */
  readonly maxRecords?: number | undefined
  /** Default 14 days, accepted 1 ms..3650 days. */
  readonly maxAgeMs?: number | undefined
  /** When set, a scoped fiber applies retention this often (accepted 1000 ms..1 day). Off by default. */
  readonly pruneIntervalMs?: number | undefined
}

const inRange = (name: string, min: number, max: number) =>
  Schema.Int.pipe(Schema.between(min, max, { message: () => `${name} must be an integer in ${min}..${max}` }))

const OptionsSchema = Schema.Struct({
  dir: Schema.String.pipe(Schema.minLength(1, { message: () => 'dir must be a non-empty path' })),
  maxRecords: Schema.optionalWith(inRange('maxRecords', 1, 100_000), { default: () => DEFAULT_RETENTION.maxRecords }),
  maxAgeMs: Schema.optionalWith(inRange('maxAgeMs', 1, 3650 * DAY_MS), { default: () => DEFAULT_RETENTION.maxAgeMs }),
  pruneIntervalMs: Schema.optional(inRange('pruneIntervalMs', 1000, DAY_MS)),
})

/**
 * Options after decoding: defaults filled in, ranges checked.
 *
 * @example
 * const { retention } = decodeOptions({ dir }).pipe(Either.getOrThrow)
 */
export interface DecodedOptions {
  readonly dir: string
  readonly retention: Retention
  readonly pruneIntervalMs: number | undefined
}

const configError = (error: ParseResult.ParseError): StoreConfigError =>
  new StoreConfigError({
    reason: 'invalid-options',
    message: `Invalid sealed store options: ${ParseResult.ArrayFormatter.formatErrorSync(error)
      .map((i) => `${i.path.join('.')}: ${i.message}`)
      .join('; ')}`,
  })

const decode = Schema.decodeUnknownEither(OptionsSchema, { errors: 'all', onExcessProperty: 'ignore' })

/**
 * Decodes the options once, at the edge (STYLE §9). Out-of-range values fail with a message
 * naming the option and its range; the key is not part of this (it is checked separately).
 *
 * @example
 * decodeOptions({ dir: '/tmp/s', maxRecords: 0 }) // Either.left(StoreConfigError('invalid-options'))
 */
export const decodeOptions = (options: SealedStoreOptions): Either.Either<DecodedOptions, StoreConfigError> =>
  Either.match(decode(options), {
    onLeft: (error) => Either.left(configError(error)),
    onRight: (o) =>
      Either.right({
        dir: o.dir,
        retention: { maxRecords: o.maxRecords, maxAgeMs: o.maxAgeMs },
        pruneIntervalMs: o.pruneIntervalMs,
      }),
  })

const RetentionSchema = Schema.Struct({
  maxRecords: OptionsSchema.fields.maxRecords,
  maxAgeMs: OptionsSchema.fields.maxAgeMs,
})

/**
 * Decodes the retention options of the memory store.
 *
 * @example
 * decodeRetention({ maxRecords: 3 }) // Either.right({ maxRecords: 3, maxAgeMs: 1209600000 })
 */
export const decodeRetention = (options: Partial<Retention>): Either.Either<Retention, StoreConfigError> =>
  Either.mapLeft(Schema.decodeUnknownEither(RetentionSchema, { errors: 'all' })(options), configError)
