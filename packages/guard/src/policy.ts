/**
 * The containment policy (SPEC G1, G2) as an Effect Schema, so it is decoded from configuration
 * once at the edge; every field but `ownPorts` has an explicit default.
 *
 * @example
 * const policy = Schema.decodeUnknownSync(GuardPolicy)({ ownPorts: [{ port: 7070 }], blockedHosts: ['*.ads.example'] })
 */
import { Schema } from 'effect'
import { parseCidr } from './ip.ts'

/**
 * A port of the engine's own (host API, live view, Daily Browser door). Any loopback host on
 * that port is blocked; `host` only says which address the engine listens on (for the log).
 *
 * @example
 * const own: OwnPort = { host: '127.0.0.1', port: 7070 }
 */
export const OwnPort = Schema.Struct({
  host: Schema.optional(Schema.String),
  port: Schema.Int.pipe(Schema.between(1, 65535)),
})
/** @see OwnPort @example const p: OwnPort = { port: 7070 } */
export type OwnPort = typeof OwnPort.Type

/**
 * An allowed scheme: a scheme name (`https`) or one `about:` page (`about:blank`).
 *
 * @example
 * Schema.decodeUnknownSync(SchemeEntry)('HTTPS') // "https"
 */
export const SchemeEntry = Schema.Lowercase.pipe(
  Schema.pattern(/^[a-z][a-z0-9+.-]*(:[a-z0-9-]+)?$/, {
    message: () => 'a scheme name like "https", or "about:blank"',
  }),
)

/**
 * A CIDR range (`10.0.0.0/8`, `fd00::/8`) or a single address.
 *
 * @example
 * Schema.decodeUnknownSync(CidrText)('192.168.1.0/24')
 */
export const CidrText = Schema.String.pipe(
  Schema.filter((s) => parseCidr(s) !== undefined, {
    message: (issue) => `${String(issue.actual)} is not a CIDR range (e.g. 192.168.1.0/24 or fd00::/8)`,
  }),
)

/**
 * A blocked host: an exact name (`tracker.example`) or `*.suffix`, which blocks the suffix
 * itself and every name under it (`*.ads.example` blocks `ads.example` and `x.ads.example`).
 *
 * @example
 * Schema.decodeUnknownSync(HostPattern)('*.ads.example')
 */
export const HostPattern = Schema.String.pipe(
  Schema.pattern(/^(\*\.)?[^\s*/:?#@]+$/, { message: () => 'a host name, or *.suffix' }),
)

/** The schemes allowed by default (G2). @example DEFAULT_ALLOWED_SCHEMES.includes('wss') // true */
export const DEFAULT_ALLOWED_SCHEMES: ReadonlyArray<string> = [
  'http',
  'https',
  'ws',
  'wss',
  'data',
  'blob',
  'about:blank',
]

/**
 * The guard's policy.
 *
 * - `allowedSchemes`: scheme names, plus `about:<page>` entries (`about` alone would allow every `about:` page).
 * - `blockedHosts`: exact names or `*.suffix`.
 * - `allowPrivate`: private ranges (CIDR) that may be reached anyway, e.g. a lab network.
 * - `allowLoopback`: loopback (127.0.0.0/8, ::1, localhost) is allowed by default — agents test local dev servers.
 * - `ownPorts`: the engine's own ports; no context may reach them on any loopback address.
 * - `ownAddresses`: the addresses of this machine's own interfaces besides loopback (G2: the
 *   machine is every one of them). `withMachineAddresses` (`@errands/egress`) reads them from the
 *   interfaces and keeps them current; addresses given here (one a NAT forwards to this machine)
 *   are kept beside them.
 *
 * @example
 * const policy: GuardPolicy = defaultPolicy([{ host: '127.0.0.1', port: 7070 }])
 */
export const GuardPolicy = Schema.Struct({
  allowedSchemes: Schema.optionalWith(Schema.Array(SchemeEntry), { default: () => DEFAULT_ALLOWED_SCHEMES }),
  blockedHosts: Schema.optionalWith(Schema.Array(HostPattern), { default: () => [] }),
  allowPrivate: Schema.optionalWith(Schema.Array(CidrText), { default: () => [] }),
  allowLoopback: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  ownPorts: Schema.Array(OwnPort),
  ownAddresses: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
})
/** @see GuardPolicy @example const p: GuardPolicy = defaultPolicy([]) */
export type GuardPolicy = typeof GuardPolicy.Type
/**
 * The policy as written in configuration (defaults may be left out). @example const input: GuardPolicyInput = {
 * ownPorts: [] }
 */
export type GuardPolicyInput = typeof GuardPolicy.Encoded

/**
 * The default policy (G2) for an engine listening on `ownPorts`.
 *
 * @example
 * decide('http://127.0.0.1:7070/api', defaultPolicy([{ port: 7070 }])).allow // false
 */
export const defaultPolicy = (ownPorts: ReadonlyArray<OwnPort> = []): GuardPolicy => ({
  allowedSchemes: DEFAULT_ALLOWED_SCHEMES,
  blockedHosts: [],
  allowPrivate: [],
  allowLoopback: true,
  ownPorts,
  ownAddresses: [],
})

/**
 * Decodes a policy from configuration; fails with a `ParseError` naming the bad field.
 *
 * @example
 * const policy = yield* decodePolicy({ ownPorts: [{ port: 7070 }] })
 */
export const decodePolicy = Schema.decodeUnknown(GuardPolicy)
