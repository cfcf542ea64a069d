import { describe, expect, it } from 'vitest'
import { matchesFilter, refusedOnSession } from './targets.ts'

describe('target filters, as Chromium decides them', () => {
  it('leaves out browser and tab targets by default, and the first matching entry decides', () => {
    expect(matchesFilter('page', undefined)).toBe(true)
    expect(matchesFilter('tab', undefined)).toBe(false)
    expect(matchesFilter('browser', undefined)).toBe(false)
    expect(matchesFilter('tab', [{}])).toBe(true)
    // Puppeteer's auto-attach filter: tabs yes, pages no (their pages attach under the tab).
    expect(matchesFilter('page', [{ type: 'page', exclude: true }, {}])).toBe(false)
    expect(matchesFilter('tab', [{ type: 'page', exclude: true }, {}])).toBe(true)
    // No entry matches: excluded.
    expect(matchesFilter('worker', [{ type: 'page' }])).toBe(false)
  })
})

describe('what a client may do on its own session', () => {
  it("passes the target's own domains and refuses the browser-wide ones beyond a small list", () => {
    expect(refusedOnSession('Page.navigate')).toBeUndefined()
    expect(refusedOnSession('Target.setAutoAttach')).toBeUndefined()
    expect(refusedOnSession('Browser.getVersion')).toBeUndefined()
    expect(refusedOnSession('Browser.close')).toMatch(/not allowed/)
    expect(refusedOnSession('Target.createTarget')).toMatch(/not allowed/)
    expect(refusedOnSession('Tracing.start')).toMatch(/not allowed/)
    expect(refusedOnSession('SystemInfo.getInfo')).toMatch(/not allowed/)
  })
})
