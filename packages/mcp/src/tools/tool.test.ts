import { describe, expect, it } from 'vitest'
import { shownUrl } from './tool.ts'

describe('what the tools write about URLs carries no query string (L7)', () => {
  it('drops query and fragment, marks that there was one', () => {
    expect(shownUrl('https://shop.example/cart?token=abc#x')).toBe('https://shop.example/cart?…')
    expect(shownUrl('http://127.0.0.1:3000/')).toBe('http://127.0.0.1:3000/')
    expect(shownUrl('about:blank')).toBe('about:blank')
    expect(shownUrl('data:text/html,<secret>')).toBe('data:…')
    expect(shownUrl('nonsense')).toBe('(not a URL)')
  })
})
