/**
 * An entry's site (W2): a registrable domain (`shop.example`: any host of it, http or https), or
 * an exact origin (`https://login.shop.example`) when the person saved one. Which registrable
 * domain a host belongs to is lending's one rule (`siteOf`, private suffixes included), so a
 * password fills on exactly the hosts a sign-in is lent to.
 *
 * @example
 * parseSite('www.Shop.example')                  // { kind: 'domain', domain: 'shop.example' }
 * parseSite('https://login.shop.example/x')      // { kind: 'origin', origin: 'https://login.shop.example' }
 * siteAllows(parseSite('shop.example')!, 'https://shop.example.evil.test/') // false
 */
import { siteOf } from '@errands/lending'

/** An entry's site, parsed. */
export type EntrySite =
  | { readonly kind: 'domain'; readonly domain: string }
  | { readonly kind: 'origin'; readonly origin: string }

const WEB = new Set(['http:', 'https:'])

/**
 * Reads a site as the person gives it: a URL is its exact origin (http or https only), a host
 * name its registrable domain. Undefined when it is neither.
 *
 * @example
 * parseSite('a.shop.example') // { kind: 'domain', domain: 'shop.example' }
 */
export const parseSite = (text: string): EntrySite | undefined => {
  const t = text.trim()
  if (t === '' || t.length > 2048) return undefined
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(t)) {
    try {
      const url = new URL(t)
      return WEB.has(url.protocol) && url.hostname !== '' ? { kind: 'origin', origin: url.origin } : undefined
    } catch {
      return undefined
    }
  }
  if (/[\s/@?#\\%]/.test(t)) return undefined
  try {
    const host = new URL(`http://${t}/`)
    if (host.pathname !== '/' || host.port !== '' || host.username !== '') return undefined
    return { kind: 'domain', domain: siteOf(host.hostname) }
  } catch {
    return undefined
  }
}

/**
 * How a site is written in an entry, an answer and a log line.
 *
 * @example
 * siteText({ kind: 'domain', domain: 'shop.example' }) // 'shop.example'
 */
export const siteText = (site: EntrySite): string => (site.kind === 'domain' ? site.domain : site.origin)

/**
 * The site of a page's URL as a person reads it (its registrable domain), for a refusal's
 * message: never its path or query.
 *
 * @example
 * pageSite('https://shop.example.evil.test/login?next=1') // 'evil.test'
 */
export const pageSite = (url: string): string => {
  try {
    const u = new URL(url)
    return WEB.has(u.protocol) ? siteOf(u.hostname) : `${u.protocol.replace(/:$/, '')} page`
  } catch {
    return 'no page'
  }
}

/**
 * Whether a URL is on the site: an http(s) URL whose host's registrable domain is the entry's,
 * or whose origin is the entry's exact origin.
 *
 * @example
 * siteAllows({ kind: 'domain', domain: 'shop.example' }, 'https://a.shop.example/login') // true
 * siteAllows({ kind: 'domain', domain: 'shop.example' }, 'https://shop.example.evil.test/') // false
 */
export const siteAllows = (site: EntrySite, url: string): boolean => {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return false
  }
  if (!WEB.has(u.protocol)) return false
  return site.kind === 'domain' ? siteOf(u.hostname) === site.domain : u.origin === site.origin
}
