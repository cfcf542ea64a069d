/**
 * The host's settings (B4, R2), decoded once at start-up from `ERRANDS_*` variables with Effect
 * Schema. Unset → defaults; an explicit invalid value fails start-up with a line naming the
 * variable and its accepted range — never clamped. The supervisor's own variables
 * (`ERRANDS_MAX_SESSIONS`, `ERRANDS_SESSION_IDLE_MS`, …, `ERRANDS_DATA_DIR`) are decoded by
 * `supervisorConfig` in the same pass, so every problem is reported at once.
 *
 * @example
 * const settings = Effect.runSync(hostSettingsFrom({ ERRANDS_PORT: '7070' }))
 * settings.port // 7070
 */
import { DAY_MS } from '@errands/store'
import { maxConnectionsConfig, maxFrameBytesConfig, maxInFlightConfig } from '@errands/devtools'
import { describeTarget } from '@errands/guard'
import { describeUpstreamProxy, parseUpstreamProxy, type UpstreamProxy } from '@errands/runtime'
import { capabilityTools, parseCaps, type Capability } from '@errands/mcp'
import { intBetween } from '@errands/edge'
import { configFrom, explainConfigError, supervisorConfig, type SupervisorSettings } from '@errands/supervisor'
import { Config, type ConfigError, Effect, Either, Option, ParseResult, Schema } from 'effect'

/**
 * Common local dev-server ports `GET /v1/localhosts` looks at by default. @example
 * DEFAULT_LOCALHOST_PORTS.includes(5173) // true
 */
export const DEFAULT_LOCALHOST_PORTS: ReadonlyArray<number> = [
  1234, 3000, 3001, 3002, 4000, 4200, 4321, 5000, 5173, 5174, 5500, 8000, 8008, 8080, 8081, 8787, 8888, 9000,
]

/**
 * The variables the host reads (besides the supervisor's), with their ranges (see docs/host.md). @example
 * hostVariables.ERRANDS_PORT.max // 65535
 */
export const hostVariables = {
  ERRANDS_PORT: { min: 1, max: 65535, default: 7777, text: 'must be a whole number from 1 to 65535' },
  ERRANDS_PAGE_DEADLINE_MS: {
    min: 1_000,
    max: 300_000,
    default: 30_000,
    text: 'must be a whole number from 1000 to 300000',
  },
  ERRANDS_CDP_URL: { text: 'must be a ws://, wss://, http:// or https:// DevTools address' },
  ERRANDS_LOCALHOST_PORTS: { text: 'must be a comma-separated list of 1 to 64 port numbers from 1 to 65535' },
  ERRANDS_INSPECT: { default: 'off', text: 'must be on or off (also accepted: true/false, 1/0)' },
  ERRANDS_INSPECT_PORT: { min: 1, max: 65535, default: 7778, text: 'must be a whole number from 1 to 65535' },
  ERRANDS_AGENT_TOKENS_FILE: {
    text: 'must be the path of a file of "<token> <key pattern>" lines (see docs/secrets.md)',
  },
  ERRANDS_FILES_MAX_FILE_BYTES: {
    min: 1,
    max: 1_073_741_824,
    default: 26_214_400,
    text: 'must be a whole number of bytes from 1 to 1073741824 (1 GiB)',
  },
  ERRANDS_FILES_MAX_ERRAND_BYTES: {
    min: 1,
    max: 8_589_934_592,
    default: 104_857_600,
    text: 'must be a whole number of bytes from 1 to 8589934592 (8 GiB)',
  },
  ERRANDS_INDEXEDDB_MAX_ERRAND_BYTES: {
    min: 1,
    max: 1_073_741_824,
    default: 67_108_864,
    text: 'must be a whole number of bytes from 1 to 1073741824 (1 GiB)',
  },
  ERRANDS_UPSTREAM_PROXY: {
    text: 'must be an http:// or https:// proxy address (http://user:pass@host:port), with no path',
  },
  ERRANDS_MCP_CAPS: {
    default: '',
    text: `must be a comma-separated list of MCP capabilities (known: ${Object.keys(capabilityTools).join(', ')})`,
  },
} as const

