// Chromium calls no Google service (A5, G2; docs/runtime-chromium.md): an errand's ordinary run —
// pages with a sign-in form and an address form, typing, submitting, a second tab — and the
// person's main browser starting beside it leave no request to a Google host in the egress log
// (allowed or refused): Chromium is launched so that it asks no account, autofill or
// component-update service (packages/runtime-chromium/src/options.ts, measured with a net log).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveFileSite, type FileSite } from '../fixtures/fileSite.ts'
import { startTestHost } from '../host/harness.ts'

const FORMS = `<!doctype html><title>forms</title>
<form id="login" action="/done" method="get"><input name="email" type="email" autocomplete="email">
<input name="password" type="password" autocomplete="current-password"><button id="go">Sign in</button></form>
<form id="address" action="/done" method="get"><input name="name" autocomplete="name">
<input name="street" autocomplete="street-address"><input name="city" autocomplete="address-level2">
<input name="zip" autocomplete="postal-code"><input name="tel" autocomplete="tel">
<input name="cc" autocomplete="cc-number">
<button id="ship">Ship</button></form>`

let host: Awaited<ReturnType<typeof startTestHost>>
let site: FileSite

beforeAll(async () => {
  ;[host, site] = await Promise.all([startTestHost({ ERRANDS_MAX_SESSIONS: '4' }), serveFileSite(FORMS)])
})
afterAll(async () => {
  await Promise.all([host?.stop(), site?.close()])
})

const GOOGLE =
  /(^|\.)(google|googleapis|gstatic|googleusercontent|gvt1|gvt2|doubleclick|google-analytics)\.[a-z.]+(:\d+)?$/

describe('Chromium calls no Google service (A5)', () => {
  it('an errand with forms, typing, a submit and a second tab: no Google host in the egress log', async () => {
    const agent = host.v1('no-google')
    expect((await host.call('no-google', 'POST', '/v1/navigate', { url: `${site.origin}/forms` })).status).toBe(200)
    for (const [selector, text] of [
      ['input[name=email]', 'someone@example.com'],
      ['input[name=password]', 'not-a-secret'],
      ['input[name=name]', 'Ada Lovelace'],
      ['input[name=street]', '1 Analytical Row'],
      ['input[name=city]', 'London'],
      ['input[name=zip]', 'N1 9GU'],
      ['input[name=cc]', '4111111111111111'],
    ] as const)
      expect((await agent.fill({ body: { selector, value: text } })).ok).toBe(true)
    expect((await agent.click({ body: { selector: '#go' } })).ok).toBe(true)
    expect((await host.call('no-google', 'POST', '/v1/navigate', { url: `${site.origin}/forms?2` })).status).toBe(200)
    expect((await agent.click({ body: { selector: '#ship' } })).ok).toBe(true)
    expect((await host.call('no-google', 'POST', '/v1/tabs', { url: `${site.origin}/other` })).status).toBeLessThan(300)
    const egress = host.logs.filter((l) => l.startsWith('egress: '))
    // The run went through the egress (the fixture site), so a Google request would be here.
    expect(egress.some((l) => l.includes(site.origin.replace('http://', '')))).toBe(true)
    const google = egress.filter((l) => GOOGLE.test(l.split(' ')[2] ?? ''))
    expect(google).toEqual([])
  })
})
