import { describe, expect, it } from '@effect/vitest'
import { Effect, Exit, type Layer, Option, TestClock } from 'effect'
import { sampleRecord } from './fixtures.ts'
import type { ParkedRecord } from './record.ts'
import { DAY_MS, type Retention } from './retention.ts'
import { SealedStore } from './SealedStore.ts'

/*
 * The behaviour every SealedStore keeps, run against the disk store (disk.test.ts) and the
 * memory store (memory.test.ts) so the supervisor's fake cannot drift from the real thing.
 * Time comes from TestClock (it starts at 0 in `it.effect`).
 */

type MakeLayer = (retention?: Partial<Retention>) => Layer.Layer<SealedStore, unknown>

const at = (errandId: string, tag = 'A') =>
  Effect.map(
    Effect.clockWith((c) => c.currentTimeMillis),
    (now) => sampleRecord(errandId, now, tag),
  )

const ids = Effect.flatMap(SealedStore, (s) => s.list()).pipe(Effect.map((es) => es.map((e) => e.errandId)))

/**
 * Registers the shared behaviour tests for one store implementation.
 *
 * @example
 * storeContract('memory', (r) => SealedStore.layerMemoryWith(r ?? {}))
 */
export const storeContract = (name: string, makeLayer: MakeLayer): void => {
  const run = <A, E>(effect: Effect.Effect<A, E, SealedStore>, retention?: Partial<Retention>) =>
    Effect.provide(effect, makeLayer(retention))

  describe(`SealedStore contract: ${name}`, () => {
    it.effect('round-trips a record and says None for an unknown errand', () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          const record = yield* at('e1')
          yield* store.put(record)
          expect(yield* store.get('e1')).toEqual(Option.some(record))
          expect(yield* store.get('nobody')).toEqual(Option.none())
        }),
      ),
    )

    it.effect("seals an errand's files with its record, and removes them with it (F3, E3)", () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          const bytes = new Uint8Array(64 * 1024).map((_, i) => i % 251)
          const files = [
            {
              name: 'report.pdf',
              type: 'application/pdf',
              at: 5,
              source: 'https://shop.example/r.pdf',
              origin: 'download' as const,
              data: Buffer.from(bytes).toString('base64'),
            },
            { name: 'note.txt', type: 'text/plain', at: 6, source: null, origin: 'staged' as const, data: '' },
          ]
          const record: ParkedRecord = { ...(yield* at('e1')), files }
          yield* store.put(record)
          const back = Option.getOrThrow(yield* store.get('e1'))
          expect(back.files).toEqual(files)
          expect(new Uint8Array(Buffer.from(back.files![0]!.data, 'base64'))).toEqual(bytes)
          yield* store.remove('e1')
          expect(yield* store.get('e1')).toEqual(Option.none())
          expect(yield* ids).toEqual([])
        }),
      ),
    )

    it.effect('keeps ids with odd characters apart', () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          const odd = ['../../etc/passwd', 'a/b\\c', 'ünï😀cødé', 'x'.repeat(200), '.', 'CON', 'a\nb']
          for (const id of odd) yield* store.put(yield* at(id, id.slice(0, 3)))
          for (const id of odd) {
            const got = yield* store.get(id)
            expect(Option.map(got, (r) => r.snapshot.storage.cookies[1]?.value)).toEqual(
              Option.some(`plain-${id.slice(0, 3)}`),
            )
          }
          expect([...(yield* ids)].sort()).toEqual([...odd].sort())
        }),
      ),
    )

    it.effect("hands out copies: neither the caller's record nor a returned one is shared", () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          const record = yield* at('e1')
          yield* store.put(record)
          ;(record.lentSites as Array<string>).push('evil.example')
          const first = Option.getOrThrow(yield* store.get('e1'))
          ;(first.snapshot.tabs as Array<unknown>).length = 0
          const second = Option.getOrThrow(yield* store.get('e1'))
          expect(second.lentSites).toEqual(['shop.example'])
          expect(second.snapshot.tabs).toHaveLength(2)
        }),
      ),
    )

    it.effect("replaces an errand's record on put", () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          yield* store.put(yield* at('e1', 'A'))
          const b = yield* at('e1', 'B')
          yield* store.put(b)
          expect(yield* store.get('e1')).toEqual(Option.some(b))
          expect(yield* ids).toEqual(['e1'])
        }),
      ),
    )

    it.effect('removes idempotently', () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          yield* store.put(yield* at('e1'))
          yield* store.remove('e1')
          yield* store.remove('e1')
          yield* store.remove('never-was')
          expect(yield* store.get('e1')).toEqual(Option.none())
          expect(yield* ids).toEqual([])
        }),
      ),
    )

    it.effect('lists oldest first with the parking times', () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          yield* TestClock.setTime(5_000)
          yield* store.put(yield* at('b'))
          yield* TestClock.adjust(1_000)
          yield* store.put(yield* at('c'))
          yield* store.put({ ...(yield* at('a')), parkedAt: 1_000 })
          expect(yield* store.list()).toEqual([
            { errandId: 'a', parkedAt: 1_000 },
            { errandId: 'b', parkedAt: 5_000 },
            { errandId: 'c', parkedAt: 6_000 },
          ])
        }),
      ),
    )

    it.effect('updates a record in place (revoking a lent site) and says None for a missing one', () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          yield* store.put(yield* at('e1'))
          yield* store.put(yield* at('e2'))
          const revoke = (r: ParkedRecord): ParkedRecord => ({
            ...r,
            lentSites: r.lentSites.filter((s) => s !== 'shop.example'),
            snapshot: {
              ...r.snapshot,
              storage: {
                ...r.snapshot.storage,
                cookies: r.snapshot.storage.cookies.filter((c) => !c.domain.endsWith('shop.example')),
              },
            },
          })
          const updated = yield* store.update('e1', revoke)
          expect(Option.map(updated, (r) => r.lentSites)).toEqual(Option.some([]))
          const back = Option.getOrThrow(yield* store.get('e1'))
          expect(back.lentSites).toEqual([])
          expect(back.snapshot.storage.cookies.map((c) => c.name)).toEqual(['pref'])
          expect(Option.getOrThrow(yield* store.get('e2')).lentSites).toEqual(['shop.example'])
          expect(yield* store.update('missing', revoke)).toEqual(Option.none())
          const exit = yield* Effect.exit(store.update('e2', (r) => ({ ...r, errandId: 'other' })))
          expect(Exit.isFailure(exit) && !Exit.isInterrupted(exit)).toBe(true)
          expect(yield* store.get('other')).toEqual(Option.none())
        }),
      ),
    )

    it.effect('serialises concurrent updates: none is lost', () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          yield* store.put({ ...(yield* at('e1')), lentSites: [] })
          const sites = Array.from({ length: 20 }, (_, i) => `site${i}.example`)
          yield* Effect.forEach(
            sites,
            (site) => store.update('e1', (r) => ({ ...r, lentSites: [...r.lentSites, site] })),
            { concurrency: 'unbounded', discard: true },
          )
          const back = Option.getOrThrow(yield* store.get('e1'))
          expect([...back.lentSites].sort()).toEqual([...sites].sort())
        }),
      ),
    )

    it.effect('rejects an invalid record as a defect and stores nothing', () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          const bad = { ...(yield* at('x')), errandId: '' }
          const exit = yield* Effect.exit(store.put(bad))
          expect(Exit.isFailure(exit)).toBe(true)
          // The defect names the failing path, never the values (which may be cookie values).
          expect(JSON.stringify(exit)).toContain('errandId')
          expect(JSON.stringify(exit)).not.toContain('SECRET')
          expect(yield* ids).toEqual([])
        }),
      ),
    )

    it.effect('clears every record ("sign out of every site") and keeps working', () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          for (const id of ['a', 'b', 'c']) yield* store.put(yield* at(id))
          yield* store.clear()
          expect(yield* ids).toEqual([])
          expect(yield* store.get('a')).toEqual(Option.none())
          yield* store.put(yield* at('d'))
          expect(yield* ids).toEqual(['d'])
        }),
      ),
    )

    it.effect('keeps at most 40 records: the 41st put drops the oldest', () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          for (let i = 0; i < 41; i++) {
            yield* store.put(yield* at(`e${String(i).padStart(2, '0')}`))
            yield* TestClock.adjust(1_000)
          }
          const left = yield* ids
          expect(left).toHaveLength(40)
          expect(left).not.toContain('e00')
          expect(left[0]).toBe('e01')
          expect(yield* store.get('e00')).toEqual(Option.none())
          expect(yield* store.prune()).toEqual([])
        }),
      ),
    )

    it.effect('honours a configured maxRecords', () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          for (const id of ['a', 'b', 'c']) {
            yield* store.put(yield* at(id))
            yield* TestClock.adjust(10)
          }
          expect(yield* ids).toEqual(['b', 'c'])
        }),
        { maxRecords: 2 },
      ),
    )

    it.effect('drops a record older than 14 days, judged by parkedAt against the Clock', () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          yield* store.put(yield* at('old'))
          yield* TestClock.adjust(DAY_MS)
          yield* store.put(yield* at('younger'))
          yield* TestClock.adjust(13 * DAY_MS) // old: exactly 14 days, younger: 13 days
          expect(yield* store.prune()).toEqual([])
          yield* TestClock.adjust(DAY_MS) // old: 15 days
          expect(yield* store.prune()).toEqual(['old'])
          expect(yield* store.get('old')).toEqual(Option.none())
          expect(yield* ids).toEqual(['younger'])
          yield* TestClock.adjust(DAY_MS)
          yield* store.put(yield* at('new')) // retention also runs on put
          expect(yield* ids).toEqual(['new'])
        }),
      ),
    )

    it.effect('honours a configured maxAgeMs', () =>
      run(
        Effect.gen(function* () {
          const store = yield* SealedStore
          yield* store.put(yield* at('a'))
          yield* TestClock.adjust(61_000)
          expect(yield* store.prune()).toEqual(['a'])
        }),
        { maxAgeMs: 60_000 },
      ),
    )
  })
}
