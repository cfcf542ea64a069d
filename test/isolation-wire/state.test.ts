/**
 * Issue #9 (T5): cookies, Web Storage and the HTTP cache are apart between two errands and
 * between an errand and the person's main context — judged on the wire: the `Cookie` header the
 * fixture server receives and how many requests reach it. Mirrors Playwright's own
 * browser-context tests (browsercontext-basic / -cookies / -add-cookies: "should isolate
 * localStorage and cookies", "should isolate persistent cookies", "should isolate send cookie
 * header", session vs `expires` cookies). Every case also shows the positive: the context that
 * set a value does see it, so a broken setter cannot pass as isolation.
 */
import type { Cookie } from '@errands/runtime'
import { describe, expect, it } from 'vitest'
import { names, others, useWire, type Who } from './harness.ts'
import { HOSTS } from './server.ts'

const wire = useWire()

/** How a cookie gets into a context; `maxAge` undefined makes a session cookie. */
type Setter = (who: Who, name: string, maxAge: number | undefined) => Promise<void>

const setters: ReadonlyArray<readonly [string, Setter]> = [
  [
    'the runtime API (addCookies)',
    async (who, name, maxAge) => {
      const cookie: Cookie = {
        name,
        value: `v-${who}`,
        domain: HOSTS.shop,
        path: '/',
        expires: maxAge === undefined ? -1 : Math.floor(Date.now() / 1000) + maxAge,
        httpOnly: false,
        secure: false,
        sameSite: 'Lax',
      }
      await wire().engine.run(wire().engine.chromium.addCookies(wire().contextOf(who), [cookie]))
    },
  ],
  [
    'a Set-Cookie response header',
    async (who, name, maxAge) => {
      const lifetime = maxAge === undefined ? '' : `&maxAge=${maxAge}`
      await wire().visit(who, wire().server.url(HOSTS.shop, `/set-cookie?name=${name}&value=v-${who}${lifetime}`))
    },
  ],
  [
    'document.cookie',
    async (who, name, maxAge) => {
      const page = await wire().visit(who, wire().server.url(HOSTS.shop, '/page'))
      const line = `${name}=v-${who}; path=/${maxAge === undefined ? '' : `; max-age=${maxAge}`}`
      await page.evaluate((l) => {
        document.cookie = l
      }, line)
    },
  ],
]

describe.each(setters)('cookies set by %s', (how, set) => {
  const tag = how.replace(/\W+/g, '').slice(0, 8)
  it.each(['a', 'main'] as const)(
    'set in %s: session and max-age cookies reach the server only from that context',
    async (setter) => {
      const session = `${tag}_session_${setter}`
      const lasting = `${tag}_maxage_${setter}`
      await set(setter, session, undefined)
      await set(setter, lasting, 3600)

      // The positive: the setter's own requests carry both, and Chromium holds one of each kind.
      const own = names(await wire().cookieSeenBy(setter))
      expect(own).toContain(session)
      expect(own).toContain(lasting)
      const jar = await wire().browserContext(setter).cookies(wire().server.url(HOSTS.shop, '/'))
      expect(jar.find((c) => c.name === session)?.expires).toBe(-1)
      expect(jar.find((c) => c.name === lasting)?.expires).toBeGreaterThan(Date.now() / 1000 + 3000)

      for (const other of others(setter)) {
        const seen = names(await wire().cookieSeenBy(other))
        expect(seen, `${other} must not send ${setter}'s cookies`).not.toContain(session)
        expect(seen, `${other} must not send ${setter}'s cookies`).not.toContain(lasting)
      }
    },
  )
})

describe('Web Storage', () => {
  const origin = () => wire().server.url(HOSTS.shop, '/page')
  const read = (who: Who, kind: 'localStorage' | 'sessionStorage', key: string, fresh = false) =>
    (fresh ? wire().newTab(who, origin()) : wire().visit(who, origin())).then(async (page) => {
      const value = await page.evaluate(([k, n]) => window[k as 'localStorage'].getItem(n!), [kind, key])
      if (fresh) await page.close()
      return value
    })
  const write = async (who: Who, kind: 'localStorage' | 'sessionStorage', key: string) => {
    const page = await wire().visit(who, origin())
    await page.evaluate(([k, n, v]) => window[k as 'localStorage'].setItem(n!, v!), [kind, key, `v-${who}`])
  }

  it.each(['a', 'main'] as const)(
    'localStorage written in %s is read back there (even in a new tab) and nowhere else',
    async (writer) => {
      const key = `ls-${writer}`
      await write(writer, 'localStorage', key)
      expect(await read(writer, 'localStorage', key, true)).toBe(`v-${writer}`)
      for (const other of others(writer)) expect(await read(other, 'localStorage', key, true), other).toBeNull()
    },
  )

  // sessionStorage belongs to a tab (and is copied into a tab that tab opens), so a tab of another
  // context could only see it if tabs were shared; this checks what a person would see.
  it.each(['a', 'main'] as const)(
    'sessionStorage written in %s survives a navigation of that tab, goes with a popup it opens, and is seen nowhere ' +
      'else',
    async (writer) => {
      const key = `ss-${writer}`
      await write(writer, 'sessionStorage', key)
      const page = await wire().visit(writer, wire().server.url(HOSTS.shop, '/page?t=elsewhere'))
      expect(await read(writer, 'sessionStorage', key)).toBe(`v-${writer}`)
      const [popup] = await Promise.all([
        page.waitForEvent('popup'),
        page.evaluate(() => void window.open('/page?t=popup')),
      ])
      await popup.waitForLoadState()
      expect(await popup.evaluate((k) => sessionStorage.getItem(k), key)).toBe(`v-${writer}`)
      await popup.close()
      for (const other of others(writer)) expect(await read(other, 'sessionStorage', key), other).toBeNull()
    },
  )
})

describe('the HTTP cache', () => {
  /** Fetches `/cached?key=K` from a page of the context; returns the body (`K:<server hit number>`). */
  const load = async (who: Who, key: string) => {
    const page = await wire().visit(who, wire().server.url(HOSTS.shop, '/page?t=cache'))
    return page.evaluate((k) => fetch(`/cached?key=${k}`).then((r) => r.text()), key)
  }

  it.each(['a', 'main'] as const)(
    'a resource cached in %s is served from that cache there, and fetched again by every other context',
    async (first) => {
      const key = `res-${first}`
      expect(await load(first, key)).toBe(`${key}:1`)
      // The positive: the cache works in that context — a second load never reaches the server.
      expect(await load(first, key)).toBe(`${key}:1`)
      expect(wire().server.cacheCount(key)).toBe(1)

      let expected = 1
      for (const other of others(first)) {
        expected++
        expect(await load(other, key), `${other} must not use ${first}'s cache`).toBe(`${key}:${expected}`)
        expect(wire().server.cacheCount(key)).toBe(expected)
      }
    },
  )
})
