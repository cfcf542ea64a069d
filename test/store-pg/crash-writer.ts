/*
 * The child process of crash.test.ts: parks versions start, start+1, … of one errand in the
 * Postgres store as fast as it can, printing "w n" before each put and "d n" once it has
 * returned, until it is killed. With HOLD=1 it parks version `start` inside an outer
 * transaction, prints "h n" once the row is written but not committed, and waits to be killed.
 * Usage: PG_URL=… STORE_KEY=<hex> STORE_TABLE=… node crash-writer.mjs <start>
 */
import { SqlClient } from '@effect/sql'
import { PgClient } from '@effect/sql-pg'
import { Clock, Effect, Layer, Redacted } from 'effect'
import { PgSealedStore } from '../../packages/store-pg/src/index.ts'
import { SealedStore } from '../../packages/store/src/index.ts'
import { recordFor } from '../store/crash-record.ts'

const [start] = process.argv.slice(2)
const { PG_URL: url, STORE_KEY: key, STORE_TABLE: table, HOLD: hold } = process.env
if (start === undefined || url === undefined || key === undefined || table === undefined) {
  throw new Error('usage: PG_URL=… STORE_KEY=… STORE_TABLE=… crash-writer <start>')
}

const program = Effect.gen(function* () {
  const store = yield* SealedStore
  const sql = yield* SqlClient.SqlClient
  if (hold === '1') {
    const n = Number(start)
    // The store's own transaction joins this one (a savepoint), so nothing commits until we return.
    yield* sql.withTransaction(
      store
        .put(recordFor(n, yield* Clock.currentTimeMillis))
        .pipe(Effect.andThen(Effect.sync(() => process.stdout.write(`h ${n}\n`))), Effect.andThen(Effect.never)),
    )
  }
  for (let n = Number(start); ; n++) {
    // Writes to a pipe are synchronous on Linux: once written, the parent will read the line.
    process.stdout.write(`w ${n}\n`)
    yield* store.put(recordFor(n, yield* Clock.currentTimeMillis))
    process.stdout.write(`d ${n}\n`)
  }
})

const client = PgClient.layer({ url: Redacted.make(url) })
const layer = Layer.provideMerge(
  PgSealedStore.layerClient({ key: Redacted.make(Buffer.from(key, 'hex')), table }),
  client,
)

Effect.runPromise(Effect.scoped(program.pipe(Effect.provide(layer)))).catch((error: unknown) => {
  process.stderr.write(`crash-writer failed: ${String(error)}\n`)
  process.exit(1)
})
