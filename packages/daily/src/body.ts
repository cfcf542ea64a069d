/**
 * JSON bodies at the door, through `@errands/edge`: `application/json` only (B7 — `text/plain`,
 * `multipart/form-data` and `application/x-www-form-urlencoded` are what a plain web form can send
 * cross-site without a preflight, so they are refused with 415), bounded in size by the edge's
 * reader (413), parsed, and decoded strictly with a Schema by the edge's one decoder (`decodeBody`).
 */
import {
  type BadRequest,
  checkMediaType,
  nodeHeaders,
  decodeBody,
  readNodeBody,
  utf8,
  type PayloadTooLarge,
  type UnsupportedMediaType,
} from '@errands/edge'
import type { IncomingMessage } from 'node:http'
import { Effect, type Schema } from 'effect'

/**
 * Checks the media type, reads at most `maxBytes` of the body and decodes it with `schema`.
 *
 * @example
 * const { code } = yield* readJson(req, RedeemBody, 64 * 1024)
 */
export const readJson = <A, I>(
  req: IncomingMessage,
  schema: Schema.Schema<A, I>,
  maxBytes: number,
): Effect.Effect<A, UnsupportedMediaType | PayloadTooLarge | BadRequest> =>
  Effect.gen(function* () {
    const notJson = checkMediaType(nodeHeaders(req.headers), true)
    if (notJson) return yield* notJson
    return yield* decodeBody(schema, utf8(yield* readNodeBody(req, maxBytes)))
  })
