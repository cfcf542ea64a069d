import { describe, expect, it } from 'vitest'
import { attachPageLog, pageLogOf, type PageLogView } from './pageLogView.ts'

const view: PageLogView = {
  console: () => ({ entries: [{ type: 'log', text: 'hi', at: 1, level: 'info', location: '', nav: 1 }], dropped: 0 }),
  network: () => ({ entries: [], dropped: 0 }),
  nav: () => 1,
  request: () => undefined,
}

describe('a page log reached through the page (issue #25)', () => {
  it('is the view the runtime attached, invisible to JSON and key listings; nothing on a page without one', () => {
    const page = { url: 'about:blank' }
    expect(pageLogOf(page)).toBeUndefined()
    attachPageLog(page, view)
    expect(pageLogOf(page)?.console().entries[0]?.text).toBe('hi')
    expect(JSON.stringify(page)).toBe('{"url":"about:blank"}')
    expect(Object.keys(page)).toEqual(['url'])
    expect(pageLogOf(null)).toBeUndefined()
    expect(pageLogOf('page')).toBeUndefined()
  })
})
