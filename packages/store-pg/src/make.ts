import { SqlClient, SqlError } from '@effect/sql'
import {
  applyUpdate,
  byAge,
  claimedErrandId,
  errandHash,
  HEADER_READ_BYTES,
  openRecord,
  parseHeader,
  sealRecord,
  suppliedKey,
  toDrop,
  FORMAT_VERSION,
  MAGIC,
  StoreConfigError,
  type ParkedEntry,
  type ParkedRecord,
  type SealedStoreShape,
  type StoreError,
  type StoreProblem,
} from '@errands/store'
import { Clock, Effect, Either, Option, type Scope } from 'effect'
import { decodePgOptions, type PgStoreOptions } from './options.ts'
import { lockTable, migrate, toStoreError } from './sql.ts'

/**
 * A row's key: the SHA-256 of the errand id in hex, as the file store names its files, so any
 * id (NUL included, which a Postgres `text` cannot hold) is a key, and a row's header can be
 * checked against its key. `problems()` reports rows by this key.
 *
 * @example
 * rowKeyFor('task/1') // '3f…e1' (64 hex digits)
 */
export const rowKeyFor: (errandId: string) => string = errandHash

const ROW_KEY = /^[0-9a-f]{64}$/

type Scanned = { readonly entry: ParkedEntry } | { readonly problem: StoreProblem }

/** A row as `list` sees it: the header's bytes and the whole value's length, never the payload. */
interface HeadRow {
  readonly errand_hash: string
  readonly head: Uint8Array
  readonly size: number | string
}

/** The errand id a damaged header claims, trusted only if it hashes to the row's key. */
const claimedId = (key: string, head: Uint8Array): string | undefined => {
  const id = claimedErrandId(head)
  return id !== undefined && rowKeyFor(id) === key ? id : undefined
}

const classify = (row: HeadRow): Scanned => {
  const head = Uint8Array.from(row.head)
  return Either.match(parseHeader(head, Number(row.size)), {
    onLeft: (reason) => ({ problem: { file: row.errand_hash, errandId: claimedId(row.errand_hash, head), reason } }),
    onRight: (header) =>
      rowKeyFor(header.errandId) === row.errand_hash
        ? { entry: { errandId: header.errandId, parkedAt: header.parkedAt } }
        : { problem: { file: row.errand_hash, errandId: undefined, reason: 'tampered' as const } },
  })
}

/**
 * Refuses a key under which nothing in a non-empty table was sealed. Every host sharing the
 * table must hold one key; a host started with another would read every row as `foreign-key`,
 * and the supervisor drops unreadable records, so one misconfigured host would wipe every
 * host's parked errands. Rows of another key next to rows of this one (left from a replaced
 * key) are read as `foreign-key` one by one, as the file store reads such files.
 */
const checkKey = (
  sql: SqlClient.SqlClient,
  table: string,
  keyId: Uint8Array,
): Effect.Effect<void, StoreError | StoreConfigError> =>
  Effect.gen(function* () {
    const rows = yield* sql<{ key_id: Uint8Array; n: string }>`
      SELECT substring(sealed FROM 6 FOR ${keyId.length}) AS key_id, count(*) AS n FROM ${sql(table)}
      WHERE substring(sealed FROM 1 FOR 5) = ${Buffer.from([...MAGIC, FORMAT_VERSION])} GROUP BY 1`
    const ours = rows.some((r) => Buffer.from(r.key_id).equals(Buffer.from(keyId)))
    if (rows.length > 0 && !ours) {
      const n = rows.reduce((sum, r) => sum + Number(r.n), 0)
      return yield* Effect.fail(
        new StoreConfigError({
          reason: 'invalid-key',
          message:
            `The sealed store's table ${table} holds ${n} parked errand(s) sealed under another device key, ` +
            `and none under this one: every host that shares the table needs the same key. Start with that key, or ` +
            `empty the table if those errands are to be given up.`,
        }),
      )
    }
  }).pipe(Effect.catchTag('SqlError', (e) => Effect.fail(toStoreError('open the sealed store table')(e))))

/**
 * Opens a Postgres sealed store over the SQL client in context: checks the options and key,
 * creates the table if absent, applies retention once, and every `pruneIntervalMs` in a scoped
 * fiber when set. Every write is one transaction under the table's advisory lock; reads see a
 * committed row or none.
 *
 * @example
 * const store = yield* makePg({ key: Redacted.make(key) })
 */
