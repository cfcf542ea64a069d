export { PgSealedStore } from './PgSealedStore.ts'
export { makePg, rowKeyFor } from './make.ts'
export {
  DEFAULT_TABLE,
  decodePgOptions,
  type DecodedPgOptions,
  type PgSealedStoreOptions,
  type PgStoreOptions,
} from './options.ts'
export { lockTable, migrate, pgFailure, toStoreError } from './sql.ts'
export { databaseUrlConfig, databaseVariables, DatabaseUrl, describeDatabase, driverUrl } from './config.ts'
