/**
 * Which runner holds which open errand, in one Postgres table (issue #16, K3) — written only
 * from each runner's own supervisor (an errand becomes open here → its row names this runner;
 * parked or closed here → its row goes), read by every runner's healer: an errand whose row
 * names a runner that no longer refreshes its cluster row (dead: SIGKILL, power, network) is
 * asked to heal through the cluster, so it comes back on the runner that owns its shard now,
 * from its last sealed snapshot (the supervisor's `sealSnapshots`).
 *
 * The table is bookkeeping for finding orphans, never the judge of ownership: the cluster's
 * shard locks decide who runs an entity, and the errand runs only inside its entity.
 *
 * @example
 * const book = yield* makeOwnerBook({ self: '10.0.0.5:7787', expiryMs: 12_000 })
 * yield* book.orphans // [{ key: 'task-42', runner: '10.0.0.6:7787' }]
 */
import { SqlClient } from '@effect/sql'
import { sessionKeyOf } from '@errands/host'
import type { ErrandView, SessionsShape } from '@errands/sessions'
import { Context, Effect, Queue, type Scope } from 'effect'

/** The owners table's name. @example OWNERS_TABLE // 'errands_cluster_owners' */
export const OWNERS_TABLE = 'errands_cluster_owners'

/** An open errand whose runner is gone. */
export interface Orphan {
  /** The session key (the entity id). */
  readonly key: string
  /** The runner that held it (`host:port`). */
  readonly runner: string
}

/** The book of owners. */
export interface OwnerBook {
  /** Open errands whose runner no longer counts as alive in the cluster. */
  readonly orphans: Effect.Effect<ReadonlyArray<Orphan>>
  /** The dead runner that held this key open (`host:port`), if its row names one. */
  readonly orphanedBy: (key: string) => Effect.Effect<string | undefined>
  /**
   * Drops the row of a key whose dead runner left nothing sealed for it (opened and killed before
   * its first snapshot was sealed): nothing can heal it, so it is no orphan any more.
   */
  readonly forgetOrphan: (key: string) => Effect.Effect<void>
  /** One session key held by each other live runner (a runner holding none has nothing open). */
  readonly keyPerRunner: Effect.Effect<ReadonlyMap<string, string>>
  /** Errands open on other live runners now: conversation id → runner (`host:port`). */
  readonly heldElsewhere: Effect.Effect<ReadonlyMap<string, string>>
  /** The runners alive now (`host:port`, healthy and refreshed within the expiry). */
  readonly liveRunners: Effect.Effect<ReadonlyArray<string>>
  /** Follows this runner's errands' changes (its session service's) into the table until the scope closes. */
  readonly follow: (sessions: Pick<SessionsShape, 'onChange'>) => Effect.Effect<void, never, Scope.Scope>
}

/** The owners book of this runner (`@errands/cluster/Owners`). @example const book = yield* Owners */
export class Owners extends Context.Tag('@errands/cluster/Owners')<Owners, OwnerBook>() {}

const holdsContext = (state: string) => state !== 'parked' && state !== 'closed' && state !== 'main'

/**
 * Creates the table when missing, and marks this runner's rows from an earlier life (it died and
 * came back under the same address) as orphans, so they heal like any other runner's.
 *
 * @example
 * const book = yield* makeOwnerBook({ self, expiryMs })
 */