export const makePg = (
  options: PgStoreOptions,
): Effect.Effect<SealedStoreShape, StoreError | StoreConfigError, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function* () {
    const { table, retention, pruneIntervalMs } = yield* decodePgOptions(options)
    const key = yield* suppliedKey(options.key)
    const sql = yield* SqlClient.SqlClient
    yield* migrate(table)
    const t = sql(table)
    yield* checkKey(sql, table, key.id)

    /** One write: a transaction holding the table's lock; nothing of it is visible until it commits. */
    const transaction = <A, E>(
      op: string,
      effect: Effect.Effect<A, E>,
    ): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StoreError> =>
      sql
        .withTransaction(Effect.andThen(lockTable(sql, table), effect))
        .pipe(
          Effect.mapError((e) =>
            e instanceof SqlError.SqlError ? toStoreError(op)(e) : (e as Exclude<E, SqlError.SqlError>),
          ),
        )

    const scan = sql<HeadRow>`SELECT errand_hash, substring(sealed FROM 1 FOR ${HEADER_READ_BYTES}) AS head,
                          octet_length(sealed) AS size FROM ${t}`.pipe(
      Effect.map((rows) => {
        const entries: Array<ParkedEntry> = []
        const problems: Array<StoreProblem> = []
        for (const row of rows) {
          const item = classify(row)
          if ('entry' in item) entries.push(item.entry)
          else problems.push(item.problem)
        }
        entries.sort(byAge)
        problems.sort((a, b) => (a.file < b.file ? -1 : 1))
        return { entries, problems }
      }),
    )

    const readRow = (errandId: string) =>
      Effect.map(
        sql<{ sealed: Uint8Array }>`SELECT sealed FROM ${t} WHERE errand_hash = ${rowKeyFor(errandId)}`,
        (rows) => Option.map(Option.fromNullable(rows[0]), (r) => Uint8Array.from(r.sealed)),
      )

    const read = (errandId: string) =>
      Effect.flatMap(
        readRow(errandId),
        Option.match({
          onNone: () => Effect.succeed(Option.none<ParkedRecord>()),
          onSome: (bytes) => Effect.map(openRecord(key, errandId, bytes), Option.some),
        }),
      )

    /** Seals and upserts; returns the record as stored (the schema's fields only). */
    const write = (record: ParkedRecord) =>
      Effect.flatMap(sealRecord(key, record), ({ bytes, stored }) =>
        sql`INSERT INTO ${t} (errand_hash, sealed) VALUES (${rowKeyFor(record.errandId)}, ${Buffer.from(bytes)})
            ON CONFLICT (errand_hash) DO UPDATE SET sealed = EXCLUDED.sealed`.pipe(Effect.as(stored)),
      )

    const deleteRows = (keys: ReadonlyArray<string>) =>
      keys.length === 0 ? Effect.void : Effect.asVoid(sql`DELETE FROM ${t} WHERE ${sql.in('errand_hash', keys)}`)

    const pruneNow = Effect.gen(function* () {
      const { entries } = yield* scan
      const dropped = toDrop(entries, yield* Clock.currentTimeMillis, retention)
      yield* deleteRows(dropped.map(rowKeyFor))
      return dropped
    })

    const store: SealedStoreShape = {
      dir: undefined,
      // No file of the store is on this machine: nothing for the agent's file tools to reach.
      isProtectedPath: () => false,
      // The record and retention commit together: a failed retention pass leaves the old state whole.
      put: (record) =>
        transaction('write a parked errand', Effect.andThen(write(record), pruneNow)).pipe(Effect.asVoid),
      get: (errandId) =>
        read(errandId).pipe(Effect.catchTag('SqlError', (e) => Effect.fail(toStoreError('read a parked errand')(e)))),
      remove: (errandId) => transaction('remove a parked errand', deleteRows([rowKeyFor(errandId)])),
      list: () => Effect.map(scan, (s) => s.entries).pipe(Effect.mapError(toStoreError('list parked errands'))),
      problems: () => Effect.map(scan, (s) => s.problems).pipe(Effect.mapError(toStoreError('list parked errands'))),
      discard: (file) =>
        ROW_KEY.test(file)
          ? transaction(
              'discard an unreadable parked errand',
              sql<HeadRow>`SELECT errand_hash, substring(sealed FROM 1 FOR ${HEADER_READ_BYTES}) AS head,
                                  octet_length(sealed) AS size FROM ${t} WHERE errand_hash = ${file}`.pipe(
                // A put may have replaced the damaged row since problems() ran: keep the good one.
                Effect.flatMap((rows) =>
                  rows[0] !== undefined && 'problem' in classify(rows[0]) ? deleteRows([file]) : Effect.void,
                ),
              ),
            )
          : Effect.dieMessage(`SealedStore.discard: ${JSON.stringify(file)} is not a row key from problems()`),
      update: (errandId, f) =>
        transaction('update a parked errand', Effect.flatMap(read(errandId), applyUpdate(errandId, f, write))),
      clear: () => transaction('clear the sealed store', Effect.asVoid(sql`DELETE FROM ${t}`)),
      prune: () => transaction('apply retention', pruneNow),
    }

    yield* store.prune()
    if (pruneIntervalMs !== undefined) {
      yield* Effect.forkScoped(
        Effect.forever(
          Effect.sleep(pruneIntervalMs).pipe(
            Effect.andThen(store.prune()),
            Effect.catchAll((e) => Effect.logWarning(`Scheduled retention failed: ${e.message}`)),
          ),
        ),
      )
    }
    return store
  })
