import { randomBytes } from 'node:crypto'
import { PgClient } from '@effect/sql-pg'
import { SqlClient } from '@effect/sql'
import { Context, Effect, Layer, Redacted, type Scope } from 'effect'
import { PgSealedStore, type PgStoreOptions } from '../../packages/store-pg/src/index.ts'
import { SealedStore, type SealedStoreShape } from '../../packages/store/src/index.ts'
import { afterAll, beforeAll } from 'vitest'
import { startPostgres, type TestPostgres } from '../fixtures/postgres.ts'

/*
 * One throw-away Postgres per test file (started in beforeAll, stopped in afterAll), and a fresh
 * table per store, so tests in one file never see each other's rows.
 */

/**
 * Starts a Postgres for this file; read `.current` inside tests.
 *
 * @example
 * const pg = usePostgres()
 * it('…', () => PgSealedStore.layer({ url: pg.url(), key }))
 */
export const usePostgres = () => {
  let pg: TestPostgres | undefined
  beforeAll(async () => {
    pg = await startPostgres()
  })
  afterAll(async () => {
    await pg?.stop()
  })
  const current = (): TestPostgres => {
    if (pg === undefined) throw new Error('usePostgres: Postgres is not started yet (use it inside a test)')
    return pg
  }
  return { current, url: () => Redacted.make(current().url) }
}

/**
 * A table name no other test uses.
 *
 * @example
 * const table = freshTable()
 */
export const freshTable = (): string => `t_${randomBytes(6).toString('hex')}`

/**
 * A SQL client on the database (for reading or damaging rows behind the store's back).
 *
 * @example
 * const sql = yield* sqlClient(url)
 */
export const sqlClient = (url: Redacted.Redacted<string>): Effect.Effect<SqlClient.SqlClient, never, Scope.Scope> =>
  Layer.build(PgClient.layer({ url })).pipe(Effect.map(Context.get(SqlClient.SqlClient)), Effect.orDie)

/**
 * Opens a Postgres store in the current scope.
 *
 * @example
 * const store = yield* openStore(url, { key, table })
 */
export const openStore = (
  url: Redacted.Redacted<string>,
  options: Partial<PgStoreOptions> = {},
): Effect.Effect<SealedStoreShape, never, Scope.Scope> =>
  Layer.build(PgSealedStore.layer({ url, key: Redacted.make(randomBytes(32)), table: freshTable(), ...options })).pipe(
    Effect.map(Context.get(SealedStore)),
    Effect.orDie,
  )
