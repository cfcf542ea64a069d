/**
 * The local-service defences (B7) as pure checks over request headers, run before routing so a
 * refused request reaches nothing. Every front uses them, so one rule holds on every port:
 *
 * - **Host**: only `127.0.0.1:<port>` and `localhost:<port>` are answered (421 otherwise). These
 *   are the two names a local client uses for a server that listens on 127.0.0.1 (the Daily
 *   Browser extension may be paired with either); a DNS-rebinding page reaches the port under its
 *   own name (`evil.example:7777`), and the browser sends that name. Other loopback spellings
 *   (`127.0.0.2`, `[::1]`) are refused: nothing of ours listens there.
 * - **Origin**: a browser's `Origin` must be the request's own (`http://` + its accepted Host),
 *   or one the front names (the paired extension); a front may refuse its own origin too (the
 *   DevTools endpoint takes no page at all) or require an Origin (a live-view change). With no
 *   accepted Origin, a `Sec-Fetch-Site` other than `same-origin`/`none` is refused: browsers send
 *   it even on requests without an Origin (an `<img src>`, a form navigation). 403.
 * - **Media type**: a body must be `application/json` (415).
 *
 * @example
 * checkHost(new Headers({ host: 'evil.example:7777' }), { port: 7777 }) // WrongHost
 * checkOrigin(new Headers({ origin: 'https://evil.example' }), { port: 7777 }) // ForeignOrigin
 */
import { ForeignOrigin, MethodNotAllowed, UnsupportedMediaType, WrongHost } from './errors.ts'

/** Where a front listens: its port on 127.0.0.1. */
export interface Identity {
  readonly port: number
}

/** What the checks read of a request's headers: web `Headers`, or {@link nodeHeaders} of a Node request. */
export interface HeadersLike {
  readonly get: (name: string) => string | null
}

/**
 * A Node request's headers as {@link HeadersLike} (repeated values joined with `, `).
 *
 * @example
 * checkHost(nodeHeaders(req.headers), { port })
 */
export const nodeHeaders = (
  headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>,
): HeadersLike => ({
  get: (name) => {
    const value = headers[name.toLowerCase()]
    return value === undefined ? null : typeof value === 'string' ? value : value.join(', ')
  },
})

/** The canonical Host of a front. @example ownHost({ port: 7777 }) // '127.0.0.1:7777' */
export const ownHost = (identity: Identity): string => `127.0.0.1:${identity.port}`

/** The canonical origin of a front. @example ownOrigin({ port: 7777 }) // 'http://127.0.0.1:7777' */
export const ownOrigin = (identity: Identity): string => `http://${ownHost(identity)}`

/**
 * Whether a `Host` value is one this front answers: `127.0.0.1:<port>` or `localhost:<port>`
 * (the name in any case).
 *
 * @example
 * isOwnHost('localhost:7777', { port: 7777 }) // true
 * isOwnHost('127.0.0.2:7777', { port: 7777 }) // false
 */
export const isOwnHost = (host: string | null | undefined, identity: Identity): boolean => {
  if (host === null || host === undefined) return false
  const h = host.toLowerCase()
  return h === ownHost(identity) || h === `localhost:${identity.port}`
}

/**
 * Refuses a request whose `Host` is not one of the front's own.
 *
 * @example
 * checkHost(new Headers({ host: 'evil.example:7777' }), { port: 7777 }) // WrongHost
 */
export const checkHost = (headers: HeadersLike, identity: Identity): WrongHost | undefined => {
  const host = headers.get('host')
  if (isOwnHost(host, identity)) return undefined
  return new WrongHost({
    reason: 'foreign-host',
    message:
      `This server answers only requests addressed to ${ownHost(identity)} or localhost:${identity.port} (the ` +
      `Host header said ${host === null ? 'nothing' : JSON.stringify(host.slice(0, 100))}); call ` +
      `${ownOrigin(identity)} directly.`,
  })
}

