import { describe, expect, it } from 'vitest'
import { inputDeadline, TYPED_AS_KEY } from './pages.ts'

describe('inputDeadline', () => {
  it('gives every character typed as a key press 20 ms more, and inserted text and pointer events none', () => {
    expect(inputDeadline(30_000, [])).toBe(30_000)
    expect(inputDeadline(30_000, [{ type: 'text', text: 'hi\n' }, { type: 'mouse', action: 'click', x: 1, y: 1 }])).toBe(30_060)
    expect(inputDeadline(30_000, [{ type: 'text', text: '東京'.repeat(500) }])).toBe(30_000)
    expect(inputDeadline(30_000, [{ type: 'text', text: 'a'.repeat(1_000) }])).toBe(50_000)
  })
  it('knows the keyboard\'s characters: printable ASCII, Enter and Tab', () => {
    expect([...'a Z~\n\t'].every((c) => TYPED_AS_KEY.test(c))).toBe(true)
    expect([...'é東✓—\u0000'].some((c) => TYPED_AS_KEY.test(c))).toBe(false)
  })
})
