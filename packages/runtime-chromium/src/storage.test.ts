import type { BrowserContext, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { LocalStorageBook } from './localStorageBook.ts'
import { PendingLocalStorage } from './localStorageRestore.ts'
import { readStorage } from './storage.ts'

describe('readStorage', () => {
  it(
    'a visit page made after the read stopped waiting for it is closed when it comes (found by the soak: a renderer ' +
      "left in the person's context)",
    async () => {
      const context = {
        cookies: async () => [],
        pages: () => [],
        addInitScript: async () => ({ dispose: async () => undefined }),
      } as unknown as BrowserContext
      const book = new LocalStorageBook()
      book.saw('https://a.example/')
      let closed = 0
      let made!: () => void
      const late = new Promise<void>((resolve) => {
        made = resolve
      })
      const visitPage = async () => {
        await late // its turn in the context's page making comes after the read gave up
        return {
          page: {} as Page,
          done: async () => {
            closed++
          },
        }
      }
      const read = readStorage(context, {
        book,
        pending: new PendingLocalStorage(context, []),
        visitPage,
        perOriginMs: 20,
        answers: () => true,
      })
      await expect(read).rejects.toThrow(/could not read the localStorage of https:\/\/a\.example/)
      expect(closed).toBe(0)
      made()
      await expect.poll(() => closed).toBe(1)
      // The origin stays to be read next time.
      expect(book.begin(new Set())).toEqual(['https://a.example'])
    },
  )
})
