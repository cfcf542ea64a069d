/**
 * Several real hosts as one cluster for tests (issue #16): a throw-away Postgres
 * (`startPostgres`), one shared key file, and N host processes started the way a service
 * manager starts them (`node --import tsx packages/cli/src/main.ts host`), each with its own
 * data dir, HTTP port, runner port and Chromium. `startCluster` resolves once every host sees
 * every runner alive and the shards are all held.
 *
 * @example
 * const cluster = await startCluster(3)
 * await cluster.hosts[0]!.call('k1', 'POST', '/v1/navigate', { url })
 * await cluster.stop()
 */
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromiumProcesses, eventually } from '../fixtures/processes.ts'
import { freePort } from '../fixtures/ports.ts'
import { startPostgres, type TestPostgres } from '../fixtures/postgres.ts'
import { client, spawnHost, type Reply } from '../host/harness.ts'
import { makeClusterRoles, type ClusterRoles } from './role.ts'
import { SqlClient } from '@effect/sql'
import { PgClient } from '@effect/sql-pg'
import { OWNERS_TABLE } from '@errands/cluster'
import { rowKeyFor } from '@errands/store-pg'
import { Effect, ManagedRuntime, Redacted } from 'effect'

/** What `/health` says about the cluster. */
export interface ClusterHealth {
  readonly open: number
  readonly parked: number
  readonly messages: ReadonlyArray<{ readonly text: string }>
  readonly cluster: {
    readonly runner: string
    readonly runners: ReadonlyArray<{ readonly address: string; readonly healthy: boolean; readonly alive: boolean }>
    readonly shards: { readonly total: number; readonly here: number }
  }
}

