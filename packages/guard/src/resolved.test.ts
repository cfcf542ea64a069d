import { describe, expect, it } from 'vitest'
import { defaultPolicy } from './policy.ts'
import { canonicalAddress, decideResolved, describeConnection } from './resolved.ts'

const OWN = 7070
const policy = defaultPolicy([{ host: '127.0.0.1', port: OWN }])
const target = (host: string, addresses: ReadonlyArray<string>, port = OWN, scheme = 'connect') => ({
  scheme,
  host,
  port,
  addresses,
})

describe('decideResolved: the engine port on every spelling and every resolution (G2, G3)', () => {
  // Hosts as a page may write them, and as Chromium hands them to a proxy (canonicalised).
  it.each([
    ['127.0.0.1', ['127.0.0.1']],
    ['127.1', ['127.0.0.1']],
    ['0x7f000001', ['127.0.0.1']],
    ['2130706433', ['127.0.0.1']],
    ['[::ffff:127.0.0.1]', ['127.0.0.1']],
    ['::ffff:7f00:1', ['::ffff:7f00:1']],
    ['0.0.0.0', ['0.0.0.0']],
    ['[::]', ['::']],
    ['::1', ['::1']],
    ['localhost.', ['127.0.0.1']],
    ['LOCALHOST', ['::1', '127.0.0.1']],
    ['127.0.0.2', ['127.0.0.2']],
  ])('%s resolved to %j is refused by own-port', (host, addresses) => {
    expect(decideResolved(target(host, addresses), policy)).toMatchObject({ allow: false, rule: 'own-port' })
  })

  it.each([
    ['vm', ['127.0.0.1']],
    ['runsc', ['127.0.0.1']],
    ['rebind.example', ['127.0.0.1']],
    ['rebind.example', ['::ffff:127.0.0.1']],
    ['rebind.example', ['0.0.0.0']],
    ['rebind.example', ['::']],
    ['rebind.example', ['203.0.113.7', '127.0.0.1']],
  ])('a name (%s) that resolves to %j is refused like its address', (host, addresses) => {
    const d = decideResolved(target(host, addresses, OWN, 'http'), policy)
    expect(d).toMatchObject({ allow: false, rule: 'own-port' })
    expect(d.detail).toMatch(new RegExp(`^http://${host.replace('.', '\\.')}:${OWN} resolves to `))
  })

  it.each([
    ['intranet.example', ['10.0.0.1']],
    ['intranet.example', ['172.16.4.4']],
    ['intranet.example', ['192.168.1.1']],
    ['intranet.example', ['169.254.169.254']],
    ['intranet.example', ['fd00::1']],
    ['intranet.example', ['::ffff:10.0.0.1']],
    ['10.0.0.1', ['10.0.0.1']],
    ['shop.example', ['203.0.113.7', '192.168.0.9']],
  ])('%s resolved to %j is refused as private', (host, addresses) => {
    expect(decideResolved(target(host, addresses, 443), policy)).toMatchObject({ allow: false, rule: 'private' })
  })

  it("allows a public name, and loopback on a port not the engine's", () => {
    expect(decideResolved(target('shop.example', ['203.0.113.7', '2001:db8::1'], 443), policy)).toMatchObject({
      allow: true,
      rule: 'public',
    })
    expect(decideResolved(target('vm', ['127.0.0.1'], 3000), policy)).toMatchObject({ allow: true, rule: 'loopback' })
  })

  it('judges the name first (blocked hosts), and refuses a name with no address or a bad answer', () => {
    const blocking = { ...policy, blockedHosts: ['*.ads.example'] }
    expect(decideResolved(target('x.ads.example', ['203.0.113.7'], 443), blocking)).toMatchObject({
      allow: false,
      rule: 'blocked-host',
    })
    expect(decideResolved(target('nowhere.example', [], 443), policy)).toMatchObject({
      allow: false,
      rule: 'invalid-url',
    })
    expect(decideResolved(target('odd.example', ['not-an-ip'], 443), policy)).toMatchObject({
      allow: false,
      rule: 'invalid-url',
    })
  })

  it('lets allowPrivate open a range, and blocks loopback when the policy says so', () => {
    expect(
      decideResolved(target('lab.example', ['192.168.1.5'], 80), { ...policy, allowPrivate: ['192.168.1.0/24'] }),
    ).toMatchObject({ allow: true, rule: 'private-allowed' })
    expect(decideResolved(target('vm', ['127.0.0.1'], 3000), { ...policy, allowLoopback: false })).toMatchObject({
      allow: false,
      rule: 'loopback',
    })
  })

  it('describes a connection by scheme, host and port only (L7)', () => {
    expect(describeConnection({ scheme: 'connect', host: '::1', port: 443 })).toBe('connect://[::1]:443')
    expect(describeConnection({ scheme: 'http', host: 'Shop.Example.', port: 80 })).toBe('http://shop.example:80')
    expect(canonicalAddress('::ffff:7f00:1')).toBe('127.0.0.1')
    expect(canonicalAddress('0:0:0:0:0:0:0:1')).toBe('::1')
  })
})
