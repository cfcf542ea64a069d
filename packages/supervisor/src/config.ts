import { Config, ConfigError, ConfigProvider, Effect, Schema } from 'effect'
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

/** An integer from a string, within `[min, max]`, with a message naming the accepted range. */
const intBetween = (min: number, max: number) =>
  Schema.NumberFromString.pipe(
    Schema.int({ message: () => `must be a whole number from ${min} to ${max}` }),
    Schema.between(min, max, { message: () => `must be a whole number from ${min} to ${max}` }),
  )

/** The supervisor's settings. */
export interface SupervisorSettings {
  /** Open errand contexts at most (C1, B4). */
  readonly maxErrands: number
  /** Idle time after which the sweep parks an errand (C4, B4). */
  readonly idleMs: number
  /** How often the idle sweep looks. */
  readonly sweepEveryMs: number
  /** H1's debounce after a page load. */
  readonly snapshotDebounceMs: number
  /** Where the engine keeps its files. */
  readonly dataDir: string
}

/** The environment variables the supervisor reads, with their ranges (documented in the README). */
export const variables = {
  ERRANDS_MAX_SESSIONS: { min: 1, max: 32, default: 'about one per 2 GB of memory, 2..6' },
  ERRANDS_SESSION_IDLE_MS: { min: 60_000, max: 86_400_000, default: 900_000 },
  ERRANDS_SNAPSHOT_DEBOUNCE_MS: { min: 100, max: 60_000, default: 3_000 },
} as const

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
  maxErrands: Schema.Config('ERRANDS_MAX_SESSIONS', intBetween(1, 32)).pipe(Config.withDefault(errandLimit())),
  idleMs: Schema.Config('ERRANDS_SESSION_IDLE_MS', intBetween(60_000, 86_400_000)).pipe(Config.withDefault(900_000)),
  snapshotDebounceMs: Schema.Config('ERRANDS_SNAPSHOT_DEBOUNCE_MS', intBetween(100, 60_000)).pipe(Config.withDefault(3_000)),
  dataDir: Config.string('ERRANDS_DATA_DIR').pipe(Config.withDefault(defaultDataDir())),
}).pipe(Config.map((s) => ({ ...s, sweepEveryMs: Math.min(60_000, Math.floor(s.idleMs / 4)) })))

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
    sweepEveryMs: Math.min(60_000, Math.floor(idleMs / 4)),
    snapshotDebounceMs: 3_000,
    dataDir: defaultDataDir(),
    ...overrides,
  }
}

/**
 * Renders a config failure as the lines a person needs: one per variable, with its range.
 * `ranges` adds the accepted-range words of variables other packages read (the host's).
 *
 * @example
 * Effect.catchAll((e) => Console.error(explainConfigError(e, { ERRANDS_PORT: 'must be a whole number from 1 to 65535' })))
 */
export const explainConfigError = (error: ConfigError.ConfigError, ranges: Readonly<Record<string, string>> = {}): string => {
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
        const detail = e.message.split('\n').filter((l) => l.trim() !== '').pop()?.trim() ?? e.message
        lines.push(`${name}: invalid value — ${known[name] ?? detail}`)
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
export const settingsFrom = (env: Record<string, string | undefined>): Effect.Effect<SupervisorSettings, ConfigError.ConfigError> => {
  const defined = new Map<string, string>()
  for (const [k, v] of Object.entries(env)) if (v !== undefined) defined.set(k, v)
  return Effect.withConfigProvider(Effect.flatMap(Effect.void, () => supervisorConfig), ConfigProvider.fromMap(defined))
}
