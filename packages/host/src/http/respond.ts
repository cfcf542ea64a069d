/**
 * The host's answers: JSON and bytes with the edge's headers (`no-store`, `nosniff`, never a
 * CORS header, B7), and failures through `@errands/edge`'s one renderer —
 * `{"error":{"code":"<Tag>","reason":"…","message":"…"}}` whatever package the error came from.
 * What the host adds is the status of errors that carry none (the runtime's) and `AllBusy`'s
 * longer `Retry-After`.
 *
 * @example
 * json(200, { url: 'about:blank' })
 * errorResponse(AllBusy.of(4)) // 503, Retry-After: 60
 */
import { BASE_HEADERS, errorResponse as edgeErrorResponse, type RenderOptions, type Tagged } from '@errands/edge'

export { json } from '@errands/edge'

/** Status for errors of other packages that carry none (the runtime's). */
const statusOf = (e: Tagged): number | undefined => {
  if (e._tag === 'RuntimeError') {
    return e.reason === 'timeout' ? 504 : e.reason === 'unavailable' ? 502 : e.reason === 'invalid' ? 422 : 503
  }
  if (e._tag === 'ContextNotFound') return 503
  return undefined
}

/** How the host renders failures (the edge's renderer, with the host's fallbacks). */
export const HOST_RENDER: RenderOptions = {
  statusOf,
  // C3: every slot is busy with work in flight; a minute is a fair wait.
  retryAfterOf: (e) => (e._tag === 'AllBusy' ? 60 : undefined),
  defectMessage: 'The host failed unexpectedly; try again, and report it if it keeps happening.',
}

/**
 * A binary response (screenshots, frames).
 *
 * @example
 * bytes(png, 'image/png')
 */
export const bytes = (data: Uint8Array, type: string, headers: Readonly<Record<string, string>> = {}): Response =>
  new Response(data as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: { ...BASE_HEADERS, 'content-type': type, ...headers },
  })

/**
 * The JSON error response for a failure.
 *
 * @example
 * errorResponse(new BadRequest({ reason: 'invalid-json', message: 'The body is not JSON' }))
 */
export const errorResponse = (e: unknown): Response => edgeErrorResponse(e, HOST_RENDER)
