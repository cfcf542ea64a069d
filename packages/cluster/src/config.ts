/**
 * Cluster settings (issue #16, K1), decoded once at start-up from `ERRANDS_*` variables like the
 * host's own: unset → default, an invalid explicit value stops start-up naming the variable and
 * its range. `ERRANDS_DATABASE_URL` unset → no cluster at all (today's single host).
 *
 * @example
 * const settings = Effect.runSync(clusterSettingsFrom({ ERRANDS_DATABASE_URL: 'postgres://…', ERRANDS_CLUSTER_PORT:
 * '7787' }))
 * Option.isSome(settings) // true
 */
import { hostConfig, hostVariables, type HostSettings } from '@errands/host'
import { databaseUrlConfig, databaseVariables } from '@errands/store-pg'
import { intBetween } from '@errands/edge'
import { configFrom, explainConfigError, retentionConfig, type SupervisorSettings } from '@errands/supervisor'
import { Config, ConfigError, type Effect, Either, Option, Redacted, Schema } from 'effect'

/**
 * The variables the cluster reads, with their ranges (docs/cluster.md). @example
 * clusterVariables.ERRANDS_CLUSTER_PORT.default // 7787
 */
export const clusterVariables = {
  ERRANDS_DATABASE_URL: databaseVariables.ERRANDS_DATABASE_URL,
  ERRANDS_CLUSTER_HOST: {
    default: '127.0.0.1',
    text: 'must be a host name or IP address other runners reach this one at',
  },
  ERRANDS_CLUSTER_PORT: { min: 1, max: 65535, default: 7787, text: 'must be a whole number from 1 to 65535' },
  ERRANDS_CLUSTER_SHARDS: {
    min: 1,
    max: 4096,
    default: 300,
    text: 'must be a whole number from 1 to 4096 (the same on every runner)',
  },
  ERRANDS_CLUSTER_LOCK_EXPIRY_MS: {
    min: 2_000,
    max: 600_000,
    default: 12_000,
    text: 'must be a whole number from 2000 to 600000',
  },
  ERRANDS_CLUSTER_HANDSHAKE_MS: {
    min: 500,
    max: 60_000,
    default: 5_000,
    text: 'must be a whole number from 500 to 60000 (how long a connection to the runner socket has to finish TLS)',
  },
  ERRANDS_CLUSTER_KEY_FILE: {
    text:
      'must name the file of 32 random bytes every host of the cluster shares (head -c 32 /dev/urandom > ' +
      'cluster.key)',
  },
} as const

/** How this host joins the cluster. */
export interface ClusterSettings {
  /** The Postgres both the cluster's tables and the sealed store live in. Holds a password: never log it. */
  readonly databaseUrl: Redacted.Redacted<string>
  /** The address other runners reach this runner's socket at. */
  readonly host: string
  readonly port: number
  /** Shards of the one shard group (must be equal on every runner). */
  readonly shards: number
  /**
   * How long a runner that stopped refreshing its row and shard locks still counts as alive: the
   * rebalance time after a runner dies without a goodbye. Locks are refreshed every third of it,
   * and a runner whose lock refresh takes longer than that gives its shards up.
   */
  readonly lockExpiryMs: number
  /**
   * How long a connection to the runner socket has to finish its TLS-PSK handshake before it is
   * closed (K1): a peer that connects and sends nothing, or trickles a hello, holds nothing for long.
   */
  readonly handshakeMs: number
  /** The device key every host shares (S1): one host seals, another opens. Required with a database. */
  readonly keyFile: string
  /** The shared Postgres store's retention (S2, `ERRANDS_STORE_MAX_RECORDS`/`_DAYS`), counted over the whole table. */
  readonly retention: SupervisorSettings['retention']
}

const v = clusterVariables

/**
 * The key file, required once `ERRANDS_DATABASE_URL` is set at all — even when the address itself
 * is invalid — so a missing key file is named together with every other bad variable.
 */
const keyFileConfig: Config.Config<Option.Option<string>> = Config.all({
  database: Config.option(Config.string('ERRANDS_DATABASE_URL')),
  keyFile: Config.option(
    Schema.Config(
      'ERRANDS_CLUSTER_KEY_FILE',
      Schema.NonEmptyTrimmedString.annotations({ message: () => v.ERRANDS_CLUSTER_KEY_FILE.text }),
    ),
  ),
}).pipe(
  Config.mapOrFail(({ database, keyFile }) =>
    Option.isSome(database) && Option.isNone(keyFile)
      ? Either.left(ConfigError.MissingData(['ERRANDS_CLUSTER_KEY_FILE'], v.ERRANDS_CLUSTER_KEY_FILE.text))
      : Either.right(keyFile),
  ),
)

/**
 * The cluster's settings from the environment: `None` when `ERRANDS_DATABASE_URL` is unset.
 *
 * @example
 * const cluster = yield* clusterConfig // Option<ClusterSettings>
 */
