import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { SqlClient } from '@effect/sql'
import { Effect, Exit, Option, Redacted, Scope } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SealedStoreShape } from '../../packages/store/src/index.ts'
import { CRASH_ERRAND, versionOf } from '../store/crash-record.ts'
import { bundleWriter, killWriters, randomKills, startWriter, waitUntil, type Run } from '../store/crash-run.ts'
import { eventually } from '../fixtures/processes.ts'
import { freshTable, openStore, sqlClient, usePostgres } from './harness.ts'

// CI's short, fixed-seed version (docs/testing.md, "Long runs"): the same kills on every clean clone, so a
// failure replays. Other seeds: CRASH_SEED=<n>, or CRASH_SEED=random for a new one each run (printed on failure).
const crashSeed = () =>
  process.env.CRASH_SEED === 'random' ? Date.now() % 1_000_000 : Number(process.env.CRASH_SEED ?? 20261207)

/*
 * S4 for the Postgres store (K2), with real processes: a child parks one errand over and over
 * and is SIGKILLed, inside an open transaction or at a random moment; a fresh store must then
 * read the old or the new version, never an error, never a torn row, and the next writer must
 * not wait on a lock the dead one held.
 */

const here = dirname(fileURLToPath(import.meta.url))
const pg = usePostgres()
let work = ''
let writer = ''
const key = randomBytes(32)

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'errands-pg-crash-'))
  writer = await bundleWriter(join(here, 'crash-writer.ts'), work)
})
afterAll(() => {
  killWriters()
  rmSync(work, { recursive: true, force: true })
})

const startPgWriter = (table: string, from: number, hold = false): Run =>
  startWriter(writer, [String(from)], {
    PG_URL: pg.current().url,
    STORE_KEY: key.toString('hex'),
    STORE_TABLE: table,
    HOLD: hold ? '1' : '0',
  })

/** What a store on the table reads, and how many rows the table has. */
const readBack = (store: SealedStoreShape, sql: SqlClient.SqlClient, table: string) =>
  Effect.gen(function* () {
    const record = yield* Effect.either(store.get(CRASH_ERRAND))
    const rows = yield* Effect.orDie(sql<{ n: string }>`SELECT count(*) AS n FROM ${sql(table)}`)
    return { record, listed: yield* store.list(), problems: yield* store.problems(), rows: Number(rows[0]?.n) }
  }).pipe(Effect.orDie)

/** Opens a fresh store on the table (as a restarted host would) and reads what it holds. */
const inspect = (table: string) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const store = yield* openStore(pg.url(), { key: Redacted.make(key), table })
        return yield* readBack(store, yield* sqlClient(pg.url()), table)
      }),
    ),
  )

/**
 * A store kept open across a held transaction: opening one needs the write lock (retention runs at start), reading
 * does not.
 */
const openReader = async (table: string) => {
  const scope = Effect.runSync(Scope.make())
  const store = await Effect.runPromise(Scope.extend(openStore(pg.url(), { key: Redacted.make(key), table }), scope))
  const sql = await Effect.runPromise(Scope.extend(sqlClient(pg.url()), scope))
  const advisoryLocks = sql<{
    n: string
  }>`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted`.pipe(
    Effect.map((rows) => Number(rows[0]?.n)),
    Effect.orDie,
  )
  return {
    read: () => Effect.runPromise(readBack(store, sql, table)),
    advisoryLocks: () => Effect.runPromise(advisoryLocks),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void)),
  }
}

const versionIn = (seen: Awaited<ReturnType<typeof inspect>>, at: string): number | undefined => {
  if (seen.record._tag === 'Left') expect.fail(`${at}: ${seen.record.left.message}`)
  expect(seen.problems, at).toEqual([])
  return Option.match(seen.record.right, {
    onNone: () => undefined,
    onSome: (record) => {
      const version = versionOf(record)
      expect(version, `${at}: a torn or mixed record`).toBeDefined()
      expect(
        seen.listed.map((e) => e.errandId),
        at,
      ).toEqual([CRASH_ERRAND])
      return version
    },
  })
}

describe('Postgres sealed store under SIGKILL', () => {
  it('a writer killed inside its open transaction leaves the old row, seen by no one meanwhile, and no lock ' +
    'behind', async () => {
    const table = freshTable()
    const first = startPgWriter(table, 0)
    await waitUntil(() => first.done.length > 0 || first.child.exitCode !== null, 15_000, 'the first put')
    first.child.kill('SIGKILL')
    await first.closed
    let stored = versionIn(await inspect(table), 'after the first writer')
    expect(stored).toBeDefined()
    const reader = await openReader(table)
    for (let i = 0; i < 3; i++) {
      const at = `hold ${i}`
      const run = startPgWriter(table, stored! + 1, true)
      await waitUntil(() => run.held.length > 0 || run.child.exitCode !== null, 15_000, `the held put (${at})`)
      expect(run.stderr.join(''), at).toBe('')
      // The new version is written and the lock held, but nothing is committed: readers see the old one.
      expect(versionIn(await reader.read(), `${at}, while held`), at).toBe(stored)
      expect(await reader.advisoryLocks(), `${at}: the held writer holds the table's lock`).toBe(1)
      run.child.kill('SIGKILL')
      await run.closed
      // The server notices the closed socket at once, but rolls back on its own time: wait for it.
      expect(
        await eventually(async () => (await reader.advisoryLocks()) === 0),
        `${at}: the lock outlived its writer`,
      ).toBe(true)
      expect(versionIn(await inspect(table), `${at}, after the kill`), at).toBe(stored)
      // The dead writer's advisory lock went with its connection: the next writer gets through.
      const next = startPgWriter(table, stored! + 1)
      await waitUntil(
        () => next.done.length > 0 || next.child.exitCode !== null,
        15_000,
        `a put after the kill (${at})`,
      )
      next.child.kill('SIGKILL')
      await next.closed
      expect(next.stderr.join(''), at).toBe('')
      stored = versionIn(await inspect(table), `${at}, after the next writer`)
      expect(stored! >= next.done.at(-1)!, at).toBe(true)
    }
    await reader.close()
  }, 60_000)

  it('20 kills at random moments: a fresh store reads the old or the new version, never an error', async () => {
    const seed = crashSeed()
    const table = freshTable()
    const killedMidPut = await randomKills(
      {
        kills: 20,
        seed,
        start: (from) => startPgWriter(table, from),
        readVersion: async (at) => {
          const seen = await inspect(table)
          expect(seen.rows, at).toBe(1)
          return versionIn(seen, at)
        },
      },
      (ok, message) => expect(ok, message).toBe(true),
    )
    // The random delays must actually have hit a put in flight, or this test proves little.
    expect(killedMidPut, `seed ${seed}`).toBeGreaterThan(0)
    // Each kill starts a writer process that connects to Postgres before its first put: about 2.5 s quiet, and
    // on a loaded machine (a clean-clone run beside other work, load 20) past 4.5 s, which ran 20 of them over
    // the 90 s this had. The work is bounded by its kills (each first put waits at most 15 s), not by time.
  }, 240_000)
})
