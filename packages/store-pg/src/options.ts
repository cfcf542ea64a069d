import { decodeOptions, StoreConfigError, type Retention } from '@errands/store'
import { Either, type Redacted } from 'effect'

/**
 * The table the Postgres store keeps its rows in, unless told otherwise.
 *
 * @example
 * yield* sql`SELECT count(*) FROM ${sql(DEFAULT_TABLE)}`
 */
export const DEFAULT_TABLE = 'errands_sealed_records'

/**
 * How to open a Postgres sealed store over a SQL client someone else made (`layerClient`).
 * `key` is the device key every host that shares the table must hold (S1): the rows are sealed
 * under it, and it is never written to the database.
 *
 * @example
 * const options: PgStoreOptions = { key: Redacted.make(key), maxRecords: 40 }
 */
export interface PgStoreOptions {
  readonly key: Redacted.Redacted<Uint8Array>
  /**
   * The table's name (created if absent): lower-case letters, digits and `_`, at most 63. Default
   * `errands_sealed_records`.
   */
  readonly table?: string | undefined
  /** Default 40, accepted 1..100000. Counted over the whole table: every host sharing it shares the limit. */
  readonly maxRecords?: number | undefined
  /** Default 14 days, accepted 1 ms..3650 days. */
  readonly maxAgeMs?: number | undefined
  /** When set, a scoped fiber applies retention this often (accepted 1000 ms..1 day). Off by default. */
  readonly pruneIntervalMs?: number | undefined
}

/**
 * How to open a Postgres sealed store with a client of its own (`layer`): the options plus the
 * connection URL, which holds a password and so is redacted.
 *
 * @example
 * PgSealedStore.layer({ url: Redacted.make('postgres://errands:pw@127.0.0.1/errands'), key })
 */
export interface PgSealedStoreOptions extends PgStoreOptions {
  readonly url: Redacted.Redacted<string>
}

/**
 * The options after checking: retention with its defaults, the table, the prune interval.
 *
 * @example
 * const { table, retention } = Either.getOrThrow(decodePgOptions(options))
 */
export interface DecodedPgOptions {
  readonly table: string
  readonly retention: Retention
  readonly pruneIntervalMs: number | undefined
}

const TABLE = /^[a-z_][a-z0-9_]{0,62}$/

/**
 * Checks the options once, at the edge (STYLE §9): a table name that needs no quoting, then
 * the file store's own checks of retention and the prune interval (same ranges, same messages).
 *
 * @example
 * decodePgOptions({ key, table: 'Robert; DROP' }) // Either.left(StoreConfigError('invalid-options'))
 */
export const decodePgOptions = (options: PgStoreOptions): Either.Either<DecodedPgOptions, StoreConfigError> => {
  const table = options.table ?? DEFAULT_TABLE
  if (!TABLE.test(table)) {
    return Either.left(
      new StoreConfigError({
        reason: 'invalid-options',
        message:
          'Invalid sealed store options: table must be 1..63 lower-case letters, digits or _, not starting with a ' +
          'digit',
      }),
    )
  }
  // The file store's decoder wants a directory; the table stands in for it (it is never used as a path).
  return Either.map(
    decodeOptions({
      dir: table,
      maxRecords: options.maxRecords,
      maxAgeMs: options.maxAgeMs,
      pruneIntervalMs: options.pruneIntervalMs,
    }),
    (o) => ({ table, retention: o.retention, pruneIntervalMs: o.pruneIntervalMs }),
  )
}
