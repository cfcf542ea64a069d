import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decide } from './decide.ts'
import { interceptPatterns, matchesPattern } from './patterns.ts'
import { defaultPolicy, type GuardPolicy } from './policy.ts'

const base = defaultPolicy([{ host: '127.0.0.1', port: 7070 }])
const policies: Record<string, GuardPolicy> = {
  default: base,
  'default ports are own': defaultPolicy([{ port: 80 }, { port: 443 }]),
  'no loopback': { ...base, allowLoopback: false },
  'https only': { ...base, allowedSchemes: ['https', 'about:blank'] },
  'blocked hosts': {
    ...base,
    blockedHosts: ['tracker.example', '*.ads.example', '2130706433', '8.8.8.8', 'BÜCHER.example'],
  },
  'private allowed': { ...base, allowPrivate: ['10.0.0.0/8'] },
  // G2: the machine's own addresses, IPv4 and IPv6, in every spelling the generator makes.
  'own addresses': { ...base, ownAddresses: ['192.0.2.2', '198.51.100.7', 'fd00::2', '2001:db8::7'] },
}

const covered = (url: string, patterns: ReadonlyArray<string>) => patterns.some((p) => matchesPattern(url, p))

describe('matchesPattern', () => {
  it('matches the whole URL with * and ? and escapes', () => {
    expect(matchesPattern('http://10.0.0.1/', '*://10.*')).toBe(true)
    expect(matchesPattern('http://110.0.0.1/', '*://10.*')).toBe(false)
    expect(matchesPattern('http://a/b', 'http://?/b')).toBe(true)
    expect(matchesPattern('http://a/*', 'http://a/\\*')).toBe(true)
    expect(matchesPattern('http://a/x', 'http://a/\\*')).toBe(false)
  })
})

describe('interceptPatterns', () => {
  it('leaves public hosts and local dev servers unpaused by default', () => {
    const patterns = interceptPatterns(base)
    for (const url of [
      'https://example.com/',
      'http://127.0.0.1:3000/',
      'http://localhost:5173/app',
      'https://10x.example/',
    ]) {
      expect(covered(url, patterns), url).toBe(false)
    }
    for (const url of ['http://127.0.0.1:7070/', 'http://10.0.0.1/', 'http://[::1]:3000/', 'http://localhost:7070/x']) {
      expect(covered(url, patterns), url).toBe(true)
    }
  })
  it('pauses everything when a blocked host cannot be said as a pattern', () => {
    expect(interceptPatterns({ ...base, blockedHosts: ['a*b.example'] })).toEqual(['*'])
  })

  const host = fc.oneof(
    fc.domain(),
    fc.ipV4(),
    fc.ipV4().map((ip) => String(ip.split('.').reduce((n, o) => n * 256 + Number(o), 0))),
    fc.ipV6().map((ip) => `[${ip}]`),
    fc.ipV4().map((ip) => `[::ffff:${ip}]`),
    fc.constantFrom(
      'localhost',
      'LOCALHOST.',
      'app.localhost',
      'tracker.example',
      'TRACKER.EXAMPLE.',
      'ads.example',
      'x.ads.example.',
      'bücher.example',
      'xn--bcher-kva.example',
      '127.0.0.1',
      '0.0.0.0',
      '[::]',
      '[::1]',
      '0x7f.1',
      '192.0.2.2',
      '3221225986',
      '[::ffff:192.0.2.2]',
      '198.51.100.7',
      '[2001:db8::7]',
      '[fd00::2]',
    ),
  )
  const url = fc
    .record({
      scheme: fc.constantFrom('http', 'https', 'HTTP'),
      user: fc.option(fc.constantFrom('u', 'u:p', 'a@b'), { nil: undefined }),
      host,
      port: fc.option(fc.oneof(fc.constantFrom(80, 443, 7070), fc.integer({ min: 1, max: 65535 })), { nil: undefined }),
      path: fc.webPath(),
      query: fc.option(fc.webQueryParameters(), { nil: undefined }),
    })
    .map(
      ({ scheme, user, host, port, path, query }) =>
        `${scheme}://${user ? `${user}@` : ''}${host}${port !== undefined ? `:${port}` : ''}` +
        `${path || '/'}${query ? `?${query}` : ''}`,
    )

  for (const [name, policy] of Object.entries(policies)) {
    it(`covers every http(s) URL that decide blocks (${name})`, () => {
      const patterns = interceptPatterns(policy)
      fc.assert(
        fc.property(url, (raw) => {
          let href: string
          try {
            href = new URL(raw).href // the canonical form Chromium puts on a request
          } catch {
            return true
          }
          return decide(href, policy).allow || covered(href, patterns)
        }),
        { numRuns: 3000 },
      )
    })
  }
})
