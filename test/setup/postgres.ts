/**
 * Vitest globalSetup for the system tier: one throw-away Postgres server per run (issue #28),
 * instead of one per test file. `startPostgres()` in test/fixtures/postgres.ts sees it through
 * the provided `errandsPostgres` value (copied into the worker's environment by
 * test/setup/postgres-env.ts) and hands each caller a fresh database on it, dropped by `stop()`.
 * A run without this setup (bench/store.ts, a browser-tier file) gets its own server per call, as
 * before.
 */
import type { TestProject } from 'vitest/node'
import { startOwnPostgres, type TestPostgres } from '../fixtures/postgres.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared server, JSON `{ url, port, pid, dir }`; its url names the admin database. */
    errandsPostgres: string
  }
}

const key = Symbol.for('errands.test.postgres')
type Shared = { server: Promise<TestPostgres>; users: number }

/** Starts (or joins) the run's Postgres; the last project to finish stops it. @example export default setup */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const g = globalThis as { [key]?: Shared }
  const shared = (g[key] ??= { server: startOwnPostgres(), users: 0 })
  shared.users++
  const pg = await shared.server
  project.provide('errandsPostgres', JSON.stringify({ url: pg.url, port: pg.port, pid: pg.pid, dir: pg.dir }))
  return async () => {
    if (--shared.users === 0) {
      delete g[key]
      await pg.stop()
    }
  }
}
