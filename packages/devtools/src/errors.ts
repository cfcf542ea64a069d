/**
 * The errors of `@errands/devtools` (STYLE §5): each knows its HTTP status, and its message says
 * what to do next. No message carries a token or a URL's path or query (L7).
 *
 * @example
 * Effect.fail(new DevToolsUnavailable({ reason: 'not-an-errand', message: '…' }))
 */
import { Schema } from 'effect'

/**
 * No DevTools endpoint can be given for this conversation: it browses in the person's main
 * context (a chat), or its runtime has no real browser behind it.
 *
 * @example
 * new DevToolsUnavailable({ reason: 'unsupported', message: '…' }).status // 501
 */
export class DevToolsUnavailable extends Schema.TaggedError<DevToolsUnavailable>()('DevToolsUnavailable', {
  reason: Schema.Literal('not-an-errand', 'unsupported', 'browser-unreachable'),
  message: Schema.String,
}) {
  get status(): number {
    return this.reason === 'not-an-errand' ? 409 : this.reason === 'unsupported' ? 501 : 503
  }
}
