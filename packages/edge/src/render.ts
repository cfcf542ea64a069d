/**
 * The one error renderer: every front answers a failure as
 * `{"error":{"code":"<_tag>","reason":"<reason>","message":"…"}}` with the status the error
 * carries, `Cache-Control: no-store`, `X-Content-Type-Options: nosniff` and never a CORS header —
 * as a web `Response`, on a Node `ServerResponse`, or as raw HTTP/1.1 bytes for a socket (Node's
 * `clientError` and `upgrade` events, where no response object exists).
 *
 * `reason` is there when the error has one (the Daily Browser extension shows a lease's end
 * cause from it); `code` and `message` always are.
 *
 * @example
 * errorResponse(new NotFound({ reason: 'no-route', message: '…' })) // 404
 * sendError(res, PayloadTooLarge.of(16 * 1024))                   // 413 on a Node response
 * refuseUpgrade(socket, new UpgradeRefused({ reason: 'no-websocket', message: '…' }))
 */
import type { ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'

/** Headers every answer carries. */
export const BASE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
}

/** A failure as it goes on the wire. */
export interface HttpFailure {
  readonly status: number
  readonly code: string
  readonly reason?: string | undefined
  readonly message: string
  readonly headers: Readonly<Record<string, string>>
}

/** A tagged error as the renderer reads it. */
export interface Tagged {
  readonly _tag: string
  readonly message: string
  readonly status?: unknown
  readonly reason?: unknown
  readonly allow?: unknown
  readonly retryAfterSeconds?: unknown
}

/** How a front adapts the renderer to errors of other packages. */
export interface RenderOptions {
  /** The status of an error that carries none (the runtime's); default 500. */
  readonly statusOf?: ((e: Tagged) => number | undefined) | undefined
  /** Seconds for `Retry-After` when the error does not say (default: 5 on a 503). */
  readonly retryAfterOf?: ((e: Tagged) => number | undefined) | undefined
  /** The message of a defect (an untagged throwable); the detail never leaves the process. */
  readonly defectMessage?: string | undefined
}

const isTagged = (e: unknown): e is Tagged =>
  typeof e === 'object' &&
  e !== null &&
  typeof (e as Tagged)._tag === 'string' &&
  typeof (e as Tagged).message === 'string'

/**
 * Any failure as status, code, reason, message and extra headers: `Allow` on a 405,
 * `WWW-Authenticate` on a 401, `Retry-After` on a 429/503. Unknown throwables (defects) become a
 * 500 `InternalError` whose message hides the detail.
 *
 * @example
 * toFailure(new MethodNotAllowed({ reason: 'method', allow: 'GET', message: '…' })).headers // { allow: 'GET' }
 */
export const toFailure = (e: unknown, options: RenderOptions = {}): HttpFailure => {
  if (!isTagged(e)) {
    return {
      status: 500,
      code: 'InternalError',
      reason: 'defect',
      message:
        options.defectMessage ?? 'The server failed unexpectedly; try again, and report it if it keeps happening.',
      headers: {},
    }
  }
  const own = typeof e.status === 'number' && e.status >= 400 && e.status < 600 ? e.status : undefined
  const status = own ?? options.statusOf?.(e) ?? 500
  const headers: Record<string, string> = {}
  const retryAfter = typeof e.retryAfterSeconds === 'number' ? e.retryAfterSeconds : options.retryAfterOf?.(e)
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter)
  else if (status === 503) headers['retry-after'] = '5'
  if (status === 405 && typeof e.allow === 'string') headers.allow = e.allow
  if (status === 401) headers['www-authenticate'] = 'Bearer realm="errands"'
  return {
    status,
    code: e._tag,
    reason: typeof e.reason === 'string' ? e.reason : undefined,
    message: e.message,
    headers,
  }
}

/**
 * The JSON text of a failure's body.
 *
 * @example
 * errorBody(toFailure(e)) // '{"error":{"code":"NotFound","reason":"no-route","message":"…"}}'
 */
export const errorBody = (f: HttpFailure): string =>
  JSON.stringify({
    error: { code: f.code, ...(f.reason !== undefined ? { reason: f.reason } : {}), message: f.message },
  })

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
 * The JSON error response for a failure (web `Response`).
 *
 * @example
 * errorResponse(new BadRequest({ reason: 'invalid-json', message: 'The body is not JSON' })) // 400
 */
export const errorResponse = (e: unknown, options?: RenderOptions): Response => {
  const f = toFailure(e, options)
  return new Response(errorBody(f), {
    status: f.status,
    headers: { ...BASE_HEADERS, 'content-type': 'application/json; charset=utf-8', ...f.headers },
  })
}

/**
 * Writes a JSON answer on a Node response.
 *
 * @example
 * sendJson(res, 200, { signedIn: true })
 */
export const sendJson = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void => {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    ...BASE_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  })
  res.end(text)
}

/**
 * Writes the JSON error for a failure on a Node response.
 *
 * @example
 * sendError(res, new NotFound({ reason: 'no-route', message: 'No such page.' }))
 */
export const sendError = (res: ServerResponse, e: unknown, options?: RenderOptions): HttpFailure => {
  const f = toFailure(e, options)
  const text = errorBody(f)
  res.writeHead(f.status, {
    ...BASE_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...f.headers,
  })
  res.end(text)
  return f
}

const PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  421: 'Misdirected Request',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

/**
 * The raw bytes of an HTTP/1.1 JSON error answer that closes the connection, for a socket with
 * no response object (`clientError`, `upgrade`).
 *
 * @example
 * socket.end(rawErrorResponse(new HeadersTooLarge({ reason: 'headers-too-large', message: '…' })))
 */
export const rawErrorResponse = (e: unknown, options?: RenderOptions): string => {
  const f = toFailure(e, options)
  const body = errorBody(f)
  const extra = Object.entries(f.headers).map(([k, v]) => `${k}: ${v}`)
  return [
    `HTTP/1.1 ${f.status} ${PHRASES[f.status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    ...extra,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n')
}

/**
 * Refuses a WebSocket upgrade: the JSON error as an HTTP answer on the raw socket, then closes it
 * (a client is told why instead of seeing a reset).
 *
 * @example
 * server.on('upgrade', (req, socket) => refuseUpgrade(socket, new UpgradeRefused({ reason: 'no-websocket', message:
 * '…' })))
 */
export const refuseUpgrade = (socket: Duplex, e: unknown, options?: RenderOptions): void => {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  socket.end(rawErrorResponse(e, options))
}