/** One host of the cluster. */
export interface ClusterHost {
  readonly index: number
  readonly url: string
  /** The host's token (its data dir's host-token): the person's calls and the live view's sign-in. */
  readonly token: string
  readonly runner: string
  readonly dataDir: string
  readonly child: ChildProcess
  readonly stderr: () => string
  readonly exited: Promise<number | null>
  /** A keyed call (or an unkeyed one with `undefined`); person calls carry this host's token. */
  readonly call: (
    key: string | undefined,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => Promise<Reply>
  readonly health: () => Promise<ClusterHealth>
  /** Session keys whose errand holds a context on this host now (from its own supervisor). */
  readonly openKeys: () => Promise<ReadonlyArray<string>>
  /** Chromium processes of this host (its data dir is on their command line). */
  readonly chromium: () => number
  readonly alive: () => boolean
}

/** A running cluster. */
export interface TestCluster {
  readonly pg: TestPostgres
  /** The roles, when the hosts run as the least-privilege one (`leastPrivilege`). */
  readonly roles: ClusterRoles | undefined
  /** The key file every host shares (the runner sockets' TLS key is derived from it, ADR 0019). */
  readonly keyFile: string
  readonly hosts: ReadonlyArray<ClusterHost>
  /** Hosts still running. */
  readonly live: () => ReadonlyArray<ClusterHost>
  /** Resolves when every live host sees exactly the live runners alive and all shards are held once. */
  readonly settled: (timeoutMs?: number) => Promise<boolean>
  /** Starts one more host that joins the cluster. */
  readonly add: () => Promise<ClusterHost>
  /** The sealed bytes of a session's row in the shared store (hex), to see a seal land. */
  readonly sealed: (key: string) => Promise<string | undefined>
  /** The runner the owners table names for a session key (it holds the errand open), if any. */
  readonly owner: (key: string) => Promise<string | undefined>
  readonly stop: () => Promise<void>
}

/** Tunables of the test cluster (all hosts get the same). */
export interface ClusterOptions {
  readonly env?: Record<string, string> | undefined
  readonly shards?: number | undefined
  /** The rebalance time (`ERRANDS_CLUSTER_LOCK_EXPIRY_MS`). */
  readonly lockExpiryMs?: number | undefined
  /**
   * Run the hosts as docs/cluster.md's least-privilege role (issue #23): the roles are made, one
   * host starts once as the owner (it creates the tables) and stops, then every host connects as
   * the hosts' role. Unset: every host is the database's superuser.
   */
  readonly leastPrivilege?: boolean | undefined
}

/**
 * Removes a host's data dir once its Chromium is gone: a host that exited may leave a Chromium
 * child finishing its profile writes for a moment on a loaded machine, and a recursive remove racing
 * those writes fails with ENOTEMPTY.
 */
const removeDataDir = async (dataDir: string) => {
  await eventually(() => chromiumProcesses({ cmdlineContains: dataDir }).length === 0, 15_000, 100)
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
}

const spawnClusterHost = async (index: number, env: Record<string, string>): Promise<ClusterHost> => {
  const dataDir = mkdtempSync(join(tmpdir(), `errands-cluster-h${index}-`))
  const [port, runnerPort, inspectPort] = [await freePort(), await freePort(), await freePort()]
  const host = spawnHost(
    {
      ...env,
      ERRANDS_DATA_DIR: dataDir,
      ERRANDS_PORT: String(port),
      ERRANDS_CLUSTER_PORT: String(runnerPort),
      ERRANDS_INSPECT_PORT: String(inspectPort),
    },
    ['packages/cli/src/main.ts', 'host'],
  )
  const { child, exited } = host
  let running = true
  void exited.then(() => (running = false))
  const url = await host.ready.catch(async (e: Error) => {
    await removeDataDir(dataDir)
    throw new Error(`cluster host ${index}: ${e.message}`)
  })
  const token = readFileSync(join(dataDir, 'host-token'), 'utf8').trim()
  const plainCall = client(url, token)
  // A call that never answers fails in words naming it (fetch alone would wait for the test's timeout).
  const call: ClusterHost['call'] = (key, method, path, body, headers) =>
    Promise.race([
      plainCall(key, method, path, body, headers),
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error(`host ${index}: ${method} ${path} (${key ?? 'no key'}) had no answer in 60 s`)),
          60_000,
        ).unref(),
      ),
    ])
  return {
    index,
    url,
    token,
    runner: `127.0.0.1:${runnerPort}`,
    dataDir,
    child,
    exited,
    stderr: host.stderr,
    call,
    health: async () => (await call(undefined, 'GET', '/v1/person/health')).body as ClusterHealth,
    openKeys: async () => {
      const sessions = (await call(undefined, 'GET', '/v1/person/sessions')).body.sessions as ReadonlyArray<{
        conversationId: string
        state: string
      }>
      return sessions
        .filter((s) => s.conversationId.startsWith('session:') && s.state !== 'parked' && s.state !== 'closed')
        .map((s) => s.conversationId.slice('session:'.length))
        .sort()
    },
    chromium: () => chromiumProcesses({ cmdlineContains: dataDir }).length,
    alive: () => running,
  }
}

/**
 * Starts Postgres and `n` hosts joined into one cluster.
 *
 * @example
 * const cluster = await startCluster(3, { lockExpiryMs: 4_000 })
 */
