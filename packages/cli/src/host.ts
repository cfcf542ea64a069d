/**
 * `errands host` — the HTTP browser host (B1–B7), the product's main job: `npm start` runs it.
 * Runs until SIGTERM or SIGINT, then parks every open session and closes every Chromium.
 *
 * Wire it as one verb of `main.ts`:
 *
 * ```ts
 * case 'host':
 *   return runHost(rest)
 * ```
 *
 * @example
 * process.exitCode = await runHost([]) // prints "errands host listening on http://127.0.0.1:7777"
 */
import { runHost as runHostProgram, type HostCluster } from '@errands/host'
import { Effect, Either, Option } from 'effect'
import { decodeConfig, wantsCluster } from './config.ts'

/** The verb's line for the CLI's usage text. @example process.stdout.write(usage + hostUsage) */
export const hostUsage =
  '  errands host               run the browser host on 127.0.0.1:$ERRANDS_PORT (default 7777) until SIGTERM/SIGINT\n'

const help = `errands host — the local browser host: one isolated browser context per X-Browser-Session key

  Listens on 127.0.0.1:$ERRANDS_PORT and prints its URL when ready; SIGTERM/SIGINT park every
  open session and stop. Configuration (invalid values stop start-up, exit 2):
    ERRANDS_PORT              1..65535, default 7777
    ERRANDS_DATA_DIR          where sessions, the profile and the host token live
    ERRANDS_MAX_SESSIONS      1..32, default about one per 2 GB of memory (2..6)
    ERRANDS_SESSION_IDLE_MS   60000..86400000, default 900000 (idle this long, a session is frozen)
    ERRANDS_SESSION_PARK_IDLE_MS 60000..604800000, default 3600000 or the idle above if longer
                              (idle this long, a frozen session is sealed and closed)
    ERRANDS_PAGE_DEADLINE_MS  1000..300000, default 30000
    ERRANDS_CDP_URL           a DevTools browser elsewhere for errand contexts (optional)
    ERRANDS_LOCALHOST_PORTS   ports GET /v1/localhosts looks at (comma-separated)
    ERRANDS_STORE_MAX_RECORDS 1..100000, default 40 parked sessions kept (S2)
    ERRANDS_STORE_MAX_DAYS    1..3650, default 14 days a parked session is kept (S2)
    ERRANDS_DATABASE_URL      postgres://… — join a cluster of hosts on this Postgres (docs/cluster.md);
      with it: ERRANDS_CLUSTER_KEY_FILE (required), ERRANDS_CLUSTER_HOST, ERRANDS_CLUSTER_PORT,
      ERRANDS_CLUSTER_SHARDS, ERRANDS_CLUSTER_LOCK_EXPIRY_MS
  \`errands config\` checks them all and prints them. See docs/host.md for the endpoints.
`

/**
 * Runs the host; resolves with the exit code (0 after a clean shutdown, 1 when it could not
 * start, 2 for invalid configuration or arguments).
 *
 * @example
 * process.exitCode = await runHost(process.argv.slice(3))
 */
export const runHost = async (argv: ReadonlyArray<string> = []): Promise<number> => {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(help)
    return 0
  }
  if (argv.length > 0) {
    process.stderr.write(
      `errands host: takes no arguments (got ${argv.join(' ')}); configure it with ERRANDS_* variables.\n${help}`,
    )
    return 2
  }
  // One pass over every variable first (issue #24): all the bad ones are named together, and nothing starts.
  const decoded = await decodeConfig(process.env)
  if (Either.isLeft(decoded)) {
    process.stderr.write(`errands host: invalid configuration, not started:\n${decoded.left}\n`)
    return 2
  }
  const cluster = await clusterFromEnv(process.env, (line) => process.stderr.write(line))
  if (typeof cluster === 'number') return cluster
  const code = await runHostProgram({ env: process.env, cluster })
  // As the host's own entry point does: nothing of ours should keep the loop alive after
  // shutdown (a cluster's sockets to a runner that died included); if a stray handle does, still exit.
  setTimeout(() => process.exit(code), 2_000).unref()
  return code
}

/**
 * The cluster this host joins (`ERRANDS_DATABASE_URL` set), none (unset), or exit code 2 when
 * its settings or its key file are wrong — said on `write`, naming the variable.
 *
 * @example
 * const cluster = await clusterFromEnv(process.env, (l) => process.stderr.write(l))
 */
export const clusterFromEnv = async (
  env: Record<string, string | undefined>,
  write: (line: string) => unknown,
): Promise<HostCluster | undefined | number> => {
  // A single host (no cluster variable set) never loads @effect/cluster and the Postgres client.
  if (!wantsCluster(env)) return undefined
  const { clusterSettingsFrom, describeCluster, explainClusterConfigError, hostCluster, loadClusterKey } = await import(
    '@errands/cluster'
  )
  const decoded = Effect.runSync(Effect.either(clusterSettingsFrom(env)))
  if (Either.isLeft(decoded)) {
    write(`errands host: invalid configuration, not started:\n${explainClusterConfigError(decoded.left)}\n`)
    return 2
  }
  if (Option.isNone(decoded.right)) return undefined
  const settings = decoded.right.value
  try {
    const key = await loadClusterKey(settings.keyFile)
    write(`errands host: ${describeCluster(settings)}\n`)
    return hostCluster(settings, { key })
  } catch (e) {
    write(`errands host: invalid configuration, not started:\nERRANDS_CLUSTER_KEY_FILE: ${(e as Error).message}\n`)
    return 2
  }
}
