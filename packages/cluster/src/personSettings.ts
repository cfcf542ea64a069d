/**
 * The person's browser settings of a cluster, in its Postgres (issue #24): always-allowed sites
 * and the trust mode are one table every host reads and writes, so an "allow always" or a trust
 * change told to any host is what every host seeds new errands with and asks by. Each host's
 * `settings.json` is not read in cluster mode.
 *
 * One row per setting (`trust`, and `always-allowed:<site>` per site): every change is one
 * statement, so two hosts changing settings at once both land (no read-modify-write of a
 * document to lose one of them). Nothing is cached: `get` reads the table, which is what lets a
 * host see another's change at once.
 *
 * @example
 * Settings.layer(dataDir)              // one host: its file
 * PgSettings.layer({ url })            // a cluster: the shared table
 */
import { SqlClient } from '@effect/sql'
import { PgClient } from '@effect/sql-pg'
import {
  decodeSettings,
  parseSite,
  Settings,
  SettingsError,
  type BrowserSettings,
  type SettingsShape,
  type TrustMode,
} from '@errands/lending'
import { driverUrl, pgFailure } from '@errands/store-pg'
import { Effect, Layer, type Redacted } from 'effect'

/** The table's name. @example PERSON_SETTINGS_TABLE // 'errands_person_settings' */
export const PERSON_SETTINGS_TABLE = 'errands_person_settings'

const SITE = 'always-allowed:'

/** A failed query in words (its kind only: a driver message may quote a value). */
// What failed, by code (and for TLS in words, K2): the tag alone ("SqlError") said nothing a person could act on.
const unavailable = (what: string) => (e: { readonly _tag: string; readonly cause?: unknown }) =>
  new SettingsError({
    reason: 'database',
    message:
      `could not ${what} the person's settings in the cluster's database (${pgFailure(e.cause) ?? e._tag}); try ` +
      'again in a moment',
  })

/**
 * Settings over a SQL client: creates the table when missing.
 *
 * @example
 * const settings = yield* makePgSettings // needs SqlClient
 */
export const makePgSettings: Effect.Effect<SettingsShape, SettingsError, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient
    const table = sql(PERSON_SETTINGS_TABLE)
    // Hosts start together: one creates the table, the others wait (a bare CREATE TABLE IF NOT
    // EXISTS racing itself can fail on the catalogue's unique index). Two keys: one-key advisory
    // locks are @effect/cluster's shard locks.
    yield* sql
      .withTransaction(
        Effect.zipRight(
          sql`SELECT pg_advisory_xact_lock(hashtext('errands'), hashtext(${PERSON_SETTINGS_TABLE}))`,
          sql`CREATE TABLE IF NOT EXISTS ${table} (
      name TEXT PRIMARY KEY,
      value TEXT NOT NULL
    )`,
        ),
      )
      .pipe(Effect.mapError(unavailable('create the table of')))

    const get: Effect.Effect<BrowserSettings, SettingsError> = Effect.flatMap(
      sql<{ name: string; value: string }>`SELECT name, value FROM ${table}`.pipe(Effect.mapError(unavailable('read'))),
      (rows) =>
        decodeSettings(
          {
            alwaysAllowed: rows.filter((r) => r.name.startsWith(SITE)).map((r) => r.value),
            ...Object.fromEntries(rows.filter((r) => r.name === 'trust').map((r) => ['trust', r.value])),
          },
          `the table ${PERSON_SETTINGS_TABLE}`,
        ),
    )
    const write = (what: string, statement: Effect.Effect<unknown, { readonly _tag: string }>) =>
      Effect.zipRight(Effect.mapError(statement, unavailable(what)), get)

    return {
      get,
      allowAlways: (input) =>
        Effect.flatMap(parseSite(input), (site) =>
          write(
            'write',
            sql`INSERT INTO ${table} (name, value) VALUES (${SITE + site}, ${site}) ON CONFLICT (name) DO NOTHING`,
          ),
        ),
      removeAlways: (input) =>
        Effect.flatMap(parseSite(input), (site) =>
          write('write', sql`DELETE FROM ${table} WHERE name = ${SITE + site}`),
        ),
      setTrust: (mode: TrustMode) =>
        write(
          'write',
          sql`INSERT INTO ${table} (name, value) VALUES ('trust', ${mode})
              ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`,
        ),
    } satisfies SettingsShape
  },
)

/**
 * The cluster's settings service.
 *
 * @example
 * Effect.provide(program, PgSettings.layer({ url: Redacted.make(databaseUrl) }))
 */
export const PgSettings = {
  /**
   * Settings with a connection pool of their own, from a (redacted) `postgres://` URL; the pool
   * closes with the layer. A database that cannot be reached fails building it with
   * `SettingsError('database')`.
   *
   * @example
   * engineOver(runtime, { settings, personSettings: PgSettings.layer({ url }) })
   */
  layer: (options: { readonly url: Redacted.Redacted<string> }): Layer.Layer<Settings, SettingsError> =>
    PgSettings.layerClient.pipe(
      Layer.provide(
        PgClient.layer({
          // sslmode as libpq reads it (K2, L7).
          url: driverUrl(options.url),
          connectTimeout: '10 seconds',
          applicationName: 'errands-person-settings',
        }).pipe(Layer.catchAll((e) => Layer.fail(unavailable('connect to')(e)))),
      ),
    ),

  /**
   * Settings over a SQL client that is already there.
   *
   * @example
   * PgSettings.layerClient.pipe(Layer.provide(PgClient.layer({ url })))
   */
  layerClient: Layer.effect(Settings, makePgSettings),
} as const