/** Which browser origins a front answers. Default: its own origin only, an Origin optional. */
export interface OriginRule {
  /** Whether the request's own origin (`http://` + its accepted Host) passes. Default `true`. */
  readonly own?: boolean | undefined
  /** Other origins that pass (the Daily Browser extension's, the host's UI on admin routes). */
  readonly others?: ((origin: string) => boolean) | undefined
  /** Whether a request without an `Origin` is refused. Default `false`. */
  readonly required?: boolean | undefined
  /**
   * Whether `Sec-Fetch-Site` is checked on a request without an Origin. Default `true`; `false`
   * only for a page another of our ports frames (the inspector relay's, same-site to the live view).
   */
  readonly fetchSite?: boolean | undefined
}

/**
 * Refuses browser requests from other origins or sites (see the module comment).
 *
 * @example
 * checkOrigin(new Headers({ origin: 'https://evil.example' }), { port: 7777 }) // ForeignOrigin
 * checkOrigin(headers, { port }, { own: false, others: (o) => o === extension, required: true })
 */
export const checkOrigin = (
  headers: HeadersLike,
  identity: Identity,
  rule: OriginRule = {},
): ForeignOrigin | undefined => {
  const origin = headers.get('origin')
  if (origin !== null) {
    const host = headers.get('host')
    const own = `http://${isOwnHost(host, identity) ? host!.toLowerCase() : ownHost(identity)}`
    if ((rule.own !== false && origin === own) || rule.others?.(origin) === true) return undefined
    return new ForeignOrigin({
      reason: 'origin',
      message:
        `Requests from web pages of other origins are refused here (Origin ` +
        `${JSON.stringify(origin.slice(0, 100))}); call from your own process, not from a page.`,
    })
  }
  if (rule.required === true) {
    return new ForeignOrigin({
      reason: 'no-origin',
      message: 'This call must come from the page or extension it belongs to (it carried no Origin).',
    })
  }
  const site = headers.get('sec-fetch-site')
  if (rule.fetchSite !== false && site !== null && site !== 'same-origin' && site !== 'none') {
    return new ForeignOrigin({
      reason: 'fetch-site',
      message:
        `Requests a browser sends on behalf of another site are refused (Sec-Fetch-Site ` +
        `${JSON.stringify(site.slice(0, 40))}).`,
    })
  }
  return undefined
}

/**
 * Whether a request carries a body: a non-zero `Content-Length` or any `Transfer-Encoding`.
 *
 * @example
 * hasBody(new Headers({ 'content-length': '2' })) // true
 */
export const hasBody = (headers: HeadersLike): boolean =>
  Number(headers.get('content-length') ?? '0') > 0 || headers.get('transfer-encoding') !== null

/**
 * Refuses a body that is not JSON. `withBody` is whether the request carries one: a request with
 * neither a body nor a `Content-Type` passes.
 *
 * @example
 * checkMediaType(new Headers({ 'content-type': 'text/plain' }), true) // UnsupportedMediaType
 */
export const checkMediaType = (headers: HeadersLike, withBody: boolean): UnsupportedMediaType | undefined => {
  const type = headers.get('content-type')
  if (type === null && !withBody) return undefined
  const essence = (type ?? '').split(';')[0]!.trim().toLowerCase()
  if (essence === 'application/json') return undefined
  return new UnsupportedMediaType({
    reason: 'not-json',
    message:
      `Bodies must be JSON: send Content-Type: application/json (got ` +
      `${type === null ? 'no Content-Type' : JSON.stringify(type.slice(0, 100))}).`,
  })
}

/**
 * Refuses a method the endpoint does not take (405, with `Allow`). `HEAD` passes where `GET` does.
 *
 * @example
 * checkMethod('DELETE', ['GET'], '/live/api/state') // MethodNotAllowed, Allow: GET
 */
export const checkMethod = (
  method: string,
  allow: ReadonlyArray<string>,
  path: string,
): MethodNotAllowed | undefined => {
  if (allow.includes(method) || (method === 'HEAD' && allow.includes('GET'))) return undefined
  const list = [...allow].sort().join(', ')
  return new MethodNotAllowed({
    reason: 'method',
    allow: list,
    message: `${path.slice(0, 200)} takes ${list}, not ${method.slice(0, 20)}.`,
  })
}
