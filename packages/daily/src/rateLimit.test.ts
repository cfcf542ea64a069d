import { describe, expect, it } from 'vitest'
import { FailureLimiter } from './rateLimit.ts'

describe('FailureLimiter', () => {
  it('limits one peer after N failures in the window, until the oldest leaves it', () => {
    const l = new FailureLimiter({ perPeer: 3, global: 100, windowMs: 60_000 })
    for (const t of [0, 10_000, 20_000]) {
      expect(l.retryAfterMs('p', t)).toBe(0)
      l.failed('p', t)
    }
    expect(l.retryAfterMs('p', 30_000)).toBe(30_000)
    expect(l.retryAfterMs('q', 30_000)).toBe(0)
    expect(l.retryAfterMs('p', 59_999)).toBe(1)
    expect(l.retryAfterMs('p', 60_000)).toBe(0)
  })

  it(
    'after the global number of failures, limits every source that failed — never a source without a failure ' + '(D1)',
    () => {
      const l = new FailureLimiter({ perPeer: 100, global: 4, windowMs: 1_000 })
      for (let i = 0; i < 4; i++) l.failed(`peer-${i}`, i)
      expect(l.retryAfterMs('peer-0', 10)).toBe(1_000 - 10)
      expect(l.retryAfterMs('someone-new', 10)).toBe(0)
      expect(l.retryAfterMs('peer-0', 1_000)).toBe(0)
    },
  )
})
