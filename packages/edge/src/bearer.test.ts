import { describe, expect, it } from 'vitest'
import { bearerOf, checkBearer, digestOf, sameSecret } from './bearer.ts'

const expected = digestOf('s3cret-token')

describe('bearer tokens', () => {
  it('reads the Bearer scheme in any case, and nothing else', () => {
    expect(bearerOf('Bearer abc.def')).toBe('abc.def')
    expect(bearerOf('bearer abc')).toBe('abc')
    expect(bearerOf('Basic Zm9v')).toBeUndefined()
    expect(bearerOf('Bearer a b')).toBeUndefined()
    expect(bearerOf(null)).toBeUndefined()
  })

  it('compares digests, so secrets of any length compare in equal time', () => {
    expect(sameSecret('s3cret-token', expected)).toBe(true)
    expect(sameSecret('s3cret-toke', expected)).toBe(false)
    expect(sameSecret('', expected)).toBe(false)
  })

  it('answers a missing token and a wrong one with 401, telling them apart by reason', () => {
    expect(checkBearer(new Headers({ authorization: 'Bearer s3cret-token' }), expected)).toBeUndefined()
    expect(checkBearer(new Headers(), expected)).toMatchObject({
      _tag: 'Unauthorized',
      status: 401,
      reason: 'missing-token',
    })
    for (const authorization of ['Bearer nope', 'Basic czNjcmV0LXRva2Vu', 'Bearer']) {
      expect(checkBearer(new Headers({ authorization }), expected)).toMatchObject({ reason: 'wrong-token' })
    }
  })
})
