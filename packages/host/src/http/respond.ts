/**
 * Responses: JSON with `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`, never a
 * CORS header (B7), and one error shape — `{"error":{"code":"<Tag>","message":"…"}}` — whatever
 * package the error came from.
 *
 * @example
 * json(200, { url: 'about:blank' })
 * errorResponse(AllBusy.of(4)) // 503, Retry-After: 60
 */

/** Headers every response carries. */
const BASE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
}

/**
 * A JSON response.
 *
 * @example
 * json(200, { ok: true })
 */
export const json = (status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { ...BASE_HEADERS, 'content-type': 'application/json; charset=utf-8', ...headers },
  })

/**
 * A binary response (screenshots, frames).
 *
 * @example
 * bytes(png, 'image/png')
 */
export const bytes = (data: Uint8Array, type: string, headers: Readonly<Record<string, string>> = {}): Response =>
  new Response(data as Uint8Array<ArrayBuffer>, { status: 200, headers: { ...BASE_HEADERS, 'content-type': type, ...headers } })

/** An error as the host answers it. */
export interface HttpFailure {
  readonly status: number
  readonly code: string
  readonly message: string
  readonly headers: Readonly<Record<string, string>>
}

interface Tagged {
  readonly _tag: string
  readonly message: string
  readonly status?: unknown
  readonly reason?: unknown
  readonly allow?: unknown
}

const isTagged = (e: unknown): e is Tagged =>
  typeof e === 'object' && e !== null && typeof (e as Tagged)._tag === 'string' && typeof (e as Tagged).message === 'string'

/** Status for errors of other packages that carry none (the runtime's). */
const fallbackStatus = (e: Tagged): number => {
  if (e._tag === 'RuntimeError') {
    return e.reason === 'timeout' ? 504 : e.reason === 'unavailable' ? 502 : e.reason === 'invalid' ? 422 : 503
  }
  if (e._tag === 'ContextNotFound') return 503
  return 500
}

/**
 * Any failure as status, code, message and extra headers. Unknown throwables (defects) become
 * a 500 `InternalError` whose message hides the detail.
 *
 * @example
 * toFailure(new UnknownConversation({ ... })).status // 404
 */
export const toFailure = (e: unknown): HttpFailure => {
  if (!isTagged(e)) {
    return { status: 500, code: 'InternalError', message: 'The host failed unexpectedly; try again, and report it if it keeps happening.', headers: {} }
  }
  const status = typeof e.status === 'number' ? e.status : fallbackStatus(e)
  const headers: Record<string, string> = {}
  if (e._tag === 'AllBusy') headers['retry-after'] = '60'
  else if (status === 503) headers['retry-after'] = '5'
  if (status === 405 && typeof e.allow === 'string') headers['allow'] = e.allow
  if (status === 401) headers['www-authenticate'] = 'Bearer realm="errands"'
  return { status, code: e._tag, message: e.message, headers }
}

/**
 * The JSON error response for a failure.
 *
 * @example
 * errorResponse(new BadRequest({ reason: 'invalid-json', message: 'The body is not JSON' }))
 */
export const errorResponse = (e: unknown): Response => {
  const f = toFailure(e)
  return json(f.status, { error: { code: f.code, message: f.message } }, f.headers)
}

/**
 * The raw bytes of an HTTP/1.1 JSON error response, for the socket-level `clientError` path
 * (Node refuses a malformed request before any handler runs, STACK-NOTES).
 *
 * @example
 * socket.end(rawErrorResponse(400, 'BadRequest', 'A header had a control character'))
 */
export const rawErrorResponse = (status: number, code: string, message: string): string => {
  const body = JSON.stringify({ error: { code, message } })
  const reason = status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'
  return [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n')
}
