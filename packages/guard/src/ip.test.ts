import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cidrContains, formatIp, parseCidr, parseIp, parseIpv4, parseIpv6, unmapIpv4 } from './ip.ts'

describe('parseIpv4', () => {
  it('parses dotted quads and rejects everything else', () => {
    expect(parseIpv4('127.0.0.1')?.value).toBe(2130706433n)
    expect(parseIpv4('255.255.255.255')?.value).toBe(0xffffffffn)
    for (const bad of ['256.0.0.1', '1.2.3', '1.2.3.4.5', 'a.b.c.d', '', '1..2.3'])
      expect(parseIpv4(bad)).toBeUndefined()
  })
  it('round-trips through formatIp', () => {
    fc.assert(fc.property(fc.ipV4(), (ip) => formatIp(parseIpv4(ip)!) === ip))
  })
})

describe('parseIpv6', () => {
  it('parses compressed, bracketed, zoned and dotted-tail forms', () => {
    expect(parseIpv6('::1')?.value).toBe(1n)
    expect(parseIpv6('[::1]')?.value).toBe(1n)
    expect(parseIpv6('::')?.value).toBe(0n)
    expect(parseIpv6('fe80::1%eth0')?.value).toBe((0xfe80n << 112n) | 1n)
    expect(parseIpv6('::ffff:127.0.0.1')).toEqual(parseIpv6('::ffff:7f00:1'))
    expect(parseIpv6('1:2:3:4:5:6:7:8')?.value).toBe(0x00010002000300040005000600070008n)
  })
  it('rejects malformed input', () => {
    for (const bad of [
      '1:2:3:4:5:6:7:8:9',
      '1::2::3',
      ':::',
      '12345::',
      'g::1',
      '1.2.3.4',
      '::1.2.3',
      '1:2:3:4:5:6:7',
    ]) {
      expect(parseIpv6(bad), bad).toBeUndefined()
    }
  })
  it('agrees with the WHATWG URL parser on every address', () => {
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        const canonical = new URL(`http://[${ip}]/`).hostname.slice(1, -1)
        return parseIpv6(ip)!.value === parseIpv6(canonical)!.value && formatIp(parseIpv6(ip)!) === canonical
      }),
    )
  })
})

describe('unmapIpv4', () => {
  it('unmaps ::ffff:a.b.c.d only', () => {
    expect(unmapIpv4(parseIp('::ffff:7f00:1')!)).toEqual(parseIp('127.0.0.1'))
    expect(unmapIpv4(parseIp('::7f00:1')!)).toBeUndefined()
    expect(unmapIpv4(parseIp('127.0.0.1')!)).toBeUndefined()
  })
})

describe('CIDR', () => {
  it('parses and canonicalises ranges', () => {
    expect(parseCidr('192.168.1.7/16')?.text).toBe('192.168.0.0/16')
    expect(parseCidr('10.0.0.1')?.text).toBe('10.0.0.1/32')
    expect(parseCidr('fd00::1/8')?.text).toBe('fd00::/8')
    for (const bad of ['10.0.0.0/33', '::/129', 'x/8', '10.0.0.0/', '10.0.0.0/-1'])
      expect(parseCidr(bad), bad).toBeUndefined()
  })
  it('contains exactly the addresses sharing the prefix', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.ipV4(), fc.integer({ min: 0, max: 32 }), (a, b, prefix) => {
        const range = parseCidr(`${a}/${prefix}`)!
        const x = parseIp(a)!.value
        const y = parseIp(b)!.value
        const shift = BigInt(32 - prefix)
        return cidrContains(range, parseIp(b)!) === (x >> shift === y >> shift)
      }),
    )
  })
  it('never matches across families', () => {
    expect(cidrContains(parseCidr('0.0.0.0/0')!, parseIp('::1')!)).toBe(false)
  })
})
