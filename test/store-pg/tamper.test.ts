import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SqlClient } from '@effect/sql'
import { describe, expect, it } from '@effect/vitest'
import { Context, Effect, Exit, Layer, Option, Redacted } from 'effect'
import { expectedAt, expectOnlyVictim } from '../../packages/store/src/damage.ts'
import { sampleRecord, tempDir } from '../../packages/store/src/fixtures.ts'
import { deviceKey, ERRANDS_DIR, fileNameFor, SealedStore } from '../../packages/store/src/index.ts'
import { seal } from '../../packages/store/src/format.ts'
import { rowKeyFor } from '../../packages/store-pg/src/index.ts'
import { freshTable, openStore, sqlClient, usePostgres } from './harness.ts'

/*
 * S4 for the Postgres store (K2): a tampered, truncated or foreign row is a clear error for its
 * errand only; the other errands keep reading fine. The rows are damaged in the real database,
 * behind an open store, the way the file store's tests damage files on disk.
 */

const pg = usePostgres()
const key = randomBytes(32)

const setup = Effect.gen(function* () {
  const table = freshTable()
  const store = yield* openStore(pg.url(), { key: Redacted.make(key), table })
  const sql = yield* sqlClient(pg.url())
  for (const id of ['before', 'after']) yield* store.put(sampleRecord(id, 1_000, id))
  // A small victim keeps the every-byte loop quick; its ciphertext is no different in kind.
  yield* store.put({
    ...sampleRecord('victim', 1_000),
    snapshot: { storage: { cookies: [], origins: [] }, tabs: [], takenAt: 1_000 },
  })
  const rowOf = (id: string) =>
    Effect.map(
      sql<{ sealed: Uint8Array }>`SELECT sealed FROM ${sql(table)} WHERE errand_hash = ${rowKeyFor(id)}`,
      (rows) => Buffer.from(rows[0]!.sealed),
    ).pipe(Effect.orDie)
  const setRow = (id: string, bytes: Uint8Array) =>
    Effect.orDie(sql`UPDATE ${sql(table)} SET sealed = ${Buffer.from(bytes)} WHERE errand_hash = ${rowKeyFor(id)}`)
  return { table, store, sql, rowOf, setRow, original: yield* rowOf('victim') }
})

const victimRow = rowKeyFor('victim')

describe('damaged Postgres rows', () => {
  it.scoped(
    "flipping any byte of a row fails that errand only, with the field's reason",
    () =>
      Effect.gen(function* () {
        const { store, setRow, original } = yield* setup
        for (let i = 0; i < original.length; i++) {
          const damaged = Buffer.from(original)
          damaged[i] = (damaged[i] ?? 0) ^ 0xff
          yield* setRow('victim', damaged)
          yield* expectOnlyVictim(store, expectedAt(i, Buffer.byteLength('victim')), `byte ${i}`, victimRow)
        }
        yield* setRow('victim', original)
        expect(Option.isSome(yield* store.get('victim'))).toBe(true)
      }),
    60_000,
  )

  it.scoped(
    'a row cut at any length is truncated; trailing bytes are malformed',
    () =>
      Effect.gen(function* () {
        const { store, setRow, original } = yield* setup
        for (let length = 0; length < original.length; length += 7) {
          yield* setRow('victim', original.subarray(0, length))
          yield* expectOnlyVictim(store, ['truncated'], `cut at ${length}`, victimRow)
        }
        yield* setRow('victim', Buffer.concat([original, Buffer.from([0])]))
        yield* expectOnlyVictim(store, ['malformed'], 'one byte appended', victimRow)
      }),
    60_000,
  )

  it.scoped(
    'a newer version is unknown-version and problems() names its errand; discard() removes only a still-damaged row',
    () =>
      Effect.gen(function* () {
        const { store, setRow, original } = yield* setup
        const bumped = Buffer.from(original)
        bumped[4] = 2
        yield* setRow('victim', bumped)
        yield* expectOnlyVictim(store, ['unknown-version'], 'version 2', victimRow)
        expect(yield* store.problems()).toEqual([
          { file: rowKeyFor('victim'), errandId: 'victim', reason: 'unknown-version' },
        ])
        yield* setRow('victim', original)
        yield* store.discard(rowKeyFor('victim'))
        expect(Option.isSome(yield* store.get('victim'))).toBe(true)
        yield* setRow('victim', bumped)
        yield* store.discard(rowKeyFor('victim'))
        yield* store.discard(rowKeyFor('victim'))
        expect(yield* store.problems()).toEqual([])
        expect(yield* store.get('victim')).toEqual(Option.none())
        expect(Exit.isFailure(yield* Effect.exit(store.discard("x' OR '1'='1")))).toBe(true)
        expect((yield* store.list()).map((e) => e.errandId)).toEqual(['after', 'before'])
      }),
  )

  it.scoped("a row sealed under another key is foreign-key; another errand's row copied over it is tampered", () =>
    Effect.gen(function* () {
      const { store, setRow, rowOf } = yield* setup
      yield* setRow('victim', seal(deviceKey(randomBytes(32)), 'victim', 1_000, Buffer.from('{}')))
      yield* expectOnlyVictim(store, ['foreign-key'], 'foreign key', victimRow)
      yield* setRow('victim', yield* rowOf('before'))
      yield* expectOnlyVictim(store, ['tampered'], 'copied row', victimRow)
      expect(yield* store.problems()).toEqual([{ file: rowKeyFor('victim'), errandId: undefined, reason: 'tampered' }])
    }),
  )

  it.scoped(
    'a payload that decrypts but is not a parked record is malformed; a damaged row can be removed and written afresh',
    () =>
      Effect.gen(function* () {
        const { store, setRow } = yield* setup
        yield* setRow('victim', seal(deviceKey(key), 'victim', 1_000, Buffer.from('{"nope":1}')))
        yield* expectOnlyVictim(store, ['malformed'], 'not a record', victimRow)
        const recovered = yield* store
          .get('victim')
          .pipe(Effect.catchTag('RecordUnreadable', (e) => store.remove(e.errandId).pipe(Effect.as(Option.none()))))
        expect(recovered).toEqual(Option.none())
        yield* store.put(sampleRecord('victim', 2_000, 'again'))
        expect(Option.map(yield* store.get('victim'), (r) => r.parkedAt)).toEqual(Option.some(2_000))
      }),
  )
})

