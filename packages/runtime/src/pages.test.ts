import { describe, expect, it } from 'vitest'
import { inputDeadline, KEY_BUDGET, PASTE_OVER, typedRuns } from './pages.ts'

describe('typedRuns', () => {
  it("types the keyboard's characters (printable ASCII, Enter, Tab) as keys and inserts each run of others", () => {
    expect(
      typedRuns([
        { type: 'text', text: 'a Z~\n\té東京✓x' },
        { type: 'mouse', action: 'click', x: 1, y: 1 },
      ]),
    ).toEqual([
      [
        { text: 'a Z~\n\t', keys: true },
        { text: 'é東京✓', keys: false },
        { text: 'x', keys: true },
      ],
      [],
    ])
  })
  it('inserts a text longer than a typed one whole, as a paste', () => {
    const paste = 'p'.repeat(PASTE_OVER + 1)
    expect(typedRuns([{ type: 'text', text: paste }])).toEqual([[{ text: paste, keys: false }]])
    expect(typedRuns([{ type: 'text', text: '東'.repeat(PASTE_OVER) }])).toEqual([
      [{ text: '東'.repeat(PASTE_OVER), keys: false }],
    ])
  })
  it('types at most KEY_BUDGET keys in one call and inserts the rest', () => {
    const events = Array.from({ length: 200 }, () => ({ type: 'text' as const, text: 'k'.repeat(PASTE_OVER) }))
    const runs = typedRuns(events).flat()
    expect(runs.filter((r) => r.keys).reduce((n, r) => n + r.text.length, 0)).toBe(KEY_BUDGET)
    expect(runs.map((r) => r.text).join('')).toBe('k'.repeat(200 * PASTE_OVER))
  })
})

describe('inputDeadline', () => {
  it('gives every character typed as a key press 20 ms more, and inserted text and pointer events none', () => {
    expect(inputDeadline(30_000, [])).toBe(30_000)
    expect(
      inputDeadline(30_000, [
        { type: 'text', text: 'hi\n' },
        { type: 'mouse', action: 'click', x: 1, y: 1 },
      ]),
    ).toBe(30_060)
    expect(inputDeadline(30_000, [{ type: 'text', text: '東京'.repeat(500) }])).toBe(30_000)
    expect(inputDeadline(30_000, [{ type: 'text', text: 'a'.repeat(1_000) }])).toBe(30_000)
  })
  it('is bounded whatever the body holds: the largest /v1/input body adds at most KEY_BUDGET presses', () => {
    const largest = Array.from({ length: 200 }, () => ({ type: 'text' as const, text: 'a'.repeat(10_000) }))
    expect(inputDeadline(30_000, largest)).toBe(30_000)
    const typed = Array.from({ length: 200 }, () => ({ type: 'text' as const, text: 'a'.repeat(PASTE_OVER) }))
    expect(inputDeadline(30_000, typed)).toBe(30_000 + 20 * KEY_BUDGET)
  })
})
