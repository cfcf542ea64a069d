import { Either } from 'effect'
import * as fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { conversationIdOf, parseSessionKey, sessionKeyOf } from './sessionKey.ts'

const ALLOWED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-'

describe('the session key contract (B1)', () => {
  it('accepts exactly 1–128 characters of A–Z a–z 0–9 . _ : -', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...ALLOWED), minLength: 1, maxLength: 128 }), (key) => {
        expect(Either.isRight(parseSessionKey(key))).toBe(true)
      }),
    )
  })

  it('refuses any string with another character, and says why', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 128 }).filter((s) => [...s].some((c) => !ALLOWED.includes(c))),
        (key) => {
          const result = parseSessionKey(key)
          expect(Either.isLeft(result) && result.left.reason).toBe('bad-character')
        },
      ),
    )
  })

  it('tells missing, empty and too long apart', () => {
    expect(Either.flip(parseSessionKey(undefined)).pipe(Either.getOrThrow).reason).toBe('missing')
    expect(Either.flip(parseSessionKey(null)).pipe(Either.getOrThrow).reason).toBe('missing')
    expect(Either.flip(parseSessionKey('')).pipe(Either.getOrThrow).reason).toBe('empty')
    expect(Either.flip(parseSessionKey('a'.repeat(129))).pipe(Either.getOrThrow).reason).toBe('too-long')
    expect(Either.flip(parseSessionKey('a'.repeat(129))).pipe(Either.getOrThrow).status).toBe(400)
  })

  it('maps a key to its conversation id and back', () => {
    const key = Either.getOrThrow(parseSessionKey('agent-7:a'))
    expect(conversationIdOf(key)).toBe('session:agent-7:a')
    expect(sessionKeyOf(conversationIdOf(key))).toBe('agent-7:a')
    expect(sessionKeyOf('chat:c1')).toBeUndefined()
  })
})
