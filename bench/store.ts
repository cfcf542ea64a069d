/**
 * The sealed store per call, file vs Postgres side by side (issue #16, K2): `put` (seal, write,
 * retention), `get` (read, unseal), `update` (the revocation path) and `list` (headers of 40
 * records), on one record the size of a parked errand with 3 sites. Postgres is a throw-away
 * server on this machine (test/fixtures/postgres.ts) with its fsyncs on, as the file store fsyncs
 * every write; on loopback, so a database on another machine adds its round trips to each call
 * (5–6 statements per write, 1 per read).
 *
 * @example
 * rows.push(...(await benchStore(50)))
 */
import { PgSealedStore } from '@errands/store-pg'
import { SealedStore, type ParkedRecord, type SealedStoreShape } from '@errands/store'
import { Context, Effect, Layer, Redacted, Scope, Exit } from 'effect'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sampleRecord } from '../packages/store/src/fixtures.ts'
import { startPostgres } from '../test/fixtures/postgres.ts'
import { interleave } from './common.ts'
import { median, type Row } from './table.ts'

/** A record like a parked errand's: 3 sites' cookies, ~2 KB of localStorage each, 3 tabs. */
const recordFor = (errandId: string, n: number): ParkedRecord => {
  const base = sampleRecord(errandId, Date.now(), `v${n}`)
  const origins = [1, 2, 3].map((i) => ({
    origin: `https://site${i}.example`,
    localStorage: [{ name: 'state', value: 'x'.repeat(2048) }],
  }))
  return {
    ...base,
    snapshot: {
      ...base.snapshot,
      storage: { cookies: [...base.snapshot.storage.cookies, ...base.snapshot.storage.cookies], origins },
      tabs: origins.map((o, i) => ({ url: `${o.origin}/page?i=${i}`, active: i === 0 })),
    },
  }
}

const build = (layer: Layer.Layer<SealedStore, unknown>, scope: Scope.Scope) =>
  Effect.runPromise(Layer.buildWithScope(layer, scope).pipe(Effect.map(Context.get(SealedStore))))

export const benchStore = async (rounds: number): Promise<Row[]> => {
  const pg = await startPostgres({ durable: true })
  const dir = mkdtempSync(join(tmpdir(), 'errands-bench-store-'))
  const scope = Effect.runSync(Scope.make())
  try {
    const key = Redacted.make(randomBytes(32))
    const stores: Record<string, SealedStoreShape> = {
      file: await build(SealedStore.layer({ dir: join(dir, 'store'), key }), scope),
      postgres: await build(PgSealedStore.layer({ url: Redacted.make(pg.url), key }), scope),
    }
    // 40 parked errands in each, so retention and list work on a full store.
    for (const store of Object.values(stores)) {
      for (let i = 0; i < 40; i++) await Effect.runPromise(store.put(recordFor(`e${i}`, 0)))
    }
    let n = 0
    const calls = {
      put: (s: SealedStoreShape) => s.put(recordFor('e7', ++n)),
      get: (s: SealedStoreShape) => s.get('e7'),
      update: (s: SealedStoreShape) =>
        s.update('e7', (r) => ({ ...r, lentSites: r.lentSites.length > 0 ? [] : ['shop.example'] })),
      list: (s: SealedStoreShape) => s.list(),
    } as const
    const rows: Row[] = []
    for (const [call, f] of Object.entries(calls)) {
      const sides = Object.fromEntries(
        Object.entries(stores).map(([name, store]) => [
          name,
          () => Effect.runPromise(f(store) as Effect.Effect<unknown, unknown>),
        ]),
      )
      const times = await interleave(sides, rounds, 5)
      const base = median(times.file!)
      for (const name of Object.keys(stores)) {
        rows.push({
          section: `sealed store: ${call} (40 records of ~8 KB; Postgres on loopback)`,
          name: name,
          median: median(times[name]!),
          ratio: median(times[name]!) / base,
        })
      }
    }
    return rows
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await pg.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}
