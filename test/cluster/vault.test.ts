/**
 * The person's passwords shared by a cluster's hosts (W1, S1, S3): one sealed row in Postgres,
 * each host its own connection pool as separate processes have. A password saved through one host
 * fills on another at once; adds from two hosts at once all land (a change of the whole vault
 * holds a lock across hosts); the row holds sealed bytes, never a password; a host with another
 * key opens nothing and changes nothing; a database that is gone is a typed 503.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from '@effect/vitest'
import { PASSWORDS_TABLE, PgVault } from '@errands/cluster'
import { Vault } from '@errands/passwords'
import { Context, Effect, Layer, Redacted } from 'effect'
import { freePort } from '../fixtures/ports.ts'
import { sqlClient, usePostgres } from '../store-pg/harness.ts'

const pg = usePostgres()
const sharedKey = Redacted.make(Uint8Array.from(randomBytes(32)))

/** One host's vault, in the current scope. */
const host = (key = sharedKey) =>
  Layer.build(PgVault.layer({ url: pg.url(), key })).pipe(Effect.map(Context.get(Vault)), Effect.orDie)

/** Starts each case from an empty table (a host's start creates it). */
const empty = Effect.gen(function* () {
  yield* host()
  const sql = yield* sqlClient(pg.url())
  yield* Effect.orDie(sql`DELETE FROM ${sql(PASSWORDS_TABLE)}`)
})

describe("the person's passwords shared by a cluster's hosts (W1)", () => {
  it.scoped('a password saved through one host fills on another; a removal is gone everywhere', () =>
    Effect.gen(function* () {
      yield* empty
      const [a, b] = [yield* host(), yield* host()]
      expect(yield* b.signIns).toEqual([])
      const added = yield* a.add({ site: 'shop.example', username: 'ann', password: 'correct horse battery' })
      expect(yield* b.signIns).toEqual([{ site: 'shop.example', username: 'ann', totp: false }])
      const entry = yield* b.forFill('https://www.shop.example/login', {})
      expect(Redacted.value(entry.password)).toBe('correct horse battery')
      yield* b.update(added.id, { password: 'a newer one' })
      expect(Redacted.value((yield* a.forFill('https://shop.example/', {})).password)).toBe('a newer one')
      yield* a.remove(added.id)
      expect(yield* b.list).toEqual([])
    }),
  )

  it.scoped('adds from two hosts at once all land, and the row holds sealed bytes only', () =>
    Effect.gen(function* () {
      yield* empty
      const [a, b] = [yield* host(), yield* host()]
      const users = Array.from({ length: 16 }, (_, i) => `user${i}`)
      yield* Effect.forEach(
        users,
        (username, i) => (i % 2 === 0 ? a : b).add({ site: 'mail.example', username, password: `pw-${username}-x` }),
        { concurrency: 'unbounded', discard: true },
      )
      expect((yield* a.signIns).map((s) => s.username).sort()).toEqual([...users].sort())
      const sql = yield* sqlClient(pg.url())
      const rows = yield* Effect.orDie(sql<{ sealed: Uint8Array }>`SELECT sealed FROM ${sql(PASSWORDS_TABLE)}`)
      expect(rows).toHaveLength(1)
      const bytes = Buffer.from(rows[0]?.sealed ?? [])
      expect(bytes.length).toBeGreaterThan(0)
      for (const needle of ['pw-user3-x', 'user3', 'mail.example'])
        expect(bytes.includes(Buffer.from(needle)), needle).toBe(false)
    }),
  )

  it.scoped("a host with another key opens nothing and overwrites nothing of the hosts' vault", () =>
    Effect.gen(function* () {
      yield* empty
      const a = yield* host()
      yield* a.add({ site: 'bank.example', username: 'ann', password: 'kept safe' })
      const stranger = yield* host(Redacted.make(Uint8Array.from(randomBytes(32))))
      expect(yield* Effect.flip(stranger.list)).toMatchObject({ _tag: 'VaultUnavailable', reason: 'unreadable' })
      const refused = yield* Effect.flip(stranger.add({ site: 'evil.example', username: 'x', password: 'y' }))
      expect(refused).toMatchObject({ _tag: 'VaultUnavailable', reason: 'unreadable' })
      expect((yield* a.signIns).map((s) => s.site)).toEqual(['bank.example'])
    }),
  )

  it.scoped('a database that cannot be reached is VaultUnavailable, a 503 naming no secret', () =>
    Effect.gen(function* () {
      const port = yield* Effect.promise(() => freePort())
      const url = Redacted.make(`postgres://errands:secret@127.0.0.1:${port}/errands`)
      const error = yield* Effect.flip(Layer.build(PgVault.layer({ url, key: sharedKey })))
      expect(error).toMatchObject({ _tag: 'VaultUnavailable', reason: 'io' })
      expect(error.status).toBe(503)
      expect(error.message).not.toContain('secret')
    }),
  )
})
