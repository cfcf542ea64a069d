import { DAY_MS, DEFAULT_RETENTION, type Retention } from '@errands/store'
import { intBetween } from '@errands/edge'
import { Config, ConfigError, ConfigProvider, Effect, Either, Option, Schema } from 'effect'
import * as os from 'node:os'
import * as path from 'node:path'

const GiB = 1024 ** 3

/**
 * About one open errand context per 2 GB of memory, from `min` to `max` (C1).
 *
 * @example
 * errandLimit(24 * 1024 ** 3) // 6
 * errandLimit(3 * 1024 ** 3)  // 2
 */
export const errandLimit = (totalMemoryBytes: number = os.totalmem(), bounds = { min: 2, max: 6 }): number =>
  Math.min(bounds.max, Math.max(bounds.min, Math.floor(totalMemoryBytes / (2 * GiB))))

/** The supervisor's settings. */
export interface SupervisorSettings {
  /** Open errand contexts at most (C1, B4). */
  readonly maxErrands: number
  /** Idle time after which the sweep freezes an open errand: context kept, pages frozen (C4, B4). */
  readonly idleMs: number
  /**
   * Idle time (since its last use) after which the sweep seals and closes a frozen errand — the
   * second step of setting it aside (C4, docs/parking.md). At least `idleMs`.
   */
  readonly parkIdleMs: number
  /** How often the idle sweep looks. */
  readonly sweepEveryMs: number
  /** H1's debounce after a page load. */
  readonly snapshotDebounceMs: number
  /** Where the engine keeps its files. */
  readonly dataDir: string
  /**
   * How many parked errands the sealed store keeps, and for how long (S2): the file store's and the Postgres store's.
   */
  readonly retention: Retention
}

/** The environment variables the supervisor reads, with their ranges (documented in the README). */
export const variables = {
  ERRANDS_MAX_SESSIONS: { min: 1, max: 32, default: 'about one per 2 GB of memory, 2..6' },
  ERRANDS_SESSION_IDLE_MS: { min: 60_000, max: 86_400_000, default: 900_000 },
  ERRANDS_SESSION_PARK_IDLE_MS: { min: 60_000, max: 604_800_000, default: 3_600_000 },
  ERRANDS_SNAPSHOT_DEBOUNCE_MS: { min: 100, max: 60_000, default: 3_000 },
  ERRANDS_STORE_MAX_RECORDS: { min: 1, max: 100_000, default: DEFAULT_RETENTION.maxRecords },
  ERRANDS_STORE_MAX_DAYS: { min: 1, max: 3650, default: DEFAULT_RETENTION.maxAgeMs / DAY_MS },
} as const

const between = (name: keyof typeof variables) => intBetween(variables[name].min, variables[name].max)

/**
 * The sealed store's retention (S2) from `ERRANDS_STORE_MAX_RECORDS` (1..100000, default 40) and
 * `ERRANDS_STORE_MAX_DAYS` (1..3650, default 14): the file store's and the Postgres store's.
 *
 * @example
 * SealedStore.layer({ dir, ...(yield* retentionConfig) })
 */
export const retentionConfig: Config.Config<Retention> = Config.all({
  maxRecords: Schema.Config('ERRANDS_STORE_MAX_RECORDS', between('ERRANDS_STORE_MAX_RECORDS')).pipe(
    Config.withDefault(variables.ERRANDS_STORE_MAX_RECORDS.default),
  ),
  maxDays: Schema.Config('ERRANDS_STORE_MAX_DAYS', between('ERRANDS_STORE_MAX_DAYS')).pipe(
    Config.withDefault(variables.ERRANDS_STORE_MAX_DAYS.default),
  ),
}).pipe(Config.map(({ maxRecords, maxDays }) => ({ maxRecords, maxAgeMs: maxDays * DAY_MS })))

const defaultDataDir = () =>
  path.join(process.env.XDG_DATA_HOME ?? path.join(os.homedir(), '.local', 'share'), 'errands')

/**
 * The settings, decoded once from `ERRANDS_*` variables. Unset → defaults; an explicit invalid
 * value fails with every problem reported, each naming its variable and range — never clamped.
 *
 * @example
 * const settings = yield* supervisorConfig // Effect<SupervisorSettings, ConfigError>
 */
