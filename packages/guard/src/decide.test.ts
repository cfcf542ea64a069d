import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decide, describeTarget, formatDecision } from './decide.ts'
import { cidrContains, parseIp, PRIVATE_RANGES } from './ip.ts'
import { defaultPolicy, type GuardPolicy } from './policy.ts'

const OWN = 7070
const policy = defaultPolicy([{ host: '127.0.0.1', port: OWN }])
const withPolicy = (patch: Partial<GuardPolicy>): GuardPolicy => ({ ...policy, ...patch })

describe('schemes (G2)', () => {
  it.each([
    'http://example.com/',
    'https://example.com/',
    'ws://example.com/',
    'wss://example.com/',
    'data:text/html,hi',
    'blob:https://example.com/0b1c',
    'about:blank',
    'ABOUT:BLANK',
    'about:blank#top',
  ])('allows %s', (url) => {
    expect(decide(url, policy).allow).toBe(true)
  })
  it.each([
    ['file:///etc/passwd', 'scheme'],
    ['FILE:///etc/passwd', 'scheme'],
    ['chrome://settings', 'scheme'],
    ['chrome-extension://abc/x.html', 'scheme'],
    ['devtools://devtools/bundled/inspector.html', 'scheme'],
    ['view-source:https://example.com/', 'scheme'],
    ['javascript:alert(1)', 'scheme'],
    ['about:version', 'scheme'],
    ['about:settings', 'scheme'],
    ['filesystem:https://example.com/temporary/x', 'scheme'],
    ['ftp://example.com/', 'scheme'],
    ['chrome-untrusted://x/', 'scheme'],
    ['not a url', 'invalid-url'],
    ['', 'invalid-url'],
  ])('blocks %s by rule %s', (url, rule) => {
    const d = decide(url, policy)
    expect(d).toMatchObject({ allow: false, rule })
  })
  it('honours allowedSchemes overrides', () => {
    expect(decide('ftp://example.com/', withPolicy({ allowedSchemes: ['ftp'] })).allow).toBe(true)
    expect(decide('http://example.com/', withPolicy({ allowedSchemes: ['https'] }))).toMatchObject({
      allow: false,
      rule: 'scheme',
    })
    expect(decide('about:version', withPolicy({ allowedSchemes: ['about'] })).allow).toBe(true)
    expect(decide('about:blank', withPolicy({ allowedSchemes: ['http'] })).allow).toBe(false)
  })
})

describe('loopback and own ports', () => {
  it.each([
    'http://127.0.0.1:3000/',
    'http://localhost:3000/',
    'http://LOCALHOST.:3000/',
    'http://127.8.9.10/',
    'http://[::1]:3000/',
    'http://app.localhost:3000/',
    'ws://127.0.0.1:3000/ws',
  ])('allows the local dev server %s', (url) => {
    expect(decide(url, policy)).toMatchObject({ allow: true, rule: 'loopback' })
  })
  it.each([
    `http://127.0.0.1:${OWN}/`,
    `http://localhost:${OWN}/api`,
    `ws://127.0.0.1:${OWN}/live`,
    `http://127.0.0.2:${OWN}/`,
    `http://[::1]:${OWN}/`,
    `http://[::ffff:127.0.0.1]:${OWN}/`,
    `http://2130706433:${OWN}/`,
    `http://0x7f000001:${OWN}/`,
    `http://0x7F.0.0.1:${OWN}/`,
    `http://0177.0.0.1:${OWN}/`,
    `http://127.1:${OWN}/`,
    `HTTP://LocalHost.:${OWN}/`,
    `http://0.0.0.0:${OWN}/`,
    `http://[::]:${OWN}/`,
    `http://x.localhost:${OWN}/`,
    `http://user:pw@127.0.0.1:${OWN}/`,
  ])('blocks the engine port in %s', (url) => {
    expect(decide(url, policy)).toMatchObject({ allow: false, rule: 'own-port' })
  })
  it('blocks own ports given as default ports too', () => {
    const p = defaultPolicy([{ port: 80 }])
    expect(decide('http://localhost/', p).rule).toBe('own-port')
    expect(decide('https://localhost/', p).rule).toBe('loopback')
  })
  it('does not treat a public host on an own port as own', () => {
    expect(decide(`http://example.com:${OWN}/`, policy)).toMatchObject({ allow: true, rule: 'public' })
  })
  it('can forbid loopback altogether', () => {
    expect(decide('http://127.0.0.1:3000/', withPolicy({ allowLoopback: false }))).toMatchObject({
      allow: false,
      rule: 'loopback',
    })
  })
})

