import { cookie, type Cookie, type OriginStorage, type StorageState } from '@errands/runtime'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cookiesOf, originsOf, storageForSites, storageWithoutSites } from './filter.ts'
import { cookieSite, originSite, siteOf } from './sites.ts'

/** Replays a failure with FC_SEED / FC_PATH, as the supervisor's properties do. */
const runs = (numRuns: number) => ({
  numRuns,
  ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH } : {}),
})

// A host built from labels over a suffix, with the site it must have (an independent model of
// the Public Suffix List for these suffixes: `example`/`test` are not listed, so the default rule
// makes the last label the suffix; `co.uk` is ICANN; `github.io` is a private suffix).
const suffixes = ['example', 'test', 'co.uk', 'github.io'] as const
const label = fc.constantFrom('shop', 'a', 'b', 'www', 'alice', 'bob', 'x', 'login')
const named = fc
  .record({ labels: fc.array(label, { minLength: 0, maxLength: 3 }), suffix: fc.constantFrom(...suffixes) })
  .map(({ labels, suffix }) => ({
    host: [...labels, suffix].join('.'),
    site: labels.length === 0 ? suffix : `${labels[labels.length - 1]}.${suffix}`,
  }))
const literal = fc.constantFrom(
  { host: '127.0.0.1', site: '127.0.0.1' },
  { host: '127.0.0.2', site: '127.0.0.2' },
  { host: '10.1.2.3', site: '10.1.2.3' },
  { host: 'localhost', site: 'localhost' },
)
const modelHost = fc.oneof({ weight: 6, arbitrary: named }, { weight: 1, arbitrary: literal })

/** The host as a cookie domain might spell it: maybe a leading dot, maybe upper case. */
const spelled = fc.record({ h: modelHost, dot: fc.boolean(), upper: fc.boolean() }).map(({ h, dot, upper }) => ({
  domain: `${dot && !/^[\d.]+$/.test(h.host) ? '.' : ''}${upper ? h.host.toUpperCase() : h.host}`,
  host: h.host,
  site: h.site,
}))

const cookieArb: fc.Arbitrary<Cookie> = fc
  .record({
    name: fc.constantFrom('sid', 'session', 'theme', 'basket'),
    value: fc.string({ maxLength: 8 }),
    d: spelled,
    path: fc.constantFrom('/', '/x'),
  })
  .map(({ name, value, d, path }) => cookie(name, value, d.domain, { path }))

const originArb: fc.Arbitrary<OriginStorage> = fc.oneof(
  fc
    .record({
      scheme: fc.constantFrom('http', 'https'),
      h: modelHost,
      port: fc.constantFrom('', ':8080'),
      v: fc.string({ maxLength: 4 }),
    })
    .map(({ scheme, h, port, v }) => ({
      origin: `${scheme}://${h.host}${port}`,
      localStorage: [{ name: 'k', value: v }],
    })),
  fc.constant({ origin: 'null', localStorage: [{ name: 'k', value: 'opaque' }] }),
)

const jar: fc.Arbitrary<StorageState> = fc.record({
  cookies: fc.array(cookieArb, { maxLength: 25 }),
  origins: fc.array(originArb, { maxLength: 8 }),
})

/** Allow-lists: sites from the same model (so they hit often), plus a few that never do. */
const allowed: fc.Arbitrary<ReadonlySet<string>> = fc
  .array(
    fc.oneof(
      modelHost.map((h) => h.site),
      fc.constantFrom('nothing.invalid', 'github.io', 'co.uk'),
    ),
    { maxLength: 6 },
  )
  .map((sites) => new Set(sites))

const siteOfOrigin = (o: OriginStorage) => originSite(o.origin)

describe('site model', () => {
  it('siteOf agrees with an independent model of the suffix list, for every spelling', () => {
    fc.assert(
      fc.property(spelled, (d) => siteOf(d.domain) === d.site && cookieSite({ domain: d.domain }) === d.site),
      runs(500),
    )
  })

  it('siteOf is idempotent', () => {
    // '. !' was found by a random run: trimmed of its dot, it still began with a space.
    fc.assert(
      fc.property(
        fc.oneof(
          spelled.map((d) => d.domain),
          fc.string(),
        ),
        (s) => siteOf(siteOf(s)) === siteOf(s),
      ),
      {
        ...runs(500),
        examples: [['. !'], [' .a.shop.example. '], ['\t..\n']],
      },
    )
  })
})