export const supervisorConfig: Config.Config<SupervisorSettings> = Config.all({
  maxErrands: Schema.Config('ERRANDS_MAX_SESSIONS', between('ERRANDS_MAX_SESSIONS')).pipe(
    Config.withDefault(errandLimit()),
  ),
  idleMs: Schema.Config('ERRANDS_SESSION_IDLE_MS', between('ERRANDS_SESSION_IDLE_MS')).pipe(
    Config.withDefault(variables.ERRANDS_SESSION_IDLE_MS.default),
  ),
  parkIdleMs: Config.option(Schema.Config('ERRANDS_SESSION_PARK_IDLE_MS', between('ERRANDS_SESSION_PARK_IDLE_MS'))),
  snapshotDebounceMs: Schema.Config('ERRANDS_SNAPSHOT_DEBOUNCE_MS', between('ERRANDS_SNAPSHOT_DEBOUNCE_MS')).pipe(
    Config.withDefault(variables.ERRANDS_SNAPSHOT_DEBOUNCE_MS.default),
  ),
  dataDir: Config.string('ERRANDS_DATA_DIR').pipe(Config.withDefault(defaultDataDir())),
  retention: retentionConfig,
}).pipe(
  // Sealing before freezing would skip the first step: a second idle shorter than the first is refused, not clamped.
  // Unset, it is the default or the first idle when that is longer.
  Config.mapOrFail(({ parkIdleMs, ...s }) =>
    Option.isSome(parkIdleMs) && parkIdleMs.value < s.idleMs
      ? Either.left(
          ConfigError.InvalidData(
            ['ERRANDS_SESSION_PARK_IDLE_MS'],
            `must be at least ERRANDS_SESSION_IDLE_MS (${s.idleMs})`,
          ),
        )
      : Either.right({
          ...s,
          parkIdleMs: Option.getOrElse(parkIdleMs, () =>
            Math.max(s.idleMs, variables.ERRANDS_SESSION_PARK_IDLE_MS.default),
          ),
          sweepEveryMs: Math.min(60_000, Math.floor(s.idleMs / 4)),
        }),
  ),
)

/**
 * Settings for tests and embedders who configure in code: the same defaults, no environment.
 *
 * @example
 * defaultSettings({ maxErrands: 2 })
 */
export const defaultSettings = (overrides: Partial<SupervisorSettings> = {}): SupervisorSettings => {
  const idleMs = overrides.idleMs ?? 900_000
  return {
    maxErrands: errandLimit(),
    idleMs,
    parkIdleMs: Math.max(idleMs, variables.ERRANDS_SESSION_PARK_IDLE_MS.default),
    sweepEveryMs: Math.min(60_000, Math.floor(idleMs / 4)),
    snapshotDebounceMs: 3_000,
    dataDir: defaultDataDir(),
    retention: DEFAULT_RETENTION,
    ...overrides,
  }
}

/**
 * Renders a config failure as the lines a person needs: one per variable, with its range.
 * `ranges` adds the accepted-range words of variables other packages read (the host's).
 *
 * @example
 * Effect.catchAll((e) => Console.error(explainConfigError(e, { ERRANDS_PORT: 'must be a whole number from 1 to 65535'
 * })))
 */
export const explainConfigError = (
  error: ConfigError.ConfigError,
  ranges: Readonly<Record<string, string>> = {},
): string => {
  const known: Record<string, string> = { ...ranges }
  for (const [name, r] of Object.entries(variables)) known[name] ??= `must be a whole number from ${r.min} to ${r.max}`
  const lines: string[] = []
  const walk = (e: ConfigError.ConfigError): void => {
    switch (e._op) {
      case 'And':
      case 'Or':
        walk(e.left)
        walk(e.right)
        return
      case 'InvalidData':
      case 'MissingData':
      case 'SourceUnavailable':
      case 'Unsupported': {
        const name = e.path.join('.')
        // A schema's own message comes out as the leaf of its error tree ("└─ names db.internal, …").
        const detail = (
          e.message
            .split('\n')
            .filter((l) => l.trim() !== '')
            .pop()
            ?.trim() ?? e.message
        ).replace(/^[└├]─ /, '')
        // A rule between two variables says itself; a range is said the same way for every variable.
        lines.push(
          `${name}: invalid value — ${detail.startsWith('must be at least') ? detail : (known[name] ?? detail)}`,
        )
        return
      }
    }
  }
  walk(error)
  return [...new Set(lines)].join('\n')
}

/**
 * Decodes the settings from a plain record of variables (tests, the CLI): unset or `undefined`
 * entries fall back to their defaults.
 *
 * @example
 * Effect.runSync(settingsFrom({ ERRANDS_MAX_SESSIONS: '4' })).maxErrands // 4
 */
export const settingsFrom = (
  env: Record<string, string | undefined>,
): Effect.Effect<SupervisorSettings, ConfigError.ConfigError> => configFrom(supervisorConfig, env)

/**
 * Decodes any `Config` from a plain record of variables instead of the process's environment
 * (the host's, the cluster's and the CLI's `…From(env)` are this): unset or `undefined` entries
 * take their defaults, and every invalid one is in the error.
 *
 * @example
 * Effect.runSync(configFrom(retentionConfig, { ERRANDS_STORE_MAX_RECORDS: '10' })).maxRecords // 10
 */
export const configFrom = <A>(
  config: Config.Config<A>,
  env: Record<string, string | undefined>,
): Effect.Effect<A, ConfigError.ConfigError> => {
  const defined = new Map<string, string>()
  for (const [k, v] of Object.entries(env)) if (v !== undefined) defined.set(k, v)
  // flatMap from void: the Config is read when the effect runs, under this provider, not when it is built.
  return Effect.withConfigProvider(
    Effect.flatMap(Effect.void, () => config),
    ConfigProvider.fromMap(defined),
  )
}
