import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { RefBook, refsOf } from './refs.ts'

// The book's decisions on a page stand-in that answers what Playwright would (the real
// `aria-ref` behaviour — a ref of an old document, of a removed element — is driven on real
// Chromium in test/mcp/http.test.ts).
const pageWith = (yaml: string, found: (ref: string) => number) =>
  ({
    ariaSnapshot: async () => yaml,
    locator: (s: string) => ({ count: async () => found(s.replace('aria-ref=', '')) }),
  }) as unknown as Page

describe('refs of the latest snapshot (RefBook)', () => {
  it('reads every ref of a snapshot, frames included', () => {
    expect(
      refsOf(
        '- generic [ref=e1]:\n  - button "Add" [ref=e3]\n  - iframe [ref=e4]:\n    - link "x" [ref=f1e2] ' +
          '[cursor=pointer]',
      ),
    ).toEqual(['e1', 'e3', 'e4', 'f1e2'])
  })

  it(
    'no snapshot of the page yet → take one; a ref the latest snapshot lacks → take a new one; an element gone → ' +
      'take a new one',
    async () => {
      const book = new RefBook()
      const page = pageWith('- button "Add" [ref=e3]', (r) => (r === 'e3' ? 1 : 0))
      expect(await book.check(page, 'e3', 'Add')).toMatchObject({ _tag: 'StaleRef', reason: 'no-snapshot' })
      await book.snapshot(page)
      expect(await book.check(page, 'e3', 'Add')).toBeUndefined()
      const old = await book.check(page, 'e2', 'Old button')
      expect(old).toMatchObject({ reason: 'not-in-snapshot' })
      expect(old!.message).toContain('"Old button" (ref e2) is not in the latest snapshot')
      expect(old!.message).toContain('take a new snapshot with browser_snapshot')
      const gone = pageWith('- button "Add" [ref=e3]', () => 0)
      await book.snapshot(gone)
      expect(await book.check(gone, 'e3', '')).toMatchObject({
        reason: 'gone',
        message: expect.stringContaining('ref e3 is no longer on the page'),
      })
    },
  )

  it('a newer snapshot replaces the refs of the older one', async () => {
    const book = new RefBook()
    let yaml = '- button "A" [ref=e2]'
    const page = { ariaSnapshot: async () => yaml, locator: () => ({ count: async () => 1 }) } as unknown as Page
    await book.snapshot(page)
    yaml = '- button "B" [ref=f1e2]'
    await book.snapshot(page)
    expect(await book.check(page, 'e2', 'A')).toMatchObject({ reason: 'not-in-snapshot' })
    expect(await book.check(page, 'f1e2', 'B')).toBeUndefined()
  })
})
