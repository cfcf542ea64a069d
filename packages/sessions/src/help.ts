/**
 * An agent's request for help (P3), the same on every face — `POST /v1/session/help`, MCP's
 * `browser_request_help` and DevTools' `Errands.requestHelp`: how long it may wait for the person's hand-back and
 * how long its reason may be, in one place.
 *
 * @example
 * Schema.decodeUnknownSync(HelpRequest)({ reason: 'A captcha I cannot solve' }).timeoutMs ?? HELP_DEFAULT_TIMEOUT_MS
 */
import { Schema } from 'effect'

/** The shortest wait for a hand-back (ms). */
export const HELP_MIN_TIMEOUT_MS = 100
/** The longest wait for a hand-back (10 minutes). */
export const HELP_MAX_TIMEOUT_MS = 600_000
/** The wait when the agent does not say (5 minutes). */
export const HELP_DEFAULT_TIMEOUT_MS = 300_000
/** The longest reason, in characters: it is shown to the person in the live view. */
export const HELP_REASON_MAX = 500

/** A request for help. @example { reason: 'A captcha I cannot solve', timeoutMs: 60000 } */
export const HelpRequest = Schema.Struct({
  /** Why the agent needs a person, shown to them in the live view. */
  reason: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(HELP_REASON_MAX)),
  /** How long to wait for the hand-back (ms); default 300000. */
  timeoutMs: Schema.optional(Schema.Int.pipe(Schema.between(HELP_MIN_TIMEOUT_MS, HELP_MAX_TIMEOUT_MS))),
})
/** @see HelpRequest */
export type HelpRequest = typeof HelpRequest.Type
