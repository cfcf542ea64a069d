/**
 * The guard's decision on a connection whose name was resolved (SPEC G2, G3): the egress asks it
 * once per connection with every address the name resolved to, and connects only to an address
 * this said yes to.
 *
 * A URL's host says little on its own: `vm` or `rebind.example` may resolve to 127.0.0.1, and a
 * name's answer can change between two lookups (DNS rebinding). So the name is judged first (the
 * `blocked-host` rule, and literal addresses in every spelling), then **every** resolved address
 * as if it had been written in the URL. One blocked address blocks the connection: a resolver
 * that answers `[203.0.113.7, 127.0.0.1]` must not get a second chance on the next connect.
 *
 * @example
 * decideResolved({ scheme: 'http', host: 'vm', port: 7070, addresses: ['127.0.0.1'] }, policy)
 * // { allow: false, rule: 'own-port', detail: 'http://vm:7070 resolves to 127.0.0.1: port 7070 is one of the engine's
 * own ports' }
 */
import { decide, type Decision, describeTarget, normaliseHost } from './decide.ts'
import { formatIp, parseIp, unmapIpv4 } from './ip.ts'
import type { GuardPolicy } from './policy.ts'

/**
 * One connection as the egress sees it: the scheme it will speak (`http` for a plain proxied
 * request, `connect` for a CONNECT tunnel: TLS, WebSockets and anything else), the host as the
 * browser asked for it, the port, and what the name resolved to.
 *
 * @example
 * const target: ResolvedTarget = { scheme: 'connect', host: 'shop.example', port: 443, addresses: ['203.0.113.7'] }
 */
export interface ResolvedTarget {
  readonly scheme: string
  readonly host: string
  readonly port: number
  readonly addresses: ReadonlyArray<string>
}

/** A decision's detail with the URL it names replaced by `label`. */
const relabel = (decision: Decision, url: string, label: string): Decision => {
  const named = describeTarget(url)
  return decision.detail.startsWith(named)
    ? { ...decision, detail: `${label}${decision.detail.slice(named.length)}` }
    : decision
}

/** A host as a URL's host: IPv6 literals in brackets. */
const urlHost = (host: string): string => {
  const h = normaliseHost(host)
  return h.includes(':') ? `[${h}]` : h
}

/**
 * The canonical text of an address (IPv4-mapped IPv6 unmapped, IPv6 compressed), or `undefined`
 * for something that is no address.
 *
 * @example
 * canonicalAddress('::ffff:7f00:1') // "127.0.0.1"
 */
export const canonicalAddress = (address: string): string | undefined => {
  const ip = parseIp(address.trim())
  if (ip === undefined) return undefined
  return formatIp(unmapIpv4(ip) ?? ip)
}

/**
 * `scheme://host:port` for a connection (never a path, query or user info: L7).
 *
 * @example
 * describeConnection({ scheme: 'connect', host: 'shop.example', port: 443, addresses: [] }) //
 * "connect://shop.example:443"
 */
export const describeConnection = (target: Pick<ResolvedTarget, 'scheme' | 'host' | 'port'>): string =>
  `${target.scheme}://${urlHost(target.host)}:${target.port}`

/**
 * Decides a connection on the addresses its name resolved to (G3). The policy's own ports
 * (`ownPorts`) hold on every loopback and unspecified address, in every spelling, because each
 * address is canonicalised before it is judged. A target with no address is refused
 * (`invalid-url`: nothing to connect to).
 *
 * @example
 * decideResolved({ scheme: 'connect', host: 'shop.example', port: 443, addresses: ['10.0.0.1'] }, policy).rule //
 * "private"
 */
export const decideResolved = (target: ResolvedTarget, policy: GuardPolicy): Decision => {
  const described = describeConnection(target)
  // The scheme of the tunnel is unknown (TLS, ws, anything): the address rules are the same for all.
  const scheme = target.scheme === 'connect' ? 'http' : target.scheme
  const nameUrl = `${scheme}://${urlHost(target.host)}:${target.port}/`
  const byName = decide(nameUrl, policy)
  if (!byName.allow) return relabel(byName, nameUrl, described)
  if (target.addresses.length === 0)
    return { allow: false, rule: 'invalid-url', detail: `${described}: the name resolved to no address` }
  let last: Decision | undefined
  for (const raw of target.addresses) {
    const address = canonicalAddress(raw)
    if (address === undefined)
      return {
        allow: false,
        rule: 'invalid-url',
        detail: `${described}: the resolver answered something that is no address`,
      }
    const addressUrl = `${scheme}://${urlHost(address)}:${target.port}/`
    const byAddress = relabel(decide(addressUrl, policy), addressUrl, `${described} resolves to ${address}`)
    if (!byAddress.allow) return byAddress
    last = byAddress
  }
  return last!
}
