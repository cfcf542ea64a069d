/**
 * What a context's reopened tabs changed in its storage, against the storage it was reopened
 * with.
 *
 * Reopening a parked or healed errand loads each tab's URL again, as a browser's session restore
 * does, and a page whose load writes state writes it again: a tab left on `/signin?v=old` sets
 * the old sign-in cookie back over a newer one, a page whose script stores a value stores its old
 * value. Those writes are the runtime's own doing, not the errand's, so once the tabs have loaded
 * the runtime puts back what the record held (E4, C2: it comes back as it was). Found by the soak
 * (issue #15: an acknowledged park that came back with one or two keys older).
 *
 * @example
 * const drift = storageDrift(sealed, await readStorage(context, pending), Date.now() / 1000)
 * if (!drift.clean) { … }
 */
import type { Cookie, OriginStorage, StorageState } from '@errands/runtime'

/** The cookies and origins to put back. */
export interface StorageDrift {
  /** The record's cookies that are missing now or hold another value or other flags. */
  readonly cookiesToAdd: ReadonlyArray<Cookie>
  /** Cookies there now that the record did not hold. */
  readonly cookiesToRemove: ReadonlyArray<Cookie>
  /** Origins whose localStorage differs from the record's, with the record's items (empty: clear it). */
  readonly originsToReset: ReadonlyArray<OriginStorage>
  readonly clean: boolean
}

const cookieKey = (c: Cookie) => `${c.name}\u0000${c.domain}\u0000${c.path}`

// Expiry is left out: a reload that sets the same value again with a later expiry changes
// nothing the errand relies on, and Chromium rounds expiries anyway.
const sameCookie = (a: Cookie, b: Cookie) =>
  a.value === b.value && a.httpOnly === b.httpOnly && a.secure === b.secure && a.sameSite === b.sameSite

const itemsOf = (o: OriginStorage | undefined) =>
  JSON.stringify([...(o?.localStorage ?? [])].map((i) => [i.name, i.value]).sort())

/**
 * Compares the live storage with the record's.
 *
 * @example
 * storageDrift({ cookies: [sid('new')], origins: [] }, { cookies: [sid('old')], origins: [] }, Date.now() /
 * 1000).cookiesToAdd // [sid('new')]
 */
export const storageDrift = (sealed: StorageState, live: StorageState, nowSeconds: number): StorageDrift => {
  // A cookie of the record that has expired since is not wanted back (Chromium would refuse it).
  const wanted = sealed.cookies.filter((c) => !(c.expires > 0 && c.expires <= nowSeconds))
  const liveCookies = new Map(live.cookies.map((c) => [cookieKey(c), c]))
  const sealedKeys = new Set(wanted.map(cookieKey))
  const cookiesToAdd = wanted.filter((c) => {
    const now = liveCookies.get(cookieKey(c))
    return now === undefined || !sameCookie(now, c)
  })
  const cookiesToRemove = live.cookies.filter((c) => !sealedKeys.has(cookieKey(c)))
  const sealedOrigins = new Map(sealed.origins.map((o) => [o.origin, o]))
  const liveOrigins = new Map(live.origins.map((o) => [o.origin, o]))
  const originsToReset: Array<OriginStorage> = []
  for (const origin of new Set([...sealedOrigins.keys(), ...liveOrigins.keys()])) {
    const want = sealedOrigins.get(origin)
    if (itemsOf(want) !== itemsOf(liveOrigins.get(origin)))
      originsToReset.push({ origin, localStorage: want?.localStorage ?? [] })
  }
  return {
    cookiesToAdd,
    cookiesToRemove,
    originsToReset,
    clean: cookiesToAdd.length === 0 && cookiesToRemove.length === 0 && originsToReset.length === 0,
  }
}

/**
 * The page script that makes an origin's localStorage hold exactly `items`, key by key: keys
 * the record lacks are removed, keys that differ are set, and the storage never passes through
 * empty on the way. (A `clear()` then `setItem`s did: another tab's renderer of the same origin
 * could read the storage empty in between, and CI once saw a reopened errand's origin read as
 * holding nothing.) A string, not a function: no loader transform can reach what runs in the
 * page (#22).
 *
 * @example
 * await page.evaluate(putBackScript([{ name: 'basket', value: 'newer' }]))
 */
export const putBackScript = (items: OriginStorage['localStorage']): string => {
  const want = JSON.stringify(Object.fromEntries(items.map((i) => [i.name, i.value]))).replace(/</g, '\\u003c')
  return `(() => {
  const want = ${want};
  for (const key of Object.keys(localStorage)) {
    if (!Object.prototype.hasOwnProperty.call(want, key)) localStorage.removeItem(key);
  }
  for (const [key, value] of Object.entries(want)) {
    if (localStorage.getItem(key) !== value) localStorage.setItem(key, value);
  }
})()`
}
