/**
 * What a front admits, declared once where its route is, and the one order the edge's first checks run in
 * (docs/edge.md, B7): the Host, then the Origin. Every front — the host's /v1 and /mcp, the live view, the Daily
 * door, the DevTools upgrade, the inspector relay — asks {@link admit} with its declared {@link Access}, so no
 * front composes the checks itself (and `checkHost`/`checkOrigin` are the edge's own).
 *
 * @example
 * const refusal = admit(headers, { port }, { origin: { required: true } })
 * if (refusal) return errorResponse(refusal)
 */
import { type HeadersLike, type Identity, checkHost, checkOrigin, type OriginRule } from './checks.ts'
import { type ForeignOrigin, WrongHost } from './errors.ts'

/** The Host a request must name. */
export type HostRule =
  /** This server's own: `127.0.0.1:<port>` or `localhost:<port>` (the default). */
  | 'own'
  /** Exactly one of the names this front handed out (a DevTools URL as given), read at each request. */
  | { readonly exactly: () => ReadonlyArray<string> }

/** A front's or a route's access. */
export interface Access {
  /** Default `'own'`. */
  readonly host?: HostRule | undefined
  /** Which browser origins pass; default: the request's own origin only (`checkOrigin`'s rule). */
  readonly origin?: OriginRule | undefined
}

const checkExactHost = (headers: HeadersLike, names: ReadonlyArray<string>): WrongHost | undefined => {
  const host = headers.get('host')
  if (host !== null && names.includes(host)) return undefined
  return new WrongHost({
    reason: 'foreign-host',
    message:
      `Connect with the URL exactly as it was given (the Host header said ` +
      `${host === null ? 'nothing' : JSON.stringify(host.slice(0, 100))}).`,
  })
}

/**
 * Why the request is refused before routing reaches anything — its Host, then its Origin — or `undefined`.
 *
 * @example
 * admit(new Headers({ host: 'evil.example:7777' }), { port: 7777 }) // WrongHost (421)
 * admit(headers, identity, { host: { exactly: () => handedOut }, origin: { own: false } })
 */
export const admit = (
  headers: HeadersLike,
  identity: Identity,
  access: Access = {},
): WrongHost | ForeignOrigin | undefined => {
  const host = access.host ?? 'own'
  return (
    (host === 'own' ? checkHost(headers, identity) : checkExactHost(headers, host.exactly())) ??
    checkOrigin(headers, identity, access.origin)
  )
}
