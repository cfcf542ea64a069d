/**
 * What lending may say about what it moved (L7): cookie **names** and **sites**, never a value,
 * a path with a query, or a localStorage item. Log lines, errors, reports and health messages
 * of this package are built from these helpers only.
 *
 * @example
 * redactedCookieList([cookie('sid', 's3cr3t', '.shop.example')]) // 'sid@shop.example'
 */
import type { Cookie, OriginStorage } from '@errands/runtime'
import { cookieSite, originSite } from './sites.ts'

/**
 * The cookies as `name@site`, sorted and de-duplicated, joined with `, ` (`(none)` when empty).
 * The value, path and flags never appear.
 *
 * @example
 * redactedCookieList([cookie('sid', 'v', 'a.shop.example'), cookie('theme', 'dark', 'shop.example')])
 * // 'sid@shop.example, theme@shop.example'
 */
export const redactedCookieList = (cookies: ReadonlyArray<Pick<Cookie, 'name' | 'domain'>>): string => {
  const names = cookieNames(cookies)
  return names.length === 0 ? '(none)' : names.join(', ')
}

/**
 * The cookies as sorted, de-duplicated `name@site` strings (for reports).
 *
 * @example
 * cookieNames([cookie('sid', 'v', '.shop.example')]) // ['sid@shop.example']
 */
export const cookieNames = (cookies: ReadonlyArray<Pick<Cookie, 'name' | 'domain'>>): ReadonlyArray<string> =>
  [...new Set(cookies.map((c) => `${c.name}@${cookieSite(c)}`))].sort()

/**
 * The sites of localStorage origins, sorted and de-duplicated — never the items.
 *
 * @example
 * originSites([{ origin: 'https://a.shop.example', localStorage: [{ name: 'k', value: 'v' }] }]) // ['shop.example']
 */
export const originSites = (origins: ReadonlyArray<Pick<OriginStorage, 'origin'>>): ReadonlyArray<string> =>
  [...new Set(origins.map((o) => originSite(o.origin) ?? '(no site)'))].sort()
