import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Effect, Option, Redacted } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { allFiles } from '../../packages/store/src/fixtures.ts'
import { DEFAULT_TABLE } from '../../packages/store-pg/src/index.ts'
import { spawnEngine, type EngineProcess } from '../fixtures/engineProcess.ts'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { openStore, sqlClient, usePostgres } from './harness.ts'

/*
 * K2 with the real engine process and real Chromium: ERRANDS_DATABASE_URL puts the sealed store
 * in Postgres. An errand parked by one engine resumes in another engine with an empty data dir
 * (so it can only have come from Postgres) with its cookies, localStorage and tabs; revoking a
 * site and signing out everywhere reach the parked rows (L5); nothing sealed lands on disk.
 */

interface State {
  tabs: Array<{ url: string; active: boolean }>
  storage: { cookies: Array<{ name: string; value: string; domain: string }>; origins: Array<{ origin: string; localStorage: Array<{ name: string; value: string }> }> }
}

const pg = usePostgres()
const key = randomBytes(32)
let sites: Array<Site>
const dirs: Array<string> = []
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'errands-pg-engine-'))
  dirs.push(d)
  return d
}
beforeAll(async () => {
  sites = await serveSites(3)
})
afterAll(async () => {
  await closeSites(sites)
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const SECRET = 'cookie-secret-5d1e'
const LOCAL = 'local-secret-0a7c'

const engine = (dataDir: string) => spawnEngine(dataDir, { ERRANDS_DATABASE_URL: pg.current().url, STORE_KEY: key.toString('hex') })

/** An errand with one tab per site (of `on`), a cookie and a localStorage item on each. */
const fill = async (e: EngineProcess, id: string, on: ReadonlyArray<Site> = sites): Promise<State> => {
  await e.call({ op: 'open', id })
  for (const [i, site] of on.entries()) {
    const tab = await e.call<{ id: string }>({ op: 'tab', id, url: site.url(`/add?item=${SECRET}-${id}-${i}`) })
    await e.call({ op: 'local', id, tab: tab.id, key: 'basket', value: `${LOCAL}-${id}-${i}` })
  }
  return e.call<State>({ op: 'state', id })
}

const comparable = (s: State) => ({
  tabs: s.tabs,
  cookies: s.storage.cookies.map((c) => `${c.domain} ${c.name}=${c.value}`).sort(),
  local: s.storage.origins.filter((o) => o.localStorage.length > 0).map((o) => `${o.origin} ${o.localStorage.map((i) => `${i.name}=${i.value}`).join(',')}`).sort(),
})

/** The parked record as a store on the same table reads it. */
const parked = (id: string) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function* () {
    const store = yield* openStore(pg.url(), { key: Redacted.make(key), table: DEFAULT_TABLE })
    return yield* Effect.orDie(store.get(id))
  })))

describe('engines over one Postgres store', () => {
  it('parked in one engine, resumed in another with an empty data dir: cookies, localStorage and tabs intact; revoke and sign out reach the rows', async () => {
    const firstDir = freshDir()
    const first = await engine(firstDir)
    const trip = await fill(first, 'trip')
    const other = await fill(first, 'other', sites.slice(1, 2))
    expect(comparable(trip).cookies).toHaveLength(3)
    await first.call({ op: 'task', id: 'trip', status: 'interrupted' })
    expect(await first.exit()).toBe(0) // parks 'other' on shutdown (E5)

    // S1 in Postgres: the rows hold no cookie value, storage value or URL; the data dir holds no sealed record.
    const rows = await Effect.runPromise(Effect.scoped(Effect.flatMap(sqlClient(pg.url()), (sql) =>
      Effect.orDie(sql<{ sealed: Uint8Array }>`SELECT sealed FROM ${sql(DEFAULT_TABLE)}`))))
    expect(rows).toHaveLength(2)
    for (const row of rows) {
      const text = Buffer.from(row.sealed).toString('latin1')
      for (const needle of [SECRET, LOCAL, sites[0]!.origin, '127.0.0.', '/add?item']) expect(text).not.toContain(needle)
    }
    expect((await allFiles(firstDir)).filter((f) => f.path.endsWith('.sealed'))).toEqual([])

    const second = await engine(freshDir())
    const list = await second.call<Array<{ conversationId: string; state: string }>>({ op: 'list' })
    expect(list.map((v) => [v.conversationId, v.state]).sort()).toEqual([['other', 'parked'], ['trip', 'parked']])

    // Revoking a site (L5) takes it out of the parked rows before anything resumes.
    await second.call({ op: 'revoke', site: sites[0]!.host })
    const revoked = Option.getOrThrow(await parked('trip'))
    expect(revoked.snapshot.storage.cookies.map((c) => c.domain)).not.toContain(sites[0]!.host)
    expect(revoked.snapshot.storage.cookies).toHaveLength(2)

    const after = await second.call<State>({ op: 'resume', id: 'trip' })
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
