/**
 * The errors of `@errands/lending` (STYLE §5). Messages name conversations, sites and cookie
 * names only — never a cookie value or a storage item (L7) — and say what to do next.
 *
 * @example
 * lending.allow('chat-1', 'shop.example').pipe(
 *   Effect.catchTag('LendRefused', (e) => Effect.logWarning(e.message)),
 * )
 */
import { Schema } from 'effect'

/**
 * Lending (or asking) was refused for this conversation: nobody knows it
 * (`unknown-conversation`), it browses in the person's main context, which is already signed in
 * and is never lent to (`main-context`), or its errand has ended or lost its parked session
 * (`errand-closed`).
 *
 * @example
 * Effect.catchTag('LendRefused', (e) => e.reason === 'main-context' ? Effect.void : Effect.fail(e))
 */
export class LendRefused extends Schema.TaggedError<LendRefused>()('LendRefused', {
  reason: Schema.Literal('unknown-conversation', 'main-context', 'errand-closed'),
  conversationId: Schema.String,
  site: Schema.String,
  message: Schema.String,
}) {
  /** HTTP status for the host. */
  get status(): number {
    return this.reason === 'unknown-conversation' ? 404 : 409
  }
}

/**
 * The browser or the sealed store failed while lending or taking back (`browser`, `store`), or
 * the errand could not be brought up to lend into it right now (`unavailable`: all slots busy,
 * a heal failed, shutting down — the supervisor's own words). The message names the operation,
 * the site and the failure's kind only: the underlying driver message is dropped, because a
 * driver may quote the cookie it choked on.
 *
 * @example
 * Effect.catchTag('LendFailed', (e) => Effect.logWarning(`${e.reason}: ${e.message}`))
 */
export class LendFailed extends Schema.TaggedError<LendFailed>()('LendFailed', {
  reason: Schema.Literal('browser', 'store', 'unavailable'),
  message: Schema.String,
}) {
  /** HTTP status for the host: try again later. */
  readonly status = 503
}

/**
 * The browser settings could not be used: the file is not valid settings (`invalid-file`; the
 * message names the file and the failing fields), it could not be read or written (`io`), a
 * site given to it is no host (`invalid-site`), or a cluster's shared settings could not be read
 * or written in its database (`database`: try again in a moment).
 *
 * @example
 * Settings.layer(dataDir) // fails building with SettingsError('invalid-file') on a broken settings.json
 */
export class SettingsError extends Schema.TaggedError<SettingsError>()('SettingsError', {
  reason: Schema.Literal('invalid-file', 'io', 'invalid-site', 'database'),
  message: Schema.String,
}) {
  /** HTTP status for the host. */
  get status(): number {
    return this.reason === 'invalid-site' ? 400 : this.reason === 'database' ? 503 : 500
  }
}

/**
 * Every error of the `Lending` service.
 *
 * @example
 * const status = (e: LendingError) => e.status
 */
export type LendingError = LendRefused | LendFailed | SettingsError