export const startCluster = async (n: number, options: ClusterOptions = {}): Promise<TestCluster> => {
  const pg = await startPostgres()
  const keyDir = mkdtempSync(join(tmpdir(), 'errands-cluster-key-'))
  const keyFile = join(keyDir, 'cluster.key')
  writeFileSync(keyFile, randomBytes(32), { mode: 0o600 })
  const shards = options.shards ?? 24
  const roles = options.leastPrivilege === true ? await makeClusterRoles(pg) : undefined
  const env = {
    ERRANDS_DATABASE_URL: roles?.hostUrl ?? pg.url,
    ERRANDS_CLUSTER_KEY_FILE: keyFile,
    ERRANDS_CLUSTER_SHARDS: String(shards),
    ERRANDS_CLUSTER_LOCK_EXPIRY_MS: String(options.lockExpiryMs ?? 4_000),
    CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium',
    ...options.env,
  }
  const hosts: Array<ClusterHost> = []
  const db = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(pg.url) }))
  // The test reads the shared tables as the superuser, whose search_path does not hold the roles'
  // schema: name it. A query that fails throws: read as "no row", a wrong table name once made
  // every seal look as if it never landed (the SIGKILL case waited 15 s for a change it could not see).
  const table = (name: string) => (roles === undefined ? name : `${roles.schema}.${name}`)
  const sealed = (key: string) =>
    db
      .runPromise(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) =>
            sql<{
              sealed: Uint8Array
            }>`SELECT sealed FROM ${sql(table('errands_sealed_records'))}
              WHERE errand_hash = ${rowKeyFor(`session:${key}`)}`,
        ),
      )
      .then((rows) => (rows[0] === undefined ? undefined : Buffer.from(rows[0].sealed).toString('hex')))
  const owner = (key: string) =>
    db
      .runPromise(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) =>
            sql<{
              runner: string
            }>`SELECT runner FROM ${sql(table(OWNERS_TABLE))} WHERE errand_id = ${`session:${key}`}`,
        ),
      )
      .then((rows) => rows[0]?.runner)
  const stop = async () => {
    await Promise.all(
      hosts
        .filter((h) => h.alive())
        .map(async (h) => {
          h.child.kill('SIGTERM')
          const code = await Promise.race([h.exited, new Promise<'late'>((r) => setTimeout(() => r('late'), 30_000))])
          if (code === 'late') h.child.kill('SIGKILL')
        }),
    )
    await db.dispose()
    await pg.stop()
    await roles?.drop()
    for (const h of hosts) await removeDataDir(h.dataDir)
    rmSync(keyDir, { recursive: true, force: true })
  }
  try {
    if (roles !== undefined) {
      // The docs' first start: one host as the owner creates the tables, then leaves.
      const first = await spawnClusterHost(n, { ...env, ERRANDS_DATABASE_URL: roles.ownerUrl })
      first.child.kill('SIGTERM')
      await first.exited
      await removeDataDir(first.dataDir)
    }
    // One after another: the first creates the cluster's tables, and two cores start Chromium slowly anyway.
    for (let i = 0; i < n; i++) hosts.push(await spawnClusterHost(i, env))
  } catch (e) {
    await stop()
    throw e
  }
  const live = () => hosts.filter((h) => h.alive())
  /** Each live runner's shard count when the cluster looks settled now, else undefined. */
  const shape = async (): Promise<string | undefined> => {
    const up = live()
    const reports = await Promise.all(up.map((h) => h.health().catch(() => undefined)))
    if (reports.some((r) => r?.cluster === undefined)) return undefined
    const want = JSON.stringify(up.map((h) => h.runner).sort())
    const seesAll = reports.every(
      (r) =>
        JSON.stringify(
          r!.cluster.runners
            .filter((x) => x.alive)
            .map((x) => x.address)
            .sort(),
        ) === want,
    )
    const counts = reports.map((r) => r!.cluster.shards.here)
    return seesAll && counts.every((n) => n > 0) && counts.reduce((a, b) => a + b, 0) === shards
      ? counts.join(',')
      : undefined
  }
  // Settled: every runner sees the same live runners, each holds some shards, all are held once,
  // and it stays so across polls spanning a refresh of the assignments (3 s at most): one host
  // holding everything for a moment after another joined also adds up.
  const settled = async (timeoutMs = 30_000) => {
    let last: string | undefined
    let since = 0
    return eventually(
      async () => {
        const now = await shape()
        if (now === undefined || now !== last) {
          last = now
          since = Date.now()
          return false
        }
        return Date.now() - since >= 3_500
      },
      timeoutMs,
      250,
    )
  }
  if (!(await settled(60_000))) {
    await stop()
    throw new Error('the cluster did not settle: every shard held once by the live runners')
  }
  const add = async () => {
    const host = await spawnClusterHost(hosts.length, env)
    hosts.push(host)
    return host
  }
  return { pg, roles, keyFile, hosts, live, settled, add, sealed, owner, stop }
}
