/**
 * How an MCP session's end reaches its errand, for both transports: a session bound to a key
 * (`X-Browser-Session`, `--session`) parks it — lossless, resumed when the same key connects
 * again (E4) — and a session with a random key forgets it, since nobody could ever name that
 * key again and a parked errand nobody can resume would only hold sealed state for 14 days.
 * Task status still comes from the backend (E3).
 *
 * @example
 * yield* endErrand(errand, anonymous)
 */
import type { Effect } from 'effect'
import { randomUUID } from 'node:crypto'
import type { ErrandBrowser } from './ErrandBrowser.ts'

/**
 * Parks (bound key) or forgets (random key) the errand of a session that ended.
 *
 * @example
 * yield* endErrand(errand, false) // parked
 */
export const endErrand = (errand: ErrandBrowser, anonymous: boolean): Effect.Effect<void> => (anonymous ? errand.release() : errand.park())

/**
 * A fresh key for a session that named none (a valid host session key: `mcp-` and a UUID).
 *
 * @example
 * randomKey() // 'mcp-1b4e28ba-2fa1-11d2-883f-0016d3cca427'
 */
export const randomKey = (): string => `mcp-${randomUUID()}`
