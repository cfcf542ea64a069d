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

/** The driver's own words when the URL asks for TLS and the server has none (it carries no code). */
const NO_TLS_SERVER = 'The server does not support SSL connections'

const UNTRUSTED =
  "the server's TLS certificate is not signed by a CA this host trusts: name its CA with sslrootcert=, or use " +
  'sslmode=require to encrypt without checking the certificate'

/** What failed in a TLS connection to Postgres, by Node's code, in words a person can act on (K2). */
const TLS_WORDS: Readonly<Record<string, string>> = {
  SELF_SIGNED_CERT_IN_CHAIN: UNTRUSTED,
  DEPTH_ZERO_SELF_SIGNED_CERT: UNTRUSTED,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: UNTRUSTED,
  UNABLE_TO_GET_ISSUER_CERT: UNTRUSTED,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: UNTRUSTED,
  ERR_TLS_CERT_ALTNAME_INVALID:
    "the server's TLS certificate does not name the host in the URL (sslmode=verify-full checks the name): " +
    'connect by a name the certificate holds, or use sslmode=verify-ca',
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  CERT_NOT_YET_VALID: "the server's TLS certificate is not valid yet",
  CERT_REVOKED: "the server's TLS certificate is revoked",
  EPROTO: 'the TLS handshake with the server failed',
  NO_TLS: "the URL asks for TLS and the server does not offer it: turn on ssl in the server's postgresql.conf",
}

/**
 * A failed connection or call, as a code and — for TLS — what failed: the SQLSTATE or socket code,
 * `NO_TLS` for a server without TLS. Never the driver's text otherwise: it may quote parameters.
 *
 * @example
 * pgFailure({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' })
 * // "DEPTH_ZERO_SELF_SIGNED_CERT: the server's TLS certificate is not signed by a CA this host trusts: …"
 */
export const pgFailure = (cause: unknown): string | undefined => {
  const code = codeOf(cause) ?? (cause instanceof Error && cause.message === NO_TLS_SERVER ? 'NO_TLS' : undefined)
  if (code === undefined) return undefined
  const words = TLS_WORDS[code] ?? (code.startsWith('ERR_SSL_') ? TLS_WORDS.EPROTO : undefined)
  return words === undefined ? code : `${code}: ${words}`
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
    const failure = pgFailure(error.cause)
    return new StoreError({
      reason: reasonOf(codeOf(error.cause)),
      message: `Could not ${op} in Postgres${failure === undefined ? '' : ` (${failure})`}.`,
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
