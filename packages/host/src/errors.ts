/**
 * The errors of `@errands/host` (STYLE §5). Each knows its HTTP status, and its message is
 * written for a model: it says what went wrong and what to do next. Messages carry no secrets:
 * URLs appear as scheme/host/port only (L7).
 *
 * The refusals of the HTTP edge itself (Host, Origin, media type, body size, tokens, routes) are
 * `@errands/edge`'s, shared with every other front and re-exported here; the JSON body of every
 * error is `{"error":{"code":"<_tag>","reason":"…","message":"…"}}` (docs/edge.md).
 *
 * @example
 * Effect.fail(new InvalidSessionKey({ reason: 'missing', message: 'Send X-Browser-Session …' }))
 */
import type {
  BadRequest,
  ForeignOrigin,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  Unauthorized,
  UnsupportedMediaType,
  WrongHost,
} from '@errands/edge'
import { Schema } from 'effect'

export {
  BadRequest,
  ForeignOrigin,
  HeadersTooLarge,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  Unauthorized,
  UnsupportedMediaType,
  WrongHost,
} from '@errands/edge'

/**
 * The `X-Browser-Session` header is missing, empty, too long or has a character outside
 * `A–Z a–z 0–9 . _ : -` (B1). Refused before anything touches Chromium.
 *
 * @example
 * new InvalidSessionKey({ reason: 'too-long', message: '…' }).status // 400
 */
export class InvalidSessionKey extends Schema.TaggedError<InvalidSessionKey>()('InvalidSessionKey', {
  reason: Schema.Literal('missing', 'empty', 'too-long', 'bad-character'),
  message: Schema.String,
}) {
  readonly status = 400
}

/**
 * The containment policy refuses the URL (G1, G2); `rule` names the rule that matched.
 *
 * @example
 * new BlockedByPolicy({ reason: 'blocked', rule: 'own-port', message: '…' }).status // 403
 */
export class BlockedByPolicy extends Schema.TaggedError<BlockedByPolicy>()('BlockedByPolicy', {
  reason: Schema.Literal('blocked'),
  rule: Schema.String,
  message: Schema.String,
}) {
  readonly status = 403
}

/**
 * A tab id that this session does not have (closed, or another session's — never accepted, B3).
 *
 * @example
 * new TabNotFound({ reason: 'unknown-tab', message: '…' }).status // 404
 */
export class TabNotFound extends Schema.TaggedError<TabNotFound>()('TabNotFound', {
  reason: Schema.Literal('unknown-tab'),
  message: Schema.String,
}) {
  readonly status = 404
}

/**
 * A file the errand's files folder does not hold (issue #25): never downloaded, or another
 * session's (each errand sees only its own folder).
 *
 * @example
 * new FileNotFound({ reason: 'no-file', message: '…' }).status // 404
 */
export class FileNotFound extends Schema.TaggedError<FileNotFound>()('FileNotFound', {
  reason: Schema.Literal('no-file'),
  message: Schema.String,
}) {
  readonly status = 404
}

/**
 * A staged file over a cap (issue #25): one file over ERRANDS_FILES_MAX_FILE_BYTES, or the
 * errand's folder over ERRANDS_FILES_MAX_ERRAND_BYTES with it.
 *
 * @example
 * new FileTooLarge({ reason: 'errand-full', message: '…' }).status // 413
 */
export class FileTooLarge extends Schema.TaggedError<FileTooLarge>()('FileTooLarge', {
  reason: Schema.Literal('file-too-large', 'errand-full'),
  message: Schema.String,
}) {
  readonly status = 413
}

/**
 * A page call failed in one of the browser's few ways (STYLE §6): the deadline passed
 * (`timeout`), the page or context went away (`target-closed`, `crashed`), the site could not be
 * reached (`unavailable`), or the page refused the action (`invalid`: no such element …).
 *
 * @example
 * new PageError({ reason: 'timeout', message: 'click: no answer within 10000 ms' }).status // 504
 */
export class PageError extends Schema.TaggedError<PageError>()('PageError', {
  reason: Schema.Literal('timeout', 'target-closed', 'crashed', 'unavailable', 'invalid'),
  message: Schema.String,
}) {
  get status(): number {
    switch (this.reason) {
      case 'timeout':
        return 504
      case 'unavailable':
        return 502
      case 'invalid':
        return 422
      default:
        return 503
    }
  }
}

/**
 * The host is starting or shutting down.
 *
 * @example
 * new HostUnavailable({ reason: 'starting', message: '…' }).status // 503
 */
export class HostUnavailable extends Schema.TaggedError<HostUnavailable>()('HostUnavailable', {
  reason: Schema.Literal('starting', 'shutting-down', 'not-wired'),
  message: Schema.String,
}) {
  get status(): number {
    return this.reason === 'not-wired' ? 501 : 503
  }
}

/**
 * The host could not start: its port is taken, the data dir is unusable, the browser would not
 * launch. The message says which and what to do.
 *
 * @example
 * new HostStartError({ reason: 'port-in-use', message: 'port 7777 is in use; set ERRANDS_PORT' })
 */
export class HostStartError extends Schema.TaggedError<HostStartError>()('HostStartError', {
  reason: Schema.Literal('port-in-use', 'listen-failed', 'data-dir', 'engine', 'agent-tokens'),
  message: Schema.String,
}) {}

/** Every error the host's own edge produces (the rest come from the supervisor, runtime and lending). */
export type HostError =
  | InvalidSessionKey
  | BadRequest
  | UnsupportedMediaType
  | PayloadTooLarge
  | WrongHost
  | ForeignOrigin
  | Unauthorized
  | NotFound
  | MethodNotAllowed
  | BlockedByPolicy
  | TabNotFound
  | PageError
  | HostUnavailable
