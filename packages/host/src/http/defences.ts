/**
 * The local-service defences (B7), as pure checks over request headers — run before routing, so
 * a refused request reaches nothing:
 *
 * - **Host**: only `Host: 127.0.0.1:<port>` is answered. A DNS-rebinding page reaches us under
 *   its own name (`evil.example:7777`), and the browser sends that name: refused with 421.
 * - **Origin**: a browser request whose `Origin` is not `http://127.0.0.1:<port>` (a page
 *   anywhere else, `null` from a sandbox or a file) is refused with 403. So is one whose
 *   `Sec-Fetch-Site` says it came from another site — browsers send that even on GETs that carry
 *   no `Origin` (an `<img src>` or a form navigation).
 * - **Media type**: a body must be `application/json`. `text/plain`, `application/x-www-form-
 *   urlencoded` and `multipart/form-data` are what a plain form or a "simple" cross-origin fetch
 *   can send without a preflight: 415.
 * - No CORS header is ever sent (see `respond.ts`), so no preflight can succeed either.
 *
 * @example
 * checkHost(headers, { port: 7777 }) // undefined when Host is 127.0.0.1:7777
 */
import { ForeignOrigin, UnsupportedMediaType, WrongHost } from '../errors.ts'

/** Who the host is on the network. */
export interface Identity {
  readonly port: number
}

/** The one Host header value answered. @example ownHost({ port: 7777 }) // '127.0.0.1:7777' */
export const ownHost = (identity: Identity): string => `127.0.0.1:${identity.port}`

/** The host's own origin. @example ownOrigin({ port: 7777 }) // 'http://127.0.0.1:7777' */
export const ownOrigin = (identity: Identity): string => `http://${ownHost(identity)}`

/**
 * Refuses a request whose `Host` is not exactly the host's loopback address and port.
 *
 * @example
 * checkHost(new Headers({ host: 'evil.example:7777' }), { port: 7777 }) // WrongHost
 */
export const checkHost = (headers: Headers, identity: Identity): WrongHost | undefined => {
  const host = headers.get('host')
  if (host === ownHost(identity)) return undefined
  return new WrongHost({
    reason: 'foreign-host',
    message: `This host answers only requests addressed to ${ownHost(identity)} (the Host header said ${host === null ? 'nothing' : JSON.stringify(host.slice(0, 100))}); call ${ownOrigin(identity)} directly.`,
  })
}

/**
 * Refuses browser requests from any other origin or site.
 *
 * @example
 * checkOrigin(new Headers({ origin: 'https://evil.example' }), { port: 7777 }) // ForeignOrigin
 */
export const checkOrigin = (headers: Headers, identity: Identity): ForeignOrigin | undefined => {
  const origin = headers.get('origin')
  if (origin !== null && origin !== ownOrigin(identity)) {
    return new ForeignOrigin({
      reason: 'origin',
      message: `Requests from web pages of other origins are refused (Origin ${JSON.stringify(origin.slice(0, 100))}); call the host from your own process, not from a page.`,
    })
  }
  const site = headers.get('sec-fetch-site')
  if (site !== null && site !== 'same-origin' && site !== 'none') {
    return new ForeignOrigin({
      reason: 'fetch-site',
      message: `Requests a browser sends on behalf of another site are refused (Sec-Fetch-Site ${JSON.stringify(site.slice(0, 40))}).`,
    })
  }
  return undefined
}

/**
 * Refuses a body that is not JSON. `hasBody` is whether the request carries one.
 *
 * @example
 * checkMediaType(new Headers({ 'content-type': 'text/plain' }), true) // UnsupportedMediaType
 */
export const checkMediaType = (headers: Headers, hasBody: boolean): UnsupportedMediaType | undefined => {
  const type = headers.get('content-type')
  if (type === null && !hasBody) return undefined
  const essence = (type ?? '').split(';')[0]!.trim().toLowerCase()
  if (essence === 'application/json') return undefined
  return new UnsupportedMediaType({
    reason: 'not-json',
    message: `Bodies must be JSON: send Content-Type: application/json (got ${type === null ? 'no Content-Type' : JSON.stringify(type.slice(0, 100))}).`,
  })
}
