/**
 * The person's settings of a cluster in Postgres (issue #24: "Allow and always-allow reach every
 * host"): several hosts — each its own connection pool, as separate processes have — read what
 * any of them was told, changes from two hosts at once all land, a site is checked like the
 * file's, and a database that is gone is a typed 503, not a guess.
 */
import { describe, expect, it } from '@effect/vitest'
import { PERSON_SETTINGS_TABLE, PgSettings } from '@errands/cluster'
import { Settings } from '@errands/lending'
import { Context, Effect, Layer, Redacted } from 'effect'
import { freePort } from '../fixtures/ports.ts'
import { sqlClient, usePostgres } from '../store-pg/harness.ts'

const pg = usePostgres()

/** One host's settings, in the current scope. */
const host = () =>
  Layer.build(PgSettings.layer({ url: pg.url() })).pipe(Effect.map(Context.get(Settings)), Effect.orDie)

/** Starts each case from an empty table (a host's start creates it). */
const empty = Effect.gen(function* () {
  yield* host()
  const sql = yield* sqlClient(pg.url())
  yield* Effect.orDie(sql`DELETE FROM ${sql(PERSON_SETTINGS_TABLE)}`)
})

describe("the person's settings shared by a cluster's hosts (issue #24)", () => {
  it.scoped('start at the defaults; what one host is told, every host reads at once', () =>
    Effect.gen(function* () {
      yield* empty
      const [a, b, c] = [yield* host(), yield* host(), yield* host()]
      expect(yield* b.get).toEqual({ version: 1, alwaysAllowed: [], trust: 'ask' })
      expect((yield* a.allowAlways('www.Shop.example')).alwaysAllowed).toEqual(['shop.example'])
      expect(yield* b.get).toEqual({ version: 1, alwaysAllowed: ['shop.example'], trust: 'ask' })
      expect((yield* c.setTrust('auto')).trust).toBe('auto')
      expect(yield* a.get).toEqual({ version: 1, alwaysAllowed: ['shop.example'], trust: 'auto' })
      // Idempotent both ways, and a removal on one host is gone on the others.
      expect((yield* b.allowAlways('shop.example')).alwaysAllowed).toEqual(['shop.example'])
      expect((yield* b.removeAlways('a.shop.example')).alwaysAllowed).toEqual([])
      expect((yield* c.removeAlways('shop.example')).alwaysAllowed).toEqual([])
      expect((yield* a.get).alwaysAllowed).toEqual([])
    }),
  )

  it.scoped('changes from two hosts at once all land (no read-modify-write loses one)', () =>
    Effect.gen(function* () {
      yield* empty
      const [a, b] = [yield* host(), yield* host()]
      const sites = Array.from({ length: 20 }, (_, i) => `site${i}.example`)
      yield* Effect.forEach(sites, (site, i) => (i % 2 === 0 ? a : b).allowAlways(site), {
        concurrency: 'unbounded',
        discard: true,
      })
      expect((yield* b.get).alwaysAllowed).toEqual([...sites].sort())
      yield* Effect.all([a.setTrust('full'), b.removeAlways('site3.example')], { concurrency: 'unbounded' })
      expect(yield* a.get).toEqual({
        version: 1,
        alwaysAllowed: [...sites].filter((s) => s !== 'site3.example').sort(),
        trust: 'full',
      })
    }),
  )

  it.scoped('a non-site is refused before it is written; a broken row is named, not guessed around', () =>
    Effect.gen(function* () {
      yield* empty
      const a = yield* host()
      const refused = yield* Effect.flip(a.allowAlways('https://user:token@shop.example/x'))
      expect(refused).toMatchObject({ _tag: 'SettingsError', reason: 'invalid-site' })
      expect(refused.message).not.toContain('token')
      const sql = yield* sqlClient(pg.url())
      yield* Effect.orDie(sql`INSERT INTO ${sql(PERSON_SETTINGS_TABLE)} (name, value) VALUES ('trust', 'reckless')`)
      expect(yield* Effect.flip(a.get)).toMatchObject({ _tag: 'SettingsError', reason: 'invalid-file' })
      expect((yield* Effect.flip(a.get)).message).toContain(PERSON_SETTINGS_TABLE)
    }),
  )

  it.scoped('a database that cannot be reached is SettingsError(database), a 503 a person can retry', () =>
    Effect.gen(function* () {
      const port = yield* Effect.promise(() => freePort())
      const url = Redacted.make(`postgres://errands:secret@127.0.0.1:${port}/errands`)
      const error = yield* Effect.flip(Layer.build(PgSettings.layer({ url })))
      expect(error).toMatchObject({ _tag: 'SettingsError', reason: 'database' })
      expect(error.status).toBe(503)
      expect(error.message).not.toContain('secret')
    }),
  )
})
