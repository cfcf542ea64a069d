/**
 * The person's passwords of a cluster (W1, S1, S3), in its Postgres: one row holding the vault's
 * sealed bytes — the same bytes a single host keeps in `passwords.sealed`, sealed under the key
 * the hosts share — so a password the person saves through any host is filled on the host that
 * owns the errand. Nothing is cached: every read is the row, so a change told to one host is what
 * every host fills with at once (docs/passwords.md).
 *
 * A change is a read, a change and a write of the whole vault; two hosts changing it at once
 * would each write over the other's. So a change runs in one transaction that holds a lock on the
 * vault first (an advisory lock of two keys: one-key locks are @effect/cluster's shard locks).
 *
 * @example
 * PgVault.layer({ url, key }) // Layer<Vault, VaultUnavailable>
 */
import { SqlClient } from '@effect/sql'
import { PgClient } from '@effect/sql-pg'
import { Vault, VaultUnavailable, type VaultStorage } from '@errands/passwords'
import { Effect, Layer, Option, type Redacted } from 'effect'

/** The table's name. @example PASSWORDS_TABLE // 'errands_passwords' */
export const PASSWORDS_TABLE = 'errands_passwords'

/** The one row's name: a table of one row leaves room for more vaults than one person's. */
const ROW = 'vault'

/** A failed query in words (its kind only: a driver message may quote a value). */
const unavailable = (what: string) => (e: { readonly _tag: string }) =>
  new VaultUnavailable({
    reason: 'io',
    message: `Could not ${what} the password vault in the cluster's database (${e._tag}); try again in a moment.`,
  })

/**
 * The vault's storage over a SQL client: creates the table when missing.
 *
 * @example
 * const storage = yield* pgVaultStorage // needs SqlClient
 */
export const pgVaultStorage: Effect.Effect<VaultStorage, VaultUnavailable, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient
    const table = sql(PASSWORDS_TABLE)
    const lockVault = sql`SELECT pg_advisory_xact_lock(hashtext('errands'), hashtext(${PASSWORDS_TABLE}))`
    // Hosts start together: one creates the table, the others wait (a bare CREATE TABLE IF NOT
    // EXISTS racing itself can fail on the catalogue's unique index).
    yield* sql
      .withTransaction(
        Effect.zipRight(
          lockVault,
          sql`CREATE TABLE IF NOT EXISTS ${table} (
      name TEXT PRIMARY KEY,
      sealed BYTEA NOT NULL
    )`,
        ),
      )
      .pipe(Effect.mapError(unavailable('create the table of')))

    return {
      read: sql<{ sealed: Uint8Array }>`SELECT sealed FROM ${table} WHERE name = ${ROW}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (r) => Uint8Array.from(r.sealed))),
        Effect.mapError(unavailable('read')),
      ),
      write: (bytes) =>
        sql`INSERT INTO ${table} (name, sealed) VALUES (${ROW}, ${bytes})
            ON CONFLICT (name) DO UPDATE SET sealed = EXCLUDED.sealed`.pipe(
          Effect.asVoid,
          Effect.mapError(unavailable('save')),
        ),
      // The reads and writes inside run on the transaction's connection (@effect/sql), after the lock.
      exclusive: (work) =>
        sql
          .withTransaction(Effect.zipRight(Effect.mapError(lockVault, unavailable('lock')), work))
          .pipe(Effect.catchTag('SqlError', (e) => Effect.fail(unavailable('change')(e)))),
    } satisfies VaultStorage
  },
)

/**
 * The cluster's vault service.
 *
 * @example
 * Effect.provide(program, PgVault.layer({ url: Redacted.make(databaseUrl), key }))
 */
export const PgVault = {
  /**
   * The vault with a connection pool of its own, from a (redacted) `postgres://` URL, sealed under
   * the hosts' shared key; the pool closes with the layer. A database that cannot be reached
   * fails building it with `VaultUnavailable('io')`.
   *
   * @example
   * PgVault.layer({ url, key })
   */
  layer: (options: {
    readonly url: Redacted.Redacted<string>
    readonly key: Redacted.Redacted<Uint8Array>
  }): Layer.Layer<Vault, VaultUnavailable> =>
    Vault.layer({ key: options.key, storage: pgVaultStorage }).pipe(
      Layer.provide(
        PgClient.layer({ url: options.url, connectTimeout: '10 seconds', applicationName: 'errands-passwords' }).pipe(
          Layer.catchAll((e) => Layer.fail(unavailable('connect to')(e))),
        ),
      ),
    ),
} as const