describe('private ranges', () => {
  it.each([
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://172.31.255.255/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://[::ffff:10.0.0.1]/',
    'http://167772161/',
    'http://0xa.0.0.1/',
    'wss://192.168.0.10/socket',
  ])('blocks %s', (url) => {
    expect(decide(url, policy)).toMatchObject({ allow: false, rule: 'private' })
  })
  it.each([
    'http://172.15.255.255/',
    'http://172.32.0.1/',
    'http://100.128.0.1/',
    'http://8.8.8.8/',
    'http://[2001:db8::1]/',
  ])('leaves %s public', (url) => {
    expect(decide(url, policy)).toMatchObject({ allow: true, rule: 'public' })
  })
  it('allows ranges listed in allowPrivate, and only those', () => {
    const p = withPolicy({ allowPrivate: ['192.168.1.0/24', 'fd00::/8'] })
    expect(decide('http://192.168.1.20/', p)).toMatchObject({ allow: true, rule: 'private-allowed' })
    expect(decide('http://[fd00::5]/', p)).toMatchObject({ allow: true, rule: 'private-allowed' })
    expect(decide('http://192.168.2.20/', p)).toMatchObject({ allow: false, rule: 'private' })
  })
  it('keeps own ports blocked even when 0.0.0.0 is allowed', () => {
    expect(decide(`http://0.0.0.0:${OWN}/`, withPolicy({ allowPrivate: ['0.0.0.0/8'] })).rule).toBe('own-port')
  })
})

describe("the machine's own addresses (G2)", () => {
  const machine = withPolicy({ ownAddresses: ['192.0.2.2', 'fd00::2', 'fe80::fc:ff:fe00:1', '::ffff:198.51.100.9'] })
  it.each([
    'http://192.0.2.2:8080/',
    'http://3221225986:8080/',
    'http://0xc0.0.2.2:8080/',
    'http://192.0.2.2./',
    'http://[::ffff:192.0.2.2]:8080/',
    'http://[::ffff:c000:202]/',
    'https://[fd00::2]/',
    'ws://[fe80::fc:ff:fe00:1]:9/',
    'http://198.51.100.9/',
  ])('blocks %s by rule own-address, whatever its spelling', (url) => {
    expect(decide(url, machine)).toMatchObject({ allow: false, rule: 'own-address' })
  })
  it('names the address in the detail, and wins over an allowed private range', () => {
    expect(decide('http://192.0.2.2:8080/x?secret=1', machine).detail).toBe(
      "http://192.0.2.2:8080: 192.0.2.2 is an address of this machine's own interfaces",
    )
    const lab = { ...machine, ownAddresses: ['192.168.1.5'], allowPrivate: ['192.168.1.0/24'] }
    expect(decide('http://192.168.1.5/', lab).rule).toBe('own-address')
    expect(decide('http://192.168.1.6/', lab).rule).toBe('private-allowed')
  })
  it('leaves loopback to its own rules, and other public addresses public', () => {
    const withLoopback = { ...machine, ownAddresses: ['127.0.0.1', '192.0.2.2'] }
    expect(decide('http://127.0.0.1:3000/', withLoopback).rule).toBe('loopback')
    expect(decide('http://127.0.0.1:7070/', withLoopback).rule).toBe('own-port')
    expect(decide('http://192.0.2.3/', machine).rule).toBe('public')
    expect(decide('http://192.0.2.2/', policy).rule).toBe('public')
  })
  it('reads a changed list: a list is compiled by itself, not with the policy', () => {
    let list: ReadonlyArray<string> = []
    const live = { ...policy }
    Object.defineProperty(live, 'ownAddresses', { get: () => list })
    expect(decide('http://192.0.2.77/', live).rule).toBe('public')
    list = ['192.0.2.77']
    expect(decide('http://192.0.2.77/', live).rule).toBe('own-address')
  })
})

describe('blocked hosts', () => {
  const p = withPolicy({ blockedHosts: ['tracker.example', '*.ads.example', '10.9.9.9', 'BÜCHER.example'] })
  it.each([
    'https://tracker.example/',
    'https://TRACKER.EXAMPLE./x',
    'https://ads.example/',
    'https://x.y.ads.example/',
    'wss://a.ads.example/ws',
    'https://xn--bcher-kva.example/',
    'https://bücher.example/',
  ])('blocks %s', (url) => {
    expect(decide(url, p)).toMatchObject({ allow: false, rule: 'blocked-host' })
  })
  it.each(['https://nottracker.example/', 'https://sub.tracker.example/', 'https://badads.example/'])(
    'does not block %s',
    (url) => {
      expect(decide(url, p).allow).toBe(true)
    },
  )
})

