/**
 * The one set of HTTP refusals every front of Errands answers with (issue #24: the host's `/v1`,
 * the live view, the Daily Browser door, the DevTools upgrade, `/mcp` and the inspector relay).
 * Each class's HTTP status is a literal field of its schema, filled in by the constructor, so a
 * refusal carries its status wherever it goes and the renderer reads it from one place.
 *
 * Rendered as `{"error":{"code":"<_tag>","reason":"<reason>","message":"…"}}` (`render.ts`).
 * Messages are written for a model or a person: what was wrong and what to do instead.
 *
 * @example
 * new WrongHost({ reason: 'foreign-host', message: 'Call http://127.0.0.1:7777' }).status // 421
 */
import { Schema } from 'effect'

/** A status literal that the constructor fills in: part of the schema, never passed by hand. */
const status = <N extends number>(n: N) =>
  Schema.Literal(n).pipe(
    Schema.propertySignature,
    Schema.withConstructorDefault(() => n),
  )

/**
 * The `Host` header does not name this server (DNS rebinding, B7), or the request line is in
 * absolute form (`GET http://evil/ HTTP/1.1`), which would let the URL contradict the Host check.
 *
 * @example
 * new WrongHost({ reason: 'foreign-host', message: '…' }).status // 421
 */
export class WrongHost extends Schema.TaggedError<WrongHost>()('WrongHost', {
  reason: Schema.Literal('foreign-host', 'absolute-form'),
  message: Schema.String,
  status: status(421),
}) {}

/**
 * A browser request from an origin or site this front does not answer (CSRF to localhost, B7):
 * a foreign `Origin` (`origin`), no `Origin` where one is required (`no-origin`), or a
 * `Sec-Fetch-Site` naming another site (`fetch-site`).
 *
 * @example
 * new ForeignOrigin({ reason: 'origin', message: '…' }).status // 403
 */
export class ForeignOrigin extends Schema.TaggedError<ForeignOrigin>()('ForeignOrigin', {
  reason: Schema.Literal('origin', 'no-origin', 'fetch-site'),
  message: Schema.String,
  status: status(403),
}) {}

/**
 * A body that is not `application/json` — `text/plain` and the form encodings are what a plain
 * web form or a preflight-free fetch can send cross-site (B7).
 *
 * @example
 * new UnsupportedMediaType({ reason: 'not-json', message: '…' }).status // 415
 */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()('UnsupportedMediaType', {
  reason: Schema.Literal('not-json'),
  message: Schema.String,
  status: status(415),
}) {}

/**
 * The body is larger than this front takes; it was not kept past the limit.
 *
 * @example
 * PayloadTooLarge.of(1024).status // 413
 */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()('PayloadTooLarge', {
  reason: Schema.Literal('body-too-large'),
  message: Schema.String,
  status: status(413),
}) {
  /** The refusal for a body over `limit` bytes. @example PayloadTooLarge.of(16 * 1024).message */
  static of(limit: number): PayloadTooLarge {
    return new PayloadTooLarge({
      reason: 'body-too-large',
      message: `The body is larger than ${limit} bytes; send less.`,
    })
  }
}

/**
 * The request headers are larger than the server takes (Node's parser refused them).
 *
 * @example
 * new HeadersTooLarge({ reason: 'headers-too-large', message: '…' }).status // 431
 */
export class HeadersTooLarge extends Schema.TaggedError<HeadersTooLarge>()('HeadersTooLarge', {
  reason: Schema.Literal('headers-too-large'),
  message: Schema.String,
  status: status(431),
}) {}

/**
 * The request did not arrive in time (Node's request or headers timeout).
 *
 * @example
 * new RequestTimeout({ reason: 'slow-request', message: '…' }).status // 408
 */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()('RequestTimeout', {
  reason: Schema.Literal('slow-request'),
  message: Schema.String,
  status: status(408),
}) {}

/**
 * The request is malformed: not JSON (`invalid-json`), a body that does not fit the endpoint
 * (`invalid-body`), a bad path or query parameter (`invalid-parameter`), or a request that could
 * not be read or is not valid HTTP (`malformed-request`).
 *
 * @example
 * new BadRequest({ reason: 'invalid-json', message: 'The body is not valid JSON.' }).status // 400
 */
export class BadRequest extends Schema.TaggedError<BadRequest>()('BadRequest', {
  reason: Schema.Literal('invalid-json', 'invalid-body', 'invalid-parameter', 'malformed-request'),
  message: Schema.String,
  status: status(400),
}) {}

/**
 * No credential (`missing-token`), or one that is not valid here (`wrong-token`): the person's
 * bearer token, an agent token, a Daily Browser admin or lease token, a live-view sign-in.
 *
 * @example
 * new Unauthorized({ reason: 'missing-token', message: '…' }).status // 401, with WWW-Authenticate
 */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()('Unauthorized', {
  reason: Schema.Literal('missing-token', 'wrong-token'),
  message: Schema.String,
  status: status(401),
}) {}

/**
 * No such endpoint on this front.
 *
 * @example
 * new NotFound({ reason: 'no-route', message: '…' }).status // 404
 */
export class NotFound extends Schema.TaggedError<NotFound>()('NotFound', {
  reason: Schema.Literal('no-route'),
  message: Schema.String,
  status: status(404),
}) {}

/**
 * The endpoint exists but not with this method; `allow` lists the methods it takes and is sent
 * as the `Allow` header.
 *
 * @example
 * new MethodNotAllowed({ reason: 'method', allow: 'POST', message: '…' }).status // 405
 */
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()('MethodNotAllowed', {
  reason: Schema.Literal('method'),
  allow: Schema.String,
  message: Schema.String,
  status: status(405),
}) {}

/**
 * A WebSocket upgrade to a path that takes none (only `/devtools/<token>`, `/live/socket` and the
 * inspector relay's `/` do). Answered in HTTP, so a client learns why instead of a reset.
 *
 * @example
 * new UpgradeRefused({ reason: 'no-websocket', message: '…' }).status // 400
 */
export class UpgradeRefused extends Schema.TaggedError<UpgradeRefused>()('UpgradeRefused', {
  reason: Schema.Literal('no-websocket'),
  message: Schema.String,
  status: status(400),
}) {}

/**
 * A bug: the detail goes to the log, never to the caller.
 *
 * @example
 * InternalError.of('The host failed unexpectedly; try again.').status // 500
 */
export class InternalError extends Schema.TaggedError<InternalError>()('InternalError', {
  reason: Schema.Literal('defect'),
  message: Schema.String,
  status: status(500),
}) {
  /** @example InternalError.of('The live view failed; see the host log.') */
  static of(message: string): InternalError {
    return new InternalError({ reason: 'defect', message })
  }
}

/** Every refusal the edge itself produces. */
export type EdgeError =
  | WrongHost
  | ForeignOrigin
  | UnsupportedMediaType
  | PayloadTooLarge
  | HeadersTooLarge
  | RequestTimeout
  | BadRequest
  | Unauthorized
  | NotFound
  | MethodNotAllowed
  | UpgradeRefused
  | InternalError