export const clusterConfig: Config.Config<Option.Option<ClusterSettings>> = Config.all({
  // The store's own decoding: one schema for the variable, redacted the moment it is read.
  url: databaseUrlConfig,
  keyFile: keyFileConfig,
  host: Schema.Config(
    'ERRANDS_CLUSTER_HOST',
    Schema.NonEmptyTrimmedString.annotations({ message: () => v.ERRANDS_CLUSTER_HOST.text }),
  ).pipe(Config.withDefault(v.ERRANDS_CLUSTER_HOST.default)),
  port: Schema.Config(
    'ERRANDS_CLUSTER_PORT',
    intBetween(v.ERRANDS_CLUSTER_PORT.min, v.ERRANDS_CLUSTER_PORT.max, v.ERRANDS_CLUSTER_PORT.text),
  ).pipe(Config.withDefault(v.ERRANDS_CLUSTER_PORT.default)),
  shards: Schema.Config(
    'ERRANDS_CLUSTER_SHARDS',
    intBetween(v.ERRANDS_CLUSTER_SHARDS.min, v.ERRANDS_CLUSTER_SHARDS.max, v.ERRANDS_CLUSTER_SHARDS.text),
  ).pipe(Config.withDefault(v.ERRANDS_CLUSTER_SHARDS.default)),
  lockExpiryMs: Schema.Config(
    'ERRANDS_CLUSTER_LOCK_EXPIRY_MS',
    intBetween(
      v.ERRANDS_CLUSTER_LOCK_EXPIRY_MS.min,
      v.ERRANDS_CLUSTER_LOCK_EXPIRY_MS.max,
      v.ERRANDS_CLUSTER_LOCK_EXPIRY_MS.text,
    ),
  ).pipe(Config.withDefault(v.ERRANDS_CLUSTER_LOCK_EXPIRY_MS.default)),
  handshakeMs: Schema.Config(
    'ERRANDS_CLUSTER_HANDSHAKE_MS',
    intBetween(
      v.ERRANDS_CLUSTER_HANDSHAKE_MS.min,
      v.ERRANDS_CLUSTER_HANDSHAKE_MS.max,
      v.ERRANDS_CLUSTER_HANDSHAKE_MS.text,
    ),
  ).pipe(Config.withDefault(v.ERRANDS_CLUSTER_HANDSHAKE_MS.default)),
  retention: retentionConfig,
}).pipe(
  Config.map(({ url, keyFile, ...rest }) =>
    // keyFileConfig failed already if the database is set without a key file.
    Option.flatMap(url, (databaseUrl) =>
      Option.map(keyFile, (file): ClusterSettings => ({ databaseUrl, keyFile: file, ...rest })),
    ),
  ),
)

/**
 * Decodes the cluster's settings from a plain record of variables (the CLI, tests).
 *
 * @example
 * Effect.runSync(clusterSettingsFrom(process.env))
 */
export const clusterSettingsFrom = (
  env: Record<string, string | undefined>,
): Effect.Effect<Option.Option<ClusterSettings>, ConfigError.ConfigError> => configFrom(clusterConfig, env)

// The database URL's own schema says which rule it broke (not a Postgres address, or no TLS off this machine).
const clusterRanges = Object.fromEntries(
  Object.entries(clusterVariables)
    .filter(([name]) => name !== 'ERRANDS_DATABASE_URL')
    .map(([name, x]) => [name, x.text]),
)

/**
 * One line per invalid variable, each naming the variable and its accepted range.
 *
 * @example
 * explainClusterConfigError(error) // "ERRANDS_CLUSTER_PORT: invalid value — must be a whole number from 1 to 65535"
 */
export const explainClusterConfigError = (error: ConfigError.ConfigError): string =>
  explainConfigError(error, clusterRanges)

/**
 * Everything `errands host` reads: the host's settings (the supervisor's and the store's retention in them) and the
 * cluster's.
 */
export interface ErrandsSettings {
  readonly host: HostSettings
  /** `None` without `ERRANDS_DATABASE_URL`: a single host on the file store. */
  readonly cluster: Option.Option<ClusterSettings>
}

/**
 * Every `ERRANDS_*` variable of `errands host` and `errands config` in one pass (issue #24): an
 * invalid value anywhere — host, supervisor, store retention, DevTools limits, upstream proxy,
 * database, cluster — fails with all the others, so one run names every bad variable.
 *
 * @example
 * const { host, cluster } = yield* errandsConfig
 */
export const errandsConfig: Config.Config<ErrandsSettings> = Config.all({ host: hostConfig, cluster: clusterConfig })

/**
 * Decodes {@link errandsConfig} from a plain record of variables (the CLI, tests).
 *
 * @example
 * Effect.runSync(errandsSettingsFrom({ ERRANDS_PORT: '7070' })).host.port // 7070
 */
export const errandsSettingsFrom = (
  env: Record<string, string | undefined>,
): Effect.Effect<ErrandsSettings, ConfigError.ConfigError> => configFrom(errandsConfig, env)

/**
 * One line per invalid variable of {@link errandsConfig}, each naming the variable and what it accepts
 * (a variable two parts read, like the store's retention, is said once).
 *
 * @example
 * explainErrandsConfigError(error) // "ERRANDS_PORT: invalid value — …\nERRANDS_CLUSTER_SHARDS: invalid value — …"
 */
export const explainErrandsConfigError = (error: ConfigError.ConfigError): string =>
  explainConfigError(error, {
    ...Object.fromEntries(Object.entries(hostVariables).map(([name, x]) => [name, x.text])),
    ...clusterRanges,
  })

/**
 * The settings as one log line: the database as host and port only (never its password).
 *
 * @example
 * describeCluster(settings) // "cluster runner 127.0.0.1:7787, 300 shards, rebalance 12000 ms, Postgres at
 * 10.0.0.5:5432"
 */
export const describeCluster = (s: ClusterSettings): string => {
  const url = new URL(Redacted.value(s.databaseUrl))
  return (
    `cluster runner ${s.host}:${s.port}, ${s.shards} shards, rebalance ${s.lockExpiryMs} ms, Postgres at ` +
    `${url.hostname}:${url.port || '5432'}`
  )
}

/**
 * The settings as plain JSON for `errands config`: the database as host and port only.
 *
 * @example
 * printableCluster(settings).database // "10.0.0.5:5432"
 */
export const printableCluster = ({ databaseUrl, ...rest }: ClusterSettings): Record<string, unknown> => {
  const url = new URL(Redacted.value(databaseUrl))
  return { ...rest, database: `${url.hostname}:${url.port || '5432'}` }
}
