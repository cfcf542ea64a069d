import { cookie } from '@errands/runtime'
import { describe, expect, it } from 'vitest'
import { cookieNames, originSites, redactedCookieList } from './redact.ts'
import { cookieSite, originSite, siteOf, siteSet } from './sites.ts'

describe('siteOf (SPEC Concepts "Site")', () => {
  it.each([
    ['shop.example', 'shop.example'],
    ['.shop.example', 'shop.example'],
    ['a.shop.example', 'shop.example'],
    ['..A.Shop.Example.', 'shop.example'],
    ['www.b.a.shop.example', 'shop.example'],
    ['alice.github.io', 'alice.github.io'],
    ['.alice.github.io', 'alice.github.io'],
    ['x.alice.github.io', 'alice.github.io'],
    ['bob.github.io', 'bob.github.io'],
    ['github.io', 'github.io'],
    ['www.github.io', 'www.github.io'],
    ['a.b.co.uk', 'b.co.uk'],
    ['co.uk', 'co.uk'],
    ['127.0.0.1', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['localhost', 'localhost'],
    ['LOCALHOST', 'localhost'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['', ''],
  ])('siteOf(%j) is %j', (host, site) => {
    expect(siteOf(host)).toBe(site)
  })

  it('is idempotent', () => {
    for (const h of [
      'a.shop.example',
      '.alice.github.io',
      '127.0.0.2',
      '::1',
      'localhost',
      'x.y.co.uk',
      'bücher.example',
      'not a host',
    ]) {
      expect(siteOf(siteOf(h))).toBe(siteOf(h))
    }
  })

  it('never turns a URL-ish string into another host', () => {
    expect(siteOf('evil.example/@shop.example')).not.toBe('shop.example')
    expect(siteOf('user@shop.example')).not.toBe('shop.example')
  })

  it('gives cookies and origins the same site as their hosts', () => {
    expect(cookieSite(cookie('sid', 'v', '.a.shop.example'))).toBe('shop.example')
    expect(cookieSite(cookie('sid', 'v', 'alice.github.io'))).toBe('alice.github.io')
    expect(originSite('https://a.shop.example')).toBe('shop.example')
    expect(originSite('http://bob.github.io:8080')).toBe('bob.github.io')
    expect(originSite('http://[::1]:3000')).toBe('::1')
    expect(originSite('http://127.0.0.1:3000')).toBe('127.0.0.1')
    expect(originSite('null')).toBeUndefined()
    expect(originSite('file:///etc')).toBeUndefined()
  })

  it('builds site sets from hosts', () => {
    expect([...siteSet(['www.shop.example', 'shop.example', '', 'alice.github.io'])].sort()).toEqual([
      'alice.github.io',
      'shop.example',
    ])
  })
})

describe('redaction (L7)', () => {
  const jar = [
    cookie('sid', 's3cr3t-value', '.a.shop.example'),
    cookie('theme', 'dark-value', 'shop.example'),
    cookie('sid', 'other', 'shop.example', { path: '/x' }),
  ]

  it('names cookies and sites, never values', () => {
    const line = redactedCookieList(jar)
    expect(line).toBe('sid@shop.example, theme@shop.example')
    expect(line).not.toContain('s3cr3t')
    expect(line).not.toContain('dark-value')
    expect(redactedCookieList([])).toBe('(none)')
    expect(cookieNames(jar)).toEqual(['sid@shop.example', 'theme@shop.example'])
    expect(originSites([{ origin: 'https://a.shop.example' }, { origin: 'null' }])).toEqual([
      '(no site)',
      'shop.example',
    ])
  })
})
