import { randomBytes } from 'node:crypto'
import { describe, expect, it } from '@effect/vitest'
import { Effect, Exit, Layer, Option, Redacted } from 'effect'
import { sampleRecord } from '../../packages/store/src/fixtures.ts'
import { PgSealedStore } from '../../packages/store-pg/src/index.ts'
import { freshTable, openStore, usePostgres } from './harness.ts'

/*
 * K2 across hosts: several stores (each its own connection pool, as separate hosts have) on one
 * table share the parked errands and the write lock; a wrong key is `foreign-key`, not a crash;
 * a database that cannot be reached or a bad option fails at start with a message free of secrets.
 */

const pg = usePostgres()

describe('one table, several hosts', () => {
  it.scoped('what one host parks another resumes, and concurrent updates from both hosts are all kept', () =>
    Effect.gen(function* () {
      const key = Redacted.make(randomBytes(32))
      const table = freshTable()
      const [a, b] = [yield* openStore(pg.url(), { key, table }), yield* openStore(pg.url(), { key, table })]
      yield* a.put({ ...sampleRecord('e1', 1_000), lentSites: [] })
      expect(Option.map(yield* b.get('e1'), (r) => r.conversationId)).toEqual(Option.some('conv-e1'))
      const sites = Array.from({ length: 20 }, (_, i) => `site${i}.example`)
      yield* Effect.forEach(
        sites,
        (site, i) => (i % 2 === 0 ? a : b).update('e1', (r) => ({ ...r, lentSites: [...r.lentSites, site] })),
        { concurrency: 'unbounded', discard: true },
      )
      expect([...Option.getOrThrow(yield* a.get('e1')).lentSites].sort()).toEqual([...sites].sort())
      // Sign out everywhere from one host reaches the rows the other parked.
      yield* b.put(sampleRecord('e2', 1_000))
      yield* a.clear()
      expect(yield* b.list()).toEqual([])
    }),
  )

  it.scoped('retention counts the whole table: 40 records across two hosts', () =>
    Effect.gen(function* () {
      const key = Redacted.make(randomBytes(32))
      const table = freshTable()
      const [a, b] = [yield* openStore(pg.url(), { key, table }), yield* openStore(pg.url(), { key, table })]
      yield* Effect.forEach(
        Array.from({ length: 44 }, (_, i) => i),
        (i) => (i % 2 === 0 ? a : b).put(sampleRecord(`e${String(i).padStart(2, '0')}`, 1_000 + i)),
        { concurrency: 4, discard: true },
      )
      const left = (yield* a.list()).map((e) => e.errandId)
      expect(left).toHaveLength(40)
      expect(left[0]).toBe('e04')
    }),
  )

  it.scoped('a host with another device key reads the shared rows as foreign-key, for each errand alone', () =>
    Effect.gen(function* () {
      const table = freshTable()
      // Both open before anything is sealed (afterwards the stranger would not start at all).
      const a = yield* openStore(pg.url(), { key: Redacted.make(randomBytes(32)), table })
      const stranger = yield* openStore(pg.url(), { key: Redacted.make(randomBytes(32)), table })
      yield* a.put(sampleRecord('e1', 1_000))
      const error = yield* Effect.flip(stranger.get('e1'))
      expect(error._tag === 'RecordUnreadable' && error.reason).toBe('foreign-key')
      expect((yield* stranger.list()).map((e) => e.errandId)).toEqual(['e1'])
    }),
  )
})

describe('starting the Postgres store', () => {
  it.scoped(
    "a host whose key sealed nothing in a table full of another key's rows refuses to start, and deletes nothing",
    () =>
      Effect.gen(function* () {
        const table = freshTable()
        const key = Redacted.make(randomBytes(32))
        const a = yield* openStore(pg.url(), { key, table })
        for (const id of ['e1', 'e2']) yield* a.put(sampleRecord(id, 1_000))
        const refused = yield* Effect.flip(
          Layer.build(PgSealedStore.layer({ url: pg.url(), key: Redacted.make(randomBytes(32)), table })),
        )
        expect(refused._tag === 'StoreConfigError' && refused.reason).toBe('invalid-key')
        expect(refused.message).toContain('same key')
        expect((yield* a.list()).map((e) => e.errandId)).toEqual(['e1', 'e2'])
        // A host holding the key starts as before, beside rows of an old key read one by one as foreign-key.
        const again = yield* openStore(pg.url(), { key, table })
        expect((yield* again.list()).map((e) => e.errandId)).toEqual(['e1', 'e2'])
      }),
  )

  it.effect('an unreachable database fails start-up with StoreError, without the password', () =>
    Effect.gen(function* () {
      const url = `postgres://errands:hunter2-secret@127.0.0.1:${pg.current().port}/nowhere`
      const exit = yield* Effect.exit(
        Layer.build(PgSealedStore.layer({ url: Redacted.make(url), key: Redacted.make(randomBytes(32)) })).pipe(
          Effect.scoped,
        ),
      )
      expect(Exit.isFailure(exit)).toBe(true)
      const text = JSON.stringify(exit)
      expect(text).toContain('StoreError')
      expect(text).not.toContain('hunter2')
    }),
  )

  it.effect('a bad table name or retention is StoreConfigError naming the option; a short key is invalid-key', () =>
    Effect.gen(function* () {
      const build = (options: Partial<Parameters<typeof PgSealedStore.layer>[0]>) =>
        Effect.flip(
          Layer.build(PgSealedStore.layer({ url: pg.url(), key: Redacted.make(randomBytes(32)), ...options })).pipe(
            Effect.scoped,
          ),
        )
      const table = yield* build({ table: 'x; DROP TABLE y' })
      expect(table._tag === 'StoreConfigError' && table.message).toContain('table')
      const records = yield* build({ table: freshTable(), maxRecords: 0 })
      expect(records._tag === 'StoreConfigError' && records.message).toContain('maxRecords')
      const key = yield* build({ table: freshTable(), key: Redacted.make(randomBytes(16)) })
      expect(key._tag === 'StoreConfigError' && key.reason).toBe('invalid-key')
    }),
  )
})
