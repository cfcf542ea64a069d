import { randomBytes } from 'node:crypto'
import { Redacted } from 'effect'
import { storeContract } from '../../packages/store/src/contract.ts'
import { PgSealedStore } from '../../packages/store-pg/src/index.ts'
import { freshTable, usePostgres } from './harness.ts'

/*
 * K2: the Postgres store keeps every behaviour the file store keeps (the shared contract of
 * packages/store/src/contract.ts), against a real Postgres.
 */

const pg = usePostgres()

storeContract('postgres', (retention) =>
  PgSealedStore.layer({ url: pg.url(), key: Redacted.make(randomBytes(32)), table: freshTable(), ...retention }),
)
