/**
 * The one function that decides which **site** a host, a cookie or an origin belongs to (SPEC
 * Concepts "Site"). Seeding, lending, revocation and the permission check all call it, so a
 * cookie that is lent is exactly a cookie that a revocation takes back.
 *
 * A site is a registrable domain (eTLD+1) from the Public Suffix List **with its private
 * section** (tldts, `allowPrivateDomains: true`): `a.shop.example` and `.shop.example` belong to
 * `shop.example`, and `alice.github.io` is a site of its own (github.io is a private suffix), not
 * `github.io`. IP addresses, `localhost` and hosts with no registrable domain (a public suffix
 * such as `github.io` or `co.uk` itself) are their own site.
 *
 * @example
 * siteOf('.Shop.Example')                     // 'shop.example'
 * siteOf('alice.github.io')                   // 'alice.github.io'
 * cookieSite(cookie('sid', 'v', 'a.shop.example')) // 'shop.example'
 * originSite('http://bob.github.io:8080')     // 'bob.github.io'
 */
import type { Cookie } from '@errands/runtime'
import { getDomain, parse } from 'tldts'

/** Characters that make a string a URL rather than a host: never canonicalised through `URL`. */
const NOT_A_HOST = /[/@?#\\%\s]/

/**
 * Lower case, no surrounding whitespace or dots (in any mix: `'. x'` loses both, so trimming
 * twice changes nothing — fast-check found `'. !'`), no IPv6 brackets.
 */
const trimHost = (input: string): string => {
  let host = input.toLowerCase().replace(/^[\s.]+|[\s.]+$/g, '')
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1)
  return host
}

/**
 * The host as a URL would spell it: IDNs in punycode (Chromium stores cookie domains that way),
 * IPv4 in dotted decimal, IPv6 compressed. A string that is no valid host stays as it is: it
 * then matches nothing but itself.
 */
const canonicalHost = (host: string): string => {
  if (host === '' || NOT_A_HOST.test(host)) return host
  try {
    if (host.includes(':')) {
      const v6 = new URL(`http://[${host}]/`).hostname
      return v6.slice(1, -1)
    }
    return new URL(`http://${host}/`).hostname.replace(/\.+$/, '')
  } catch {
    return host
  }
}

/**
 * The site of a host or cookie domain: its registrable domain (private suffixes included),
 * lower-case, without leading dots. IPs, `localhost` and hosts without a registrable domain are
 * their own site. Total and idempotent: `siteOf(siteOf(x)) === siteOf(x)`.
 *
 * @example
 * siteOf('a.shop.example')   // 'shop.example'
 * siteOf('.shop.example')    // 'shop.example'
 * siteOf('alice.github.io')  // 'alice.github.io'
 * siteOf('github.io')        // 'github.io'
 * siteOf('127.0.0.1')        // '127.0.0.1'
 * siteOf('LOCALHOST')        // 'localhost'
 */
export const siteOf = (hostOrDomain: string): string => {
  const host = canonicalHost(trimHost(hostOrDomain))
  // Not a host (a URL, user info, a path): its own "site", which matches nothing real. tldts
  // would otherwise pull a hostname out of it.
  if (host === '' || NOT_A_HOST.test(host) || host.includes(':') || parse(host).isIp === true) return host
  return getDomain(host, { allowPrivateDomains: true }) ?? host
}

/**
 * The site a cookie belongs to, from its `domain` (`.shop.example` and `a.shop.example` both
 * belong to `shop.example`).
 *
 * @example
 * cookieSite({ ...c, domain: '.alice.github.io' }) // 'alice.github.io'
 */
export const cookieSite = (c: Pick<Cookie, 'domain'>): string => siteOf(c.domain)

/**
 * The site of a localStorage origin (`scheme://host[:port]`), or `undefined` when the origin has
 * no host (opaque origins, `file:`) — such an origin belongs to no site and is never lent.
 *
 * @example
 * originSite('https://a.shop.example') // 'shop.example'
 * originSite('null')                   // undefined
 */
export const originSite = (origin: string): string | undefined => {
  let hostname: string
  try {
    hostname = new URL(origin).hostname
  } catch {
    return undefined
  }
  return hostname === '' ? undefined : siteOf(hostname)
}

/**
 * A set of sites from hosts, domains or sites, each passed through {@link siteOf}; empty
 * strings are dropped.
 *
 * @example
 * siteSet(['www.shop.example', 'shop.example', 'alice.github.io']) // Set { 'shop.example', 'alice.github.io' }
 */
export const siteSet = (hosts: Iterable<string>): ReadonlySet<string> => {
  const out = new Set<string>()
  for (const h of hosts) {
    const site = siteOf(h)
    if (site !== '') out.add(site)
  }
  return out
}
