import { randomBytes } from 'node:crypto'
import { Effect, Option, Redacted } from 'effect'
import { afterAll, describe, expect, it } from 'vitest'
import { allFiles } from '../../packages/store/src/fixtures.ts'
import { DEFAULT_TABLE } from '../../packages/store-pg/src/index.ts'
import { spawnEngine, type EngineProcess } from '../fixtures/engineProcess.ts'
import { comparable, fillErrand, useSitesAndDirs, type ErrandState } from '../fixtures/parkedErrands.ts'
import type { Site } from '../fixtures/sites.ts'
import { openStore, sqlClient, usePostgres } from './harness.ts'

/*
 * K2 with the real engine process and real Chromium: ERRANDS_DATABASE_URL puts the sealed store
 * in Postgres. An errand parked by one engine resumes in another engine with an empty data dir
 * (so it can only have come from Postgres) with its cookies, localStorage and tabs; revoking a
 * site and signing out everywhere reach the parked rows (L5); nothing sealed lands on disk.
 */

const pg = usePostgres()
const key = randomBytes(32)
const fixture = useSitesAndDirs(3, 'errands-pg-engine-')
const SECRET = 'cookie-secret-5d1e'
const LOCAL = 'local-secret-0a7c'

const engines: Array<EngineProcess> = []
const engine = async (dataDir: string) => {
  const e = await spawnEngine(dataDir, { ERRANDS_DATABASE_URL: pg.current().url, STORE_KEY: key.toString('hex') })
  engines.push(e)
  return e
}
// A failed test must not leave an engine (and its Chromium) running: kill is a no-op for one that exited.
afterAll(async () => {
  await Promise.all(engines.map((e) => e.kill()))
})
const fill = (e: EngineProcess, id: string, on: ReadonlyArray<Site>) =>
  fillErrand(e, id, on, { secret: SECRET, local: LOCAL })

/** The parked record as a store on the same table reads it. */
const parked = (id: string) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const store = yield* openStore(pg.url(), { key: Redacted.make(key), table: DEFAULT_TABLE })
        return yield* Effect.orDie(store.get(id))
      }),
    ),
  )

describe('engines over one Postgres store', () => {
  it('parked in one engine, resumed in another with an empty data dir: cookies, localStorage and tabs intact; revoke ' +
    'and sign out reach the rows', async () => {
    const sites = fixture.sites()
    const firstDir = fixture.freshDir()
    const first = await engine(firstDir)
    const trip = await fill(first, 'trip', sites)
    const other = await fill(first, 'other', sites.slice(1, 2))
    expect(comparable(trip).cookies).toHaveLength(3)
    await first.call({ op: 'task', id: 'trip', status: 'interrupted' })
    expect(await first.exit()).toBe(0) // parks 'other' on shutdown (E5)

    // S1 in Postgres: the rows hold no cookie value, storage value or URL; the data dir holds no sealed record.
    const rows = await Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(sqlClient(pg.url()), (sql) =>
          Effect.orDie(sql<{ sealed: Uint8Array }>`SELECT sealed FROM ${sql(DEFAULT_TABLE)}`),
        ),
      ),
    )
    expect(rows).toHaveLength(2)
    for (const row of rows) {
      const text = Buffer.from(row.sealed).toString('latin1')
      for (const needle of [SECRET, LOCAL, sites[0]!.origin, '127.0.0.', '/add?item'])
        expect(text).not.toContain(needle)
    }
    expect((await allFiles(firstDir)).filter((f) => f.path.endsWith('.sealed'))).toEqual([])

    const second = await engine(fixture.freshDir())
    const list = await second.call<Array<{ conversationId: string; state: string }>>({ op: 'list' })
    expect(list.map((v) => [v.conversationId, v.state]).sort()).toEqual([
      ['other', 'parked'],
      ['trip', 'parked'],
    ])

    // Revoking a site (L5) takes it out of the parked rows before anything resumes.
    await second.call({ op: 'revoke', site: sites[0]!.host })
    const revoked = Option.getOrThrow(await parked('trip'))
    expect(revoked.snapshot.storage.cookies.map((c) => c.domain)).not.toContain(sites[0]!.host)
    expect(revoked.snapshot.storage.cookies).toHaveLength(2)

    const after = await second.call<ErrandState>({ op: 'resume', id: 'trip' })
    const expected = comparable(trip)
    expect(comparable(after)).toEqual({
      tabs: expected.tabs,
      cookies: expected.cookies.filter((c) => !c.startsWith(`${sites[0]!.host} `)),
      local: expected.local.filter((o) => !o.startsWith(`${sites[0]!.origin} `)),
    })

    // Sign out everywhere reaches the errand still parked in Postgres.
    expect(comparable(other).cookies).toHaveLength(1)
    await second.call({ op: 'signout' })
    const signedOut = Option.getOrThrow(await parked('other'))
    expect(signedOut.snapshot.storage.cookies).toEqual([])
    expect(signedOut.snapshot.storage.origins.flatMap((o) => o.localStorage)).toEqual([])
    expect(await second.exit()).toBe(0)
  }, 120_000)
})
