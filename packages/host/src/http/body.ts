/**
 * Reading the host's JSON bodies, size-limited; the edge decodes them (`decodeBody`, `decodeQuery` of
 * @errands/edge, the one decoder every front words its refusals with).
 *
 * @example
 * const body = yield* decodeBody(NavigateBody, yield* readText(request))
 */
import { type BadRequest, type PayloadTooLarge, readWebBody, utf8 } from '@errands/edge'
import { Effect } from 'effect'

/** The largest body the host reads (bytes). @example readText(request, MAX_BODY_BYTES) */
export const MAX_BODY_BYTES = 1024 * 1024

/**
 * The request's body as text, refusing more than {@link MAX_BODY_BYTES} (the edge's reader:
 * declared or streamed, it stops past the limit).
 *
 * @example
 * const text = yield* readText(request)
 */
export const readText = (
  request: Request,
  limit = MAX_BODY_BYTES,
): Effect.Effect<string, PayloadTooLarge | BadRequest> =>
  Effect.map(readWebBody(request.body, limit, request.headers.get('content-length')), utf8)
