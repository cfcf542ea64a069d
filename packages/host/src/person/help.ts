/**
 * `POST /v1/session/help` (P3, issue #26): an agent asks a person for help with a reason and
 * waits until the person hands the wheel back from the live view — with their note — or the time
 * runs out. The request shows at the top of the live view while it waits. MCP's
 * `browser_request_help` is the same call.
 *
 * @example
 * const answer = yield* requestHelp({ browsing, person })(key, { reason: 'a captcha' })
 * // { handedBack: true, note: 'solved it' } or { handedBack: false, reason: 'timeout' }
 */
import type { UpstreamProxy } from '@errands/runtime'
import { HELP_DEFAULT_TIMEOUT_MS, type HelpRequest } from '@errands/sessions'
import { Effect, Schema } from 'effect'
import { sessionTarget, type BrowsingShape } from '../browsing/Browsing.ts'
import { conversationIdOf, type SessionKey } from '../sessionKey.ts'
import type { PersonShape } from './Person.ts'

/**
 * What the agent is told: handed back with the person's note (or null), or the time ran out. @example { handedBack:
 * true, note: 'Solved the captcha' }
 */
export const HelpAnswer = Schema.Union(
  Schema.Struct({ handedBack: Schema.Literal(true), note: Schema.NullOr(Schema.String) }),
  Schema.Struct({ handedBack: Schema.Literal(false), reason: Schema.Literal('timeout') }),
)
/** @see HelpAnswer */
export type HelpAnswer = typeof HelpAnswer.Type

/**
 * Asks for help for the session `key` and waits for the hand-back.
 *
 * @example
 * requestHelp({ browsing, person })(key, { reason: 'a captcha', timeoutMs: 60_000 })
 */
export const requestHelp =
  (deps: { readonly browsing: BrowsingShape; readonly person: PersonShape }) =>
  (key: SessionKey, request: HelpRequest, upstreamProxy?: UpstreamProxy) =>
    Effect.gen(function* () {
      // The person needs the errand to take its wheel: an agent may ask before its first page (a read, so allowed while
      // a person drives).
      yield* deps.browsing.tabs(sessionTarget(key, upstreamProxy))
      return yield* deps.person.askForHelp(
        conversationIdOf(key),
        request.reason,
        request.timeoutMs ?? HELP_DEFAULT_TIMEOUT_MS,
      )
    })