describe('Postgres rows are sealed files', () => {
  it.scoped('a sealed file of the file store, put in a row as it is, reads back: one format, one AAD', () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      const files = yield* Layer.build(SealedStore.layer({ dir, key: Redacted.make(key) })).pipe(
        Effect.map(Context.get(SealedStore)),
        Effect.orDie,
      )
      const record = sampleRecord('from-a-file', 5_000, 'F')
      yield* files.put(record)
      const bytes = readFileSync(join(dir, ERRANDS_DIR, fileNameFor('from-a-file')))
      const table = freshTable()
      const store = yield* openStore(pg.url(), { key: Redacted.make(key), table })
      const sql = yield* sqlClient(pg.url())
      yield* Effect.orDie(
        sql`INSERT INTO ${sql(table)} (errand_hash, sealed) VALUES (${rowKeyFor('from-a-file')}, ${bytes})`,
      )
      expect(yield* store.get('from-a-file')).toEqual(Option.some(record))
      expect(yield* store.list()).toEqual([{ errandId: 'from-a-file', parkedAt: 5_000 }])
    }),
  )

  it.scoped(
    'no cookie value, localStorage value or URL is in the table in plaintext, and each write has a fresh nonce',
    () =>
      Effect.gen(function* () {
        const table = freshTable()
        const store = yield* openStore(pg.url(), { key: Redacted.make(key), table })
        const sql = yield* sqlClient(pg.url())
        const dump = (s: SqlClient.SqlClient) =>
          Effect.orDie(
            s<{
              errand_hash: string
              sealed: Uint8Array
            }>`SELECT errand_hash, sealed FROM ${s(table)} ORDER BY errand_hash`,
          )
        yield* store.put(sampleRecord('errand-one', 0, 'A'))
        const first = yield* dump(sql)
        yield* store.put(sampleRecord('errand-one', 0, 'A'))
        yield* store.update('errand-one', (r) => ({ ...r, lentSites: [...r.lentSites, 'more.example'] }))
        const rows = yield* dump(sql)
        expect(rows).toHaveLength(1)
        const text = rows.map((r) => `${r.errand_hash} ${Buffer.from(r.sealed).toString('latin1')}`).join('\n')
        for (const secret of [
          'ck-7f3a9e1b',
          'ls-4c2d8e0a',
          'secret-host-91b2',
          'inbox-q8z',
          'plain-A',
          'shop.example',
          'conv-',
        ]) {
          expect(text.includes(secret), secret).toBe(false)
        }
        expect(Buffer.from(rows[0]!.sealed).equals(Buffer.from(first[0]!.sealed))).toBe(false)
      }),
  )
})