describe('explainability without secrets (L7)', () => {
  it('describes targets by scheme, host and port only', () => {
    expect(describeTarget('https://u:p@shop.example/cart?token=1#x')).toBe('https://shop.example:443')
    expect(describeTarget('data:text/html,<secret>')).toBe('data:')
    expect(describeTarget('blob:https://a.example/uuid')).toBe('blob:https://a.example')
    expect(describeTarget('about:blank?x')).toBe('about:blank')
    expect(describeTarget('%%')).toBe('(invalid url)')
  })
  it('never puts a path, query, fragment or user info into a detail or log line', () => {
    const token = fc.stringMatching(/^[A-Za-z0-9]{12,20}$/).map((s) => `S3CR3T${s}`)
    const host = fc.constantFrom(
      'example.com',
      '10.0.0.1',
      '127.0.0.1:7070',
      'localhost:3000',
      '[fd00::1]',
      'tracker.example',
    )
    const scheme = fc.constantFrom('http', 'https', 'ws', 'wss', 'file', 'chrome', 'ftp')
    fc.assert(
      fc.property(scheme, host, token, token, token, token, (s, h, user, path, query, frag) => {
        const url = `${s}://${user}:${user}@${h}/${path}?q=${query}#${frag}`
        const p = withPolicy({ blockedHosts: ['tracker.example'] })
        const d = decide(url, p)
        const line = formatDecision(url, d)
        return !`${d.detail} ${line}`.includes('S3CR3T')
      }),
    )
  })
  it('formats a log line with the rule', () => {
    const url = 'http://10.0.0.1/admin?token=x'
    expect(formatDecision(url, decide(url, policy))).toBe(
      'guard: blocked request http://10.0.0.1:80 rule=private (http://10.0.0.1:80: 10.0.0.1 is in private range ' +
        '10.0.0.0/8)',
    )
  })
})

describe('properties', () => {
  const inPrivate = (ip: string) => PRIVATE_RANGES.some((r) => cidrContains(r, parseIp(ip)!))
  const isLoop = (ip: string) => ip.startsWith('127.')

  it('judges every IPv4 address the same in dotted, decimal, hex and mapped-IPv6 form', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 1, max: 65535 }), (ip, port) => {
        const n = Number(parseIp(ip)!.value)
        const forms = [ip, String(n), `0x${n.toString(16).toUpperCase()}`, `[::ffff:${ip}]`, `${ip}.`]
        const rules = forms.map((f) => decide(`http://${f}:${port}/`, policy).rule)
        return rules.every((r) => r === rules[0])
      }),
    )
  })
  it('blocks a loopback address exactly on own ports, and private ranges always', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 1, max: 65535 }), (ip, port) => {
        const d = decide(`http://${ip}:${port}/`, policy)
        if (isLoop(ip)) return d.rule === (port === OWN ? 'own-port' : 'loopback')
        if (ip.startsWith('0.') && port === OWN) return d.rule === 'own-port'
        if (inPrivate(ip)) return !d.allow && d.rule === 'private'
        return d.allow && d.rule === 'public'
      }),
    )
  })
  it('is insensitive to host case and trailing dots', () => {
    const p = withPolicy({ blockedHosts: ['*.blocked.example'] })
    fc.assert(
      fc.property(fc.domain(), fc.boolean(), fc.boolean(), (domain, upper, dot) => {
        const variant = `${upper ? domain.toUpperCase() : domain}${dot ? '.' : ''}`
        return (
          decide(`https://${variant}/`, p).rule === decide(`https://${domain}/`, p).rule &&
          decide(`https://${variant}.blocked.example/`, p).rule === 'blocked-host'
        )
      }),
    )
  })
  it('always blocks what allowedSchemes leaves out', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z][a-z0-9+.-]{0,10}$/), (scheme) => {
        const d = decide(`${scheme}://example.com/x`, policy)
        return (
          ['http', 'https', 'ws', 'wss', 'data', 'blob'].includes(scheme) ||
          (!d.allow && (d.rule === 'scheme' || d.rule === 'invalid-url'))
        )
      }),
    )
  })
})
