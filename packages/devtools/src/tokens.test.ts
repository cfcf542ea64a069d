import { describe, expect, it } from 'vitest'
import { TokenBook } from './tokens.ts'

describe('DevTools tokens', () => {
  it('are random, bound to one conversation, and revoked with it', () => {
    const tokens = new TokenBook()
    const a1 = tokens.mint('a')
    const a2 = tokens.mint('a')
    const b = tokens.mint('b')
    expect(new Set([a1, a2, b]).size).toBe(3)
    expect(a1).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(tokens.conversationOf(a1)).toBe('a')
    expect(tokens.conversationOf(b)).toBe('b')
    expect(tokens.revoke('a')).toBe(2)
    expect(tokens.conversationOf(a1)).toBeUndefined()
    expect(tokens.conversationOf(a2)).toBeUndefined()
    expect(tokens.conversationOf(b)).toBe('b')
    expect(tokens.conversationOf('../../etc')).toBeUndefined()
    tokens.clear()
    expect(tokens.conversationOf(b)).toBeUndefined()
  })
})
