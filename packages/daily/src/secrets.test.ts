import { describe, expect, it } from 'vitest'
import { codeAlphabet, digest, fenceOf, findByDigest, newPairingCode, newToken, normalizeCode } from './secrets.ts'

describe('pairing codes and tokens (D1, D2)', () => {
  it('codes are 12 symbols of Crockford base32, grouped, and all different', () => {
    const codes = new Set(Array.from({ length: 2_000 }, newPairingCode))
    expect(codes.size).toBe(2_000)
    for (const code of codes) expect(code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/)
    // Every symbol shows up: the generator is not stuck on part of the alphabet.
    const seen = new Set([...codes].join('').replaceAll('-', ''))
    expect([...seen].sort().join('')).toBe([...codeAlphabet].sort().join(''))
  })

  it('normalizes what a person types, and rejects what cannot be a code', () => {
    expect(normalizeCode(' 7kq2-m9xd 4trb ')).toBe('7KQ2M9XD4TRB')
    expect(normalizeCode('OIL0-0000-0000')).toBe('0110' + '00000000')
    expect(normalizeCode('7KQ2-M9XD-4TR')).toBeUndefined()
    expect(normalizeCode('7KQ2-M9XD-4TRU')).toBeUndefined()
    expect(normalizeCode('x'.repeat(1000))).toBeUndefined()
  })

  it('tokens are 256 random bits, base64url', () => {
    const a = newToken()
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(newToken()).not.toBe(a)
  })

  it('finds by digest, comparing every candidate', () => {
    const items = [{ d: digest('a') }, { d: null }, { d: digest('b') }]
    expect(findByDigest(items, (i) => i.d, digest('b'))).toBe(items[2])
    expect(findByDigest(items, (i) => i.d, digest('c'))).toBeUndefined()
    let compared = 0
    findByDigest(items, (i) => (compared++, i.d), digest('a'))
    expect(compared).toBe(3)
  })

  it('fences differ by URL and by document id, and do not contain either', () => {
    const f = fenceOf('https://mail.example/inbox?t=secret', 'DOC-1')
    expect(f).not.toBe(fenceOf('https://mail.example/inbox?t=secret', 'DOC-2'))
    expect(f).not.toBe(fenceOf('https://mail.example/inbox?t=secret#x', 'DOC-1'))
    expect(f).not.toContain('secret')
    expect(fenceOf('https://mail.example/inbox?t=secret', 'DOC-1')).toBe(f)
  })
})
