/**
 * The DevTools endpoint's limits (A1; docs/devtools-endpoint.md, "Limits"): a frame's size, the
 * connections one errand may have open, the commands one connection may have waiting — each with
 * its default and its variable, decoded at the edge — and the close frames a client receives.
 */
import { intBetween } from '@errands/edge'
import { Config, Schema } from 'effect'
import { MAX_IN_FLIGHT, type CloseReason } from './proxy.ts'

/**
 * Default of the frame limit (A1): 16 MiB. @example makeDevTools({ ...options, maxFrameBytes: MAX_FRAME_BYTES * 2 })
 */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024

/**
 * Default of the connections per errand (A1). @example makeDevTools({ ...options, maxConnections: MAX_CONNECTIONS })
 */
export const MAX_CONNECTIONS = 8

/**
 * `ERRANDS_DEVTOOLS_MAX_FRAME_BYTES`: the frame limit, decoded at the edge (1 KiB .. 256 MiB).
 *
 * @example
 * const bytes = yield* maxFrameBytesConfig // 16777216 when unset
 */
export const maxFrameBytesConfig = Schema.Config(
  'ERRANDS_DEVTOOLS_MAX_FRAME_BYTES',
  intBetween(1024, 256 * 1024 * 1024),
).pipe(Config.withDefault(MAX_FRAME_BYTES))

/**
 * `ERRANDS_DEVTOOLS_MAX_CONNECTIONS`: open connections per errand (1 .. 64; default 8).
 *
 * @example
 * const perErrand = yield* maxConnectionsConfig // 8 when unset
 */
export const maxConnectionsConfig = Schema.Config('ERRANDS_DEVTOOLS_MAX_CONNECTIONS', intBetween(1, 64)).pipe(
  Config.withDefault(MAX_CONNECTIONS),
)

/**
 * `ERRANDS_DEVTOOLS_MAX_IN_FLIGHT`: commands one connection may have waiting for the browser
 * (1 .. 4096; default 256).
 *
 * @example
 * const inFlight = yield* maxInFlightConfig // 256 when unset
 */
export const maxInFlightConfig = Schema.Config('ERRANDS_DEVTOOLS_MAX_IN_FLIGHT', intBetween(1, 4096)).pipe(
  Config.withDefault(MAX_IN_FLIGHT),
)

/** The close frames a client receives, and why. @example ws.on('close', (code) => code === CLOSE.parked.code) */
export const CLOSE = {
  parked: {
    code: 4001,
    reason: 'The errand was parked; after it resumes, ask GET /v1/session/devtools for a new URL.',
  },
  released: { code: 4002, reason: 'The errand was released or has ended; this URL is revoked.' },
  idle: { code: 4003, reason: 'Idle for longer than the idle limit; connect again to go on.' },
  healing: {
    code: 4004,
    reason: "The errand's browser crashed and is being reopened; connect again with the same URL.",
  },
  shutdown: { code: 1001, reason: 'The engine is shutting down.' },
} as const satisfies Record<string, CloseReason>