describe('storageForSites (L1)', () => {
  it('keeps a subset of the input, in order, the very same items', () => {
    fc.assert(
      fc.property(jar, allowed, (state, sites) => {
        const out = storageForSites(state, sites)
        const isSubsequence = <T>(sub: ReadonlyArray<T>, all: ReadonlyArray<T>) => {
          let i = 0
          for (const x of all) if (i < sub.length && sub[i] === x) i++
          return i === sub.length
        }
        return isSubsequence(out.cookies, state.cookies) && isSubsequence(out.origins, state.origins)
      }),
      runs(300),
    )
  })

  it('keeps only items whose site is allowed', () => {
    fc.assert(
      fc.property(jar, allowed, (state, sites) => {
        const out = storageForSites(state, sites)
        return (
          out.cookies.every((c) => sites.has(cookieSite(c))) &&
          out.origins.every((o) => sites.has(siteOfOrigin(o) ?? '\u0000'))
        )
      }),
      runs(300),
    )
  })

  it('keeps every item whose site is allowed (exactly the allowed sites)', () => {
    fc.assert(
      fc.property(jar, allowed, (state, sites) => {
        const out = storageForSites(state, sites)
        return (
          state.cookies.filter((c) => sites.has(cookieSite(c))).every((c) => out.cookies.includes(c)) &&
          state.origins
            .filter((o) => {
              const s = siteOfOrigin(o)
              return s !== undefined && sites.has(s)
            })
            .every((o) => out.origins.includes(o))
        )
      }),
      runs(300),
    )
  })

  it('is idempotent', () => {
    fc.assert(
      fc.property(jar, allowed, (state, sites) => {
        const once = storageForSites(state, sites)
        expect(storageForSites(once, sites)).toEqual(once)
      }),
      runs(300),
    )
  })

  it('carries nothing but cookies and origins (no IndexedDB ever appears)', () => {
    fc.assert(
      fc.property(jar, allowed, (state, sites) => {
        const withExtra = { ...state, indexedDB: [{ name: 'db' }] } as StorageState
        expect(Object.keys(storageForSites(withExtra, sites)).sort()).toEqual(['cookies', 'origins'])
      }),
      runs(50),
    )
  })

  it('and storageWithoutSites partition the input', () => {
    fc.assert(
      fc.property(jar, allowed, (state, sites) => {
        const kept = storageForSites(state, sites)
        const rest = storageWithoutSites(state, sites)
        expect(kept.cookies.length + rest.cookies.length).toBe(state.cookies.length)
        expect(kept.origins.length + rest.origins.length).toBe(state.origins.length)
        expect(rest.cookies.some((c) => kept.cookies.includes(c))).toBe(false)
        expect(rest.cookies.every((c) => !sites.has(cookieSite(c)))).toBe(true)
      }),
      runs(300),
    )
  })

  it('agrees with the predicates handed to the runtime', () => {
    fc.assert(
      fc.property(jar, allowed, (state, sites) => {
        const kept = storageForSites(state, sites)
        expect(state.cookies.filter(cookiesOf(sites))).toEqual(kept.cookies)
        expect(state.origins.filter((o) => originsOf(sites)(o.origin))).toEqual(kept.origins)
      }),
      runs(200),
    )
  })
})

describe('storageForSites, by example', () => {
  const main: StorageState = {
    cookies: [
      cookie('sid', 'shop-secret', '.shop.example'),
      cookie('pref', 'a', 'a.shop.example'),
      cookie('sid', 'alice-secret', 'alice.github.io'),
      cookie('sid', 'bob-secret', 'bob.github.io'),
      cookie('gh', 'io', 'github.io'),
      cookie('local', 'l', 'localhost'),
      cookie('ip', 'i', '127.0.0.1'),
    ],
    origins: [
      { origin: 'https://a.shop.example', localStorage: [{ name: 'k', value: 'v' }] },
      { origin: 'https://alice.github.io', localStorage: [{ name: 'k', value: 'v' }] },
      { origin: 'http://localhost:3000', localStorage: [{ name: 'k', value: 'v' }] },
    ],
  }
  const names = (s: StorageState) => s.cookies.map((c) => `${c.name}@${c.domain}`)

  it('shop.example lends .shop.example and a.shop.example, nothing else', () => {
    const out = storageForSites(main, new Set(['shop.example']))
    expect(names(out)).toEqual(['sid@.shop.example', 'pref@a.shop.example'])
    expect(out.origins.map((o) => o.origin)).toEqual(['https://a.shop.example'])
  })

  it('alice.github.io is neither bob.github.io nor github.io', () => {
    expect(names(storageForSites(main, new Set(['alice.github.io'])))).toEqual(['sid@alice.github.io'])
    expect(names(storageForSites(main, new Set(['github.io'])))).toEqual(['gh@github.io'])
    expect(names(storageForSites(main, new Set(['bob.github.io'])))).toEqual(['sid@bob.github.io'])
  })

  it('localhost and IPs are their own sites', () => {
    expect(names(storageForSites(main, new Set(['localhost'])))).toEqual(['local@localhost'])
    expect(names(storageForSites(main, new Set(['127.0.0.1'])))).toEqual(['ip@127.0.0.1'])
    expect(storageForSites(main, new Set())).toEqual({ cookies: [], origins: [] })
  })
})