export const makeOwnerBook = (options: {
  readonly self: string
  readonly expiryMs: number
}): Effect.Effect<OwnerBook, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const table = sql(OWNERS_TABLE)
    const expiry = `${Math.ceil(options.expiryMs / 1000)} seconds`
    // Hosts start together: one creates the table, the others wait (a bare CREATE TABLE IF NOT
    // EXISTS racing itself can fail on the catalogue's unique index).
    yield* sql
      .withTransaction(
        Effect.zipRight(
          sql`SELECT pg_advisory_xact_lock(hashtext(${OWNERS_TABLE}))`,
          sql`CREATE TABLE IF NOT EXISTS ${table} (
        errand_id TEXT PRIMARY KEY,
        runner TEXT NOT NULL,
        since TIMESTAMPTZ NOT NULL DEFAULT now()
      )`,
        ),
      )
      .pipe(Effect.orDie)
    yield* sql`UPDATE ${table} SET runner = ${`gone:${options.self}`} WHERE runner = ${options.self}`.pipe(Effect.orDie)

    const liveRunners = sql<{ address: string }>`SELECT address FROM cluster_runners
      WHERE healthy AND last_heartbeat > now() - ${expiry}::interval`.pipe(
      Effect.map((rows) => rows.map((r) => r.address)),
      // No runners table yet (the cluster is still creating it): nobody else is known alive.
      Effect.orElseSucceed(() => [options.self]),
    )

    const orphans = Effect.gen(function* () {
      const live = yield* liveRunners
      const rows = yield* sql<{ errand_id: string; runner: string }>`SELECT errand_id, runner FROM ${table}`.pipe(
        Effect.orElseSucceed(() => []),
      )
      return rows
        .filter((r) => !live.includes(r.runner))
        .flatMap((r): Array<Orphan> => {
          const key = sessionKeyOf(r.errand_id)
          return key === undefined ? [] : [{ key, runner: r.runner.replace(/^gone:/, '') }]
        })
    })

    const orphanedBy = (key: string) =>
      Effect.gen(function* () {
        const rows = yield* sql<{
          runner: string
        }>`SELECT runner FROM ${table} WHERE errand_id = ${`session:${key}`}`.pipe(Effect.orElseSucceed(() => []))
        const runner = rows[0]?.runner
        if (runner === undefined || runner === options.self) return undefined
        return (yield* liveRunners).includes(runner) ? undefined : runner.replace(/^gone:/, '')
      })

    const forgetOrphan = (key: string) =>
      Effect.ignore(sql`DELETE FROM ${table} WHERE errand_id = ${`session:${key}`} AND runner <> ${options.self}`)

    const keyPerRunner = Effect.gen(function* () {
      const live = yield* liveRunners
      const rows = yield* sql<{
        errand_id: string
        runner: string
      }>`SELECT DISTINCT ON (runner) errand_id, runner FROM ${table}
        WHERE runner <> ${options.self} ORDER BY runner, since`.pipe(Effect.orElseSucceed(() => []))
      const out = new Map<string, string>()
      for (const r of rows) {
        const key = sessionKeyOf(r.errand_id)
        if (key !== undefined && live.includes(r.runner)) out.set(r.runner, key)
      }
      return out
    })

    const heldElsewhere = Effect.gen(function* () {
      const live = yield* liveRunners
      const rows = yield* sql<{
        errand_id: string
        runner: string
      }>`SELECT errand_id, runner FROM ${table} WHERE runner <> ${options.self}`.pipe(Effect.orElseSucceed(() => []))
      return new Map(rows.filter((r) => live.includes(r.runner)).map((r) => [r.errand_id, r.runner] as const))
    })

    const follow = (sessions: Pick<SessionsShape, 'onChange'>) =>
      Effect.gen(function* () {
        // One writer, in order: an errand opened and parked at once must end without a row.
        const changes = yield* Queue.unbounded<ErrandView>()
        const unsubscribe = sessions.onChange((view) => void Queue.unsafeOffer(changes, view))
        yield* Effect.addFinalizer(() => Effect.sync(unsubscribe))
        // Leaving gracefully: every errand open here is about to be parked by the shutdown (E5), so
        // none is an orphan for a peer to heal. Runs after the writer below has stopped.
        yield* Effect.addFinalizer(() => Effect.ignore(sql`DELETE FROM ${table} WHERE runner = ${options.self}`))
        const held = new Set<string>()
        const write = (view: ErrandView) =>
          Effect.gen(function* () {
            const id = view.conversationId
            if (sessionKeyOf(id) === undefined) return
            if (holdsContext(view.state)) {
              if (held.has(id)) return
              yield* sql`INSERT INTO ${table} (errand_id, runner) VALUES (${id}, ${options.self})
                ON CONFLICT (errand_id) DO UPDATE SET runner = EXCLUDED.runner, since = now()`
              held.add(id)
            } else {
              held.delete(id)
              yield* sql`DELETE FROM ${table} WHERE errand_id = ${id} AND runner = ${options.self}`
            }
          }).pipe(Effect.ignore)
        yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(changes), write)))
      })

    return { orphans, orphanedBy, forgetOrphan, keyPerRunner, heldElsewhere, liveRunners, follow } satisfies OwnerBook
  })
