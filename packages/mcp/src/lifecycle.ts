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
export const endErrand = (errand: ErrandBrowser, anonymous: boolean): Effect.Effect<void> =>
  anonymous ? errand.release() : errand.park()

/**
 * The errand key of a session that named none (X2): `mcp~` and a UUID. The `~` is outside the
 * session-key contract (B1: `A–Z a–z 0–9 . _ : -`), so no `X-Browser-Session` header, no MCP
 * `initialize`, no `--session` and no DevTools call can ever name this errand: it is reachable
 * only through the MCP session that holds it, whoever learns the string. A key a backend chose
 * stays nameable — sharing it is the backend's business.
 *
 * @example
 * randomKey() // 'mcp~1b4e28ba-2fa1-11d2-883f-0016d3cca427'
 */
export const randomKey = (): string => `mcp~${randomUUID()}`

/**
 * Whether a key is one {@link randomKey} made (an anonymous session's errand).
 *
 * @example
 * isAnonymousKey(randomKey()) // true
 * isAnonymousKey('task-42')   // false
 */
export const isAnonymousKey = (key: string): boolean => /^mcp~[0-9a-f-]{36}$/.test(key)