/** The host's settings. */
export interface HostSettings {
  /** Port on 127.0.0.1 (B7: never another interface). */
  readonly port: number
  /** A DevTools endpoint elsewhere for errand contexts (R2), if any. */
  readonly cdpUrl: string | undefined
  /** Ports `GET /v1/localhosts` probes (the host's own port is always left out). */
  readonly localhostPorts: ReadonlyArray<number>
  /** Deadline of one page call (STYLE §8). */
  readonly pageDeadlineMs: number
  /** Cap, idle limit, debounce, data dir. */
  readonly supervisor: SupervisorSettings
  /** The XState inspector (V3, docs/inspector.md): on at start or not, and its port on 127.0.0.1. */
  readonly inspector: { readonly on: boolean; readonly port: number }
  /** Agent credentials (X2, `http/agentTokens.ts`): when set, session calls need a token covering their key. */
  readonly agentTokensFile?: string | undefined
  /** The upstream proxy of every errand that names none (issue #21); a secret, never printed. */
  readonly upstreamProxy?: UpstreamProxy | undefined
  /** The DevTools endpoint's limits (#27), checked with every other variable at start-up. */
  readonly devtools: { readonly maxFrameBytes: number; readonly maxConnections: number; readonly maxInFlight: number }
  /** The caps on an errand's files folder (#25): one staged file, and the whole folder. */
  readonly files: FilesCaps
  /** The cap on each errand's own IndexedDB (E7): a database past it is left out of its snapshots, by origin. */
  readonly indexedDbMaxBytes: number
  /** Optional MCP capabilities every `/mcp` session is offered (Playwright MCP's `--caps`: vision, pdf). */
  readonly mcpCaps: ReadonlyArray<Capability>
}

/** The caps on what a client may stage in an errand's files folder (issue #25). */
export interface FilesCaps {
  readonly maxFileBytes: number
  readonly maxErrandBytes: number
}

type Ranged = {
  [K in keyof typeof hostVariables]: (typeof hostVariables)[K] extends { min: number } ? K : never
}[keyof typeof hostVariables]

/** A whole-number variable of {@link hostVariables}, its range, message and default. */
const ranged = (name: Ranged): Config.Config<number> => {
  const v = hostVariables[name]
  return Schema.Config(name, intBetween(v.min, v.max, v.text)).pipe(Config.withDefault(v.default))
}

/**
 * A DevTools address: `ws(s)://host:port/devtools/browser/<id>` or `http(s)://host:port` (whose
 * `/json/version` names the WebSocket).
 *
 * @example
 * Schema.decodeUnknownSync(CdpUrl)('http://127.0.0.1:9222')
 */
export const CdpUrl = Schema.String.pipe(
  Schema.filter(
    (s) => {
      try {
        return ['ws:', 'wss:', 'http:', 'https:'].includes(new URL(s).protocol)
      } catch {
        return false
      }
    },
    { message: () => hostVariables.ERRANDS_CDP_URL.text },
  ),
)

/**
 * A comma-separated list of ports.
 *
 * @example
 * Schema.decodeUnknownSync(PortList)('3000, 5173') // [3000, 5173]
 */
export const PortList = Schema.transformOrFail(Schema.String, Schema.Array(Schema.Int), {
  strict: true,
  decode: (s, _, ast) => {
    const parts = s
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '')
    const ports = parts.map(Number)
    const ok =
      parts.length >= 1 && parts.length <= 64 && ports.every((p, i) => /^\d+$/.test(parts[i]!) && p >= 1 && p <= 65535)
    return ok
      ? Effect.succeed([...new Set(ports)])
      : Effect.fail(new ParseResult.Type(ast, s, hostVariables.ERRANDS_LOCALHOST_PORTS.text))
  },
  encode: (ports) => Effect.succeed(ports.join(',')),
})

/**
 * An on/off switch: `on`/`off`, `true`/`false`, `1`/`0` (a typo is an error, not "off").
 *
 * @example
 * Schema.decodeUnknownSync(OnOff)('on') // true
 */
export const OnOff = Schema.transform(
  Schema.Literal('on', 'off', 'true', 'false', '1', '0').annotations({
    message: () => hostVariables.ERRANDS_INSPECT.text,
  }),
  Schema.Boolean,
  { strict: true, decode: (s) => s === 'on' || s === 'true' || s === '1', encode: (b) => (b ? 'on' : 'off') },
)

/**
 * An upstream proxy URL as `parseUpstreamProxy` accepts it; the message never quotes the value.
 *
 * @example
 * Schema.decodeUnknownSync(UpstreamProxyText)('http://user:pass@proxy.example:3128')
 */
export const UpstreamProxyText = Schema.String.pipe(
  Schema.filter((s) => Either.isRight(parseUpstreamProxy(s)), {
    message: () => hostVariables.ERRANDS_UPSTREAM_PROXY.text,
  }),
)

/**
 * A `--caps`-style list of MCP capabilities (`vision,pdf`); an unknown one is an error naming the list.
 *
 * @example
 * Schema.decodeUnknownSync(McpCaps)('vision, pdf') // ['vision', 'pdf']
 */
export const McpCaps = Schema.transformOrFail(
  Schema.String,
  Schema.Array(Schema.Literal(...(Object.keys(capabilityTools) as Array<Capability>))),
  {
    strict: true,
    decode: (s, _, ast) => {
      const parsed = parseCaps(s)
      return 'caps' in parsed
        ? Effect.succeed(parsed.caps)
        : Effect.fail(new ParseResult.Type(ast, s, hostVariables.ERRANDS_MCP_CAPS.text))
    },
    encode: (caps) => Effect.succeed(caps.join(',')),
  },
)

/**
 * The host's settings from the environment (`Effect<HostSettings, ConfigError>`).
 *
 * @example
 * const settings = yield* hostConfig
 */
