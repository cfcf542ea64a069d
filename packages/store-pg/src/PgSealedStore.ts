import { PgClient } from '@effect/sql-pg'
import type { SqlClient } from '@effect/sql'
import { SealedStore, storeDirKey, type StoreConfigError, type StoreError } from '@errands/store'
import { Effect, Layer, Redacted } from 'effect'
import { driverUrl } from './config.ts'
import { makePg } from './make.ts'
import type { PgSealedStoreOptions, PgStoreOptions } from './options.ts'
import { toStoreError } from './sql.ts'

/**
 * The sealed store in Postgres (K2): the file store's format, AAD, key checks and retention,
 * one row per parked errand instead of one file, every write one transaction. It provides the
 * same `SealedStore` service, so the supervisor, lending and the host do not know which store
 * they have.
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const store = yield* SealedStore
 *   yield* store.put(record)
 * }).pipe(Effect.provide(PgSealedStore.layer({ url: Redacted.make(url), key: Redacted.make(key) })))
 */
export const PgSealedStore = {
  /**
   * The store with a connection pool of its own, opened from a (redacted) `postgres://` URL;
   * the pool closes with the layer. A database that cannot be reached fails building the layer
   * with `StoreError`, naming the operation and the error code only.
   *
   * @example
   * Effect.provide(program, PgSealedStore.layer({ url: Redacted.make(process.env.ERRANDS_DATABASE_URL!), key }))
   */
  layer: (options: PgSealedStoreOptions): Layer.Layer<SealedStore, StoreError | StoreConfigError> =>
    PgSealedStore.layerClient(options).pipe(
      Layer.provide(
        PgClient.layer({
          // sslmode as libpq reads it (K2, L7).
          url: driverUrl(options.url),
          connectTimeout: '10 seconds',
          applicationName: 'errands-sealed-store',
        }).pipe(Layer.catchAll((e) => Layer.fail(toStoreError('connect to the sealed store')(e)))),
      ),
    ),

  /**
   * The store with the device key of a local store directory (`<dataDir>/store/device.key`,
   * created on first use exactly as the file store creates it): one host moving from the file
   * store to Postgres keeps its key. Hosts that share a table must share a key instead (`layer`).
   *
   * @example
   * PgSealedStore.layerKeyDir({ url, keyDir: path.join(dataDir, 'store') })
   */
  layerKeyDir: (
    options: Omit<PgSealedStoreOptions, 'key'> & { readonly keyDir: string },
  ): Layer.Layer<SealedStore, StoreError | StoreConfigError> =>
    Layer.unwrapEffect(
      Effect.map(storeDirKey(options.keyDir), (key) =>
        PgSealedStore.layer({ ...options, key: Redacted.make(Uint8Array.from(key.secret.export())) }),
      ),
    ),

  /**
   * The store over a SQL client that is already there (the cluster's, say), sharing its pool.
   *
   * @example
   * PgSealedStore.layerClient({ key }).pipe(Layer.provide(PgClient.layer({ url })))
   */
  layerClient: (
    options: PgStoreOptions,
  ): Layer.Layer<SealedStore, StoreError | StoreConfigError, SqlClient.SqlClient> =>
    Layer.scoped(SealedStore, makePg(options)),
} as const
