/**
 * Cutting a storage state by site: what a new errand is seeded with (L1), what Allow lends (L2)
 * and what a revocation keeps (L5). Pure functions over the runtime's `StorageState`, which has
 * cookies and localStorage only — no IndexedDB, no passkeys (L4) — and these functions never add
 * anything else: every item they return is an item of their input.
 *
 * @example
 * const lent = storageForSites(mainState, new Set(['shop.example']))
 * const kept = storageWithoutSites(errandState, new Set(['shop.example']))
 */
import type { Cookie, OriginStorage, StorageState } from '@errands/runtime'
import { cookieSite, originSite } from './sites.ts'

/** Whether a cookie's site is one of `sites`. */
const cookieIn =
  (sites: ReadonlySet<string>) =>
  (c: Cookie): boolean =>
    sites.has(cookieSite(c))

/** Whether an origin's site is one of `sites` (an origin with no site is in no set). */
const originIn =
  (sites: ReadonlySet<string>) =>
  (o: OriginStorage): boolean => {
    const site = originSite(o.origin)
    return site !== undefined && sites.has(site)
  }

/**
 * Exactly the cookies and localStorage origins of `state` whose site (by {@link cookieSite} /
 * {@link originSite}) is in `sites`, and nothing else. `sites` must hold sites (outputs of
 * `siteOf`, e.g. from `siteSet`): a host such as `www.shop.example` matches nothing.
 *
 * @example
 * storageForSites(main, new Set(['shop.example'])) // cookies of .shop.example, a.shop.example; origin
 * https://shop.example
 */
export const storageForSites = (state: StorageState, sites: ReadonlySet<string>): StorageState => ({
  cookies: state.cookies.filter(cookieIn(sites)),
  origins: state.origins.filter(originIn(sites)),
})

/**
 * The complement of {@link storageForSites}: everything of `state` except the items of `sites`
 * (what a parked errand keeps when those sites are revoked). An origin with no site is kept.
 *
 * @example
 * storageWithoutSites(record.snapshot.storage, new Set(['shop.example']))
 */
export const storageWithoutSites = (state: StorageState, sites: ReadonlySet<string>): StorageState => {
  const inCookie = cookieIn(sites)
  const inOrigin = originIn(sites)
  return {
    cookies: state.cookies.filter((c) => !inCookie(c)),
    origins: state.origins.filter((o) => !inOrigin(o)),
  }
}

/**
 * A predicate for `Runtime.removeCookies` that accepts the cookies of `sites`.
 *
 * @example
 * yield* runtime.removeCookies(contextId, cookiesOf(new Set(['shop.example'])))
 */
export const cookiesOf = (sites: ReadonlySet<string>): ((c: Cookie) => boolean) => cookieIn(sites)

/**
 * A predicate for `Runtime.clearOrigins` that accepts the origins of `sites`.
 *
 * @example
 * yield* runtime.clearOrigins(contextId, originsOf(new Set(['shop.example'])))
 */
export const originsOf = (sites: ReadonlySet<string>): ((origin: string) => boolean) => {
  const inOrigin = originIn(sites)
  return (origin) => inOrigin({ origin, localStorage: [] })
}