export const hostConfig: Config.Config<HostSettings> = Config.all({
  port: ranged('ERRANDS_PORT'),
  pageDeadlineMs: ranged('ERRANDS_PAGE_DEADLINE_MS'),
  cdpUrl: Config.option(Schema.Config('ERRANDS_CDP_URL', CdpUrl)).pipe(Config.map(Option.getOrUndefined)),
  localhostPorts: Schema.Config('ERRANDS_LOCALHOST_PORTS', PortList).pipe(Config.withDefault(DEFAULT_LOCALHOST_PORTS)),
  supervisor: supervisorConfig,
  inspector: Config.all({
    on: Schema.Config('ERRANDS_INSPECT', OnOff).pipe(Config.withDefault(false)),
    port: ranged('ERRANDS_INSPECT_PORT'),
  }),
  agentTokensFile: Config.option(
    Schema.Config(
      'ERRANDS_AGENT_TOKENS_FILE',
      Schema.String.pipe(Schema.minLength(1, { message: () => hostVariables.ERRANDS_AGENT_TOKENS_FILE.text })),
    ),
  ).pipe(Config.map(Option.getOrUndefined)),
  upstreamProxy: Config.option(Schema.Config('ERRANDS_UPSTREAM_PROXY', UpstreamProxyText)).pipe(
    Config.map((o) => Option.getOrUndefined(Option.flatMap(o, (text) => Option.getRight(parseUpstreamProxy(text))))),
  ),
  files: Config.all({
    maxFileBytes: ranged('ERRANDS_FILES_MAX_FILE_BYTES'),
    maxErrandBytes: ranged('ERRANDS_FILES_MAX_ERRAND_BYTES'),
  }),
  indexedDbMaxBytes: ranged('ERRANDS_INDEXEDDB_MAX_ERRAND_BYTES'),
  mcpCaps: Schema.Config('ERRANDS_MCP_CAPS', McpCaps).pipe(Config.withDefault([] as ReadonlyArray<Capability>)),
  devtools: Config.all({
    // @errands/devtools' own configs (ranges and defaults in one place), read here with the rest.
    maxFrameBytes: maxFrameBytesConfig,
    maxConnections: maxConnectionsConfig,
    maxInFlight: maxInFlightConfig,
  }),
})

/**
 * Decodes the settings from a plain record of variables (tests, the CLI); unset or `undefined`
 * entries take their defaults.
 *
 * @example
 * Effect.runSync(hostSettingsFrom(process.env))
 */
export const hostSettingsFrom = (
  env: Record<string, string | undefined>,
): Effect.Effect<HostSettings, ConfigError.ConfigError> => configFrom(hostConfig, env)

/**
 * One line per invalid variable, each naming the variable and its accepted range.
 *
 * @example
 * explainHostConfigError(error) // "ERRANDS_PORT: invalid value — must be a whole number from 1 to 65535"
 */
export const explainHostConfigError = (error: ConfigError.ConfigError): string =>
  explainConfigError(error, Object.fromEntries(Object.entries(hostVariables).map(([name, v]) => [name, v.text])))

/**
 * The settings as one log line (no secrets; the DevTools address as scheme/host/port only).
 *
 * @example
 * describeSettings(settings) // "port 7777, 4 sessions at most, idle 900000 ms, then set aside 3600000 ms, …"
 */
export const describeSettings = (s: HostSettings): string =>
  [
    `port ${s.port}`,
    `${s.supervisor.maxErrands} sessions at most`,
    `idle ${s.supervisor.idleMs} ms, then set aside ${s.supervisor.parkIdleMs} ms`,
    `page deadline ${s.pageDeadlineMs} ms`,
    `data in ${s.supervisor.dataDir}`,
    `keeps ${s.supervisor.retention.maxRecords} parked sessions for ${s.supervisor.retention.maxAgeMs / DAY_MS} days`,
    s.cdpUrl ? `errands on the DevTools browser at ${describeTarget(s.cdpUrl)}` : 'errands in our own Chromium',
    s.inspector.on ? `XState inspector on at http://127.0.0.1:${s.inspector.port}/` : 'XState inspector off',
    s.agentTokensFile ? 'session calls need an agent token' : 'session calls need no token',
    s.upstreamProxy
      ? `errands leave through the upstream proxy ${describeUpstreamProxy(s.upstreamProxy)} unless they name their own`
      : 'no default upstream proxy',
  ].join(', ')

/**
 * The settings as plain JSON for `errands config`: every value, except that the upstream proxy is
 * its scheme, host and port (never its credentials).
 *
 * @example
 * JSON.stringify(printableSettings(settings)) // {"port":7777,…,"upstreamProxy":"http://proxy.example:3128",…}
 */
export const printableSettings = (s: HostSettings): Record<string, unknown> => ({
  ...s,
  upstreamProxy: s.upstreamProxy === undefined ? null : describeUpstreamProxy(s.upstreamProxy),
})
