import { StoreError } from '@errands/store'
import { SqlClient, type SqlError } from '@effect/sql'
import { Effect } from 'effect'

/*
 * The table, its migration, the cluster-wide write lock, and how a database failure becomes a
 * StoreError. The rows hold exactly the bytes a sealed file holds (docs/sealed-store.md,
 * "Postgres"); the key is the SHA-256 of the errand id, as a file's name is.
 */

/** SQLSTATE classes and codes a person can act on (https://www.postgresql.org/docs/current/errcodes-appendix.html). */
const reasonOf = (code: string | undefined): StoreError['reason'] => {
  if (code === '53100') return 'disk-full'
  if (code === '42501' || code === '28000' || code === '28P01') return 'permission'
  return 'io'
}

/** The SQLSTATE of a Postgres error, or the errno code of a socket error; never its text. */
const codeOf = (cause: unknown): string | undefined => {
  const code =
    typeof cause === 'object' && cause !== null && 'code' in cause ? (cause as { code: unknown }).code : undefined
  return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : undefined
}

/**
 * A failed database call as the store's error. The message names the operation and the code
 * only: a driver's text may quote parameters, and the parameters are sealed bytes or ids.
 *
 * @example
 * query.pipe(Effect.mapError(toStoreError('write a parked errand')))
 */
export const toStoreError =
  (op: string) =>
  (error: SqlError.SqlError): StoreError => {
    const code = codeOf(error.cause)
    return new StoreError({
      reason: reasonOf(code),
      message: `Could not ${op} in Postgres${code === undefined ? '' : ` (${code})`}.`,
    })
  }

/**
 * Creates the store's table if it is absent. Several hosts may start at once: a transaction-scoped
 * advisory lock makes them create it one after another (a bare `CREATE TABLE IF NOT EXISTS`
 * racing itself can fail on the catalogue's unique index).
 *
 * @example
 * yield* migrate('errands_sealed_records')
 */
export const migrate = (table: string): Effect.Effect<void, StoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          yield* lockTable(sql, table)
          yield* sql`CREATE TABLE IF NOT EXISTS ${sql(table)} (
        errand_hash char(64) PRIMARY KEY,
        sealed bytea NOT NULL
      )`
        }),
      )
      .pipe(Effect.mapError(toStoreError('create the sealed store table'))),
  )

/**
 * The first of the two keys of the store's advisory locks: "ERSS" as an int4. Two-key locks do
 * not share a key space with one-key ones, which @effect/cluster takes for its shards
 * (`pg_try_advisory_lock(n)`), so a table's lock can never be mistaken for a shard's.
 */
const LOCK_CLASS = 0x45525353

/**
 * Takes the table's write lock until the current transaction ends: every write of every host
 * sharing the table is serialised, as the file store serialises its own. A killed writer's
 * lock goes with its connection.
 *
 * @example
 * sql.withTransaction(lockTable(sql, table).pipe(Effect.andThen(write)))
 */
export const lockTable = (sql: SqlClient.SqlClient, table: string): Effect.Effect<void, SqlError.SqlError> =>
  Effect.asVoid(sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS}, hashtext(${table}))`)
