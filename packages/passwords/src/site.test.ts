import { describe, expect, it } from 'vitest'
import { pageSite, parseSite, siteAllows } from './site.ts'

describe('an entry site (W2)', () => {
  it('a host is its registrable domain, a URL its exact origin', () => {
    expect(parseSite('www.Shop.example')).toEqual({ kind: 'domain', domain: 'shop.example' })
    expect(parseSite('alice.github.io')).toEqual({ kind: 'domain', domain: 'alice.github.io' })
    expect(parseSite('https://login.shop.example/x?y')).toEqual({
      kind: 'origin',
      origin: 'https://login.shop.example',
    })
    for (const bad of ['', 'shop.example/login', 'ann@shop.example', 'ftp://shop.example', 'shop example', 'a:1'])
      expect(parseSite(bad), bad).toBeUndefined()
  })

  it('a look-alike is not the site: a longer name ending in another registrable domain, a sibling, a scheme', () => {
    const shop = parseSite('shop.example')!
    expect(siteAllows(shop, 'https://shop.example/login')).toBe(true)
    expect(siteAllows(shop, 'http://a.shop.example:8080/')).toBe(true)
    expect(siteAllows(shop, 'https://shop.example.evil.test/')).toBe(false)
    expect(siteAllows(shop, 'https://shop-example.test/')).toBe(false)
    expect(siteAllows(shop, 'https://example/')).toBe(false)
    expect(siteAllows(shop, 'ws://shop.example/')).toBe(false)
    expect(siteAllows(shop, 'not a url')).toBe(false)
    const alice = parseSite('alice.github.io')!
    expect(siteAllows(alice, 'https://bob.github.io/')).toBe(false)
    const origin = parseSite('https://login.shop.example')!
    expect(siteAllows(origin, 'https://login.shop.example/x')).toBe(true)
    expect(siteAllows(origin, 'http://login.shop.example/x')).toBe(false)
    expect(siteAllows(origin, 'https://shop.example/')).toBe(false)
  })

  it('a refusal names the page by its site, never its path or query', () => {
    expect(pageSite('https://shop.example.evil.test/login?token=abc')).toBe('evil.test')
  })
})
