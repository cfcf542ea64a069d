/**
 * Asking for a sign-in (P4, L2, L3, L7; issue #26) end to end: a real host with real Chromium for
 * its errands, the person's live view driven by Playwright in a second headless Chromium, and two
 * fixture sites on 127.0.0.2 (the harness's) and 127.0.0.1 that report the `Cookie` header every
 * request carried. The person's main context is signed in to both; an errand asks for one; the
 * card appears in the live view; the person's click decides what the errand's requests carry.
 */
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveFixture, type Fixture } from '../host/fixtures.ts'
import { request } from '../host/harness.ts'
import { httpClient } from '../mcp/clients.ts'
import { startLiveHarness, type LiveHarness, type Viewer } from './harness.ts'

let h: LiveHarness
let other: Fixture
let viewer: Viewer

/** The person, signed in (in the main context) to both sites with values no errand has. */
const MAIN_B = 'main-signin-b'
const MAIN_A = 'main-signin-a'

beforeAll(async () => {
  h = await startLiveHarness({ ERRANDS_MAX_SESSIONS: '4' })
  other = await serveFixture('127.0.0.1')
  for (const url of [h.site.url(`/store?v=${MAIN_B}`), other.url(`/store?v=${MAIN_A}`)]) {
    const r = await h.host.call(undefined, 'POST', '/v1/person/main/navigate', { url })
    expect(r.status).toBe(200)
  }
  // The person's tab moves on to a page (the screenshot shows main's tab, not the sign-in URL).
  await h.host.call(undefined, 'POST', '/v1/person/main/navigate', { url: h.site.url('/page?t=Your%20shop') })
  viewer = await h.signedIn()
})
afterAll(async () => {
  await other?.close()
  await h?.stop()
})

const poll = <T>(f: () => T | Promise<T>) => expect.poll(f, { timeout: 20_000, interval: 100 })
const card = (site: string) => `section.question[data-site="${site}"]`

/** The Cookie header the fixture saw on the errand's last `/show`. */
const cookieSeen = async (key: string, site: Fixture): Promise<string> => {
  await h.navigate(key, site.url(`/show?k=${key}&n=${Math.random()}`))
  const seen = site.cookies.filter((c) => c.path === '/show').at(-1)
  return seen?.cookie ?? ''
}

const ask = (key: string, site: string, timeoutMs = 60_000) =>
  h.host.call(key, 'POST', '/v1/session/permission', { site, timeoutMs })

describe('asking the person for a sign-in', () => {
  it('Allow on the live view card lends main’s sign-in to that errand, for that site only (L2)', async () => {
    expect(await cookieSeen('k1', h.site)).toBe('')
    const asking = ask('k1', '127.0.0.2')
    const page = viewer.page
    await page.waitForSelector(card('127.0.0.2'))
    const text = await page.locator(card('127.0.0.2')).textContent()
    expect(text).toContain('Allow lends your sign-in to this task')
    expect(text).toContain('session:k1')
    expect(await page.locator(`${card('127.0.0.2')} button`).allTextContents()).toEqual(['Allow', 'Deny'])
    const shot = process.env.ERRANDS_SCREENSHOT_DIR
    if (shot !== undefined) {
      const file = join(shot, 'live-view-sign-in-question.png')
      mkdirSync(dirname(file), { recursive: true })
      await page.screenshot({ path: file })
    }

    await page.click(`${card('127.0.0.2')} button.allow`)
    const reply = await asking
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ site: '127.0.0.2', lent: true, why: 'allowed' })
    await poll(() => page.locator('section.question').count()).toBe(0)

    // On the wire: main's cookie for the site asked about, and nothing for the other site.
    expect(await cookieSeen('k1', h.site)).toBe(`basket=${MAIN_B}`)
    expect(await cookieSeen('k1', other)).toBe('')
    // Another errand got nothing.
    expect(await cookieSeen('k9', h.site)).toBe('')
    // The live view's tooltip names the lent site (E6).
    await poll(() =>
      page.locator('tr[data-conversation="session:k1"] [data-testid="reason"]').getAttribute('title'),
    ).toContain('127.0.0.2')

    // Asked again: answered at once, no card.
    const again = await ask('k1', '127.0.0.2')
    expect(again.body).toMatchObject({ lent: true, why: 'already-lent' })
    expect(await page.locator('section.question').count()).toBe(0)
  })

  it('Deny lends nothing, and the journal records the question and the answer, never a cookie (L7)', async () => {
    const asking = ask('k2', '127.0.0.1')
    await viewer.page.waitForSelector(card('127.0.0.1'))
    // The errand's row says it waits for the person (issue #26's badge), until the answer.
    const badge = viewer.page.locator('tr[data-conversation="session:k2"] [data-testid="waiting"]')
    await poll(() => badge.textContent()).toBe('Waiting for you: sign-in')
    // The person's own route lists the same question.
    const listed = await h.host.call(undefined, 'GET', '/v1/person/questions')
    expect(listed.body).toMatchObject({
      questions: [{ kind: 'sign-in', conversationId: 'session:k2', site: '127.0.0.1' }],
    })
    await viewer.page.click(`${card('127.0.0.1')} button.deny`)
    expect((await asking).body).toMatchObject({ site: '127.0.0.1', lent: false, why: 'denied' })
    await poll(() => badge.count()).toBe(0)
    expect(await cookieSeen('k2', other)).toBe('')
    expect(await cookieSeen('k2', h.site)).toBe('')

    // The one journal is the supervisor's: the question and its end, under the id the person answered.
    const asks = (conversationId: string) =>
      h.host.journal.flatMap((l) =>
        'conversationId' in l && l.conversationId === conversationId
          ? l.op === 'question.asked'
            ? [[l.op, l.ask, l.site]]
            : l.op === 'question.answered'
              ? [[l.op, l.outcome]]
              : []
          : [],
      )
    expect(asks('session:k2')).toEqual([
      ['question.asked', 'sign-in', '127.0.0.1'],
      ['question.answered', 'deny'],
    ])
    expect(asks('session:k1').filter(([op]) => op === 'question.answered')).toEqual([['question.answered', 'allow']])
    const journal = h.host.journal.filter((l) => l.op.startsWith('question.'))
    const said = JSON.stringify(journal) + h.host.logs.join('\n')
    expect(said).not.toContain(MAIN_A)
    expect(said).not.toContain(MAIN_B)
  })

  it('over MCP, browser_request_sign_in asks the same way and Allow lends (P4)', async () => {
    const mcp = await httpClient(h.host.url, { key: 'k6' })
    try {
      expect(await cookieSeen('k6', other)).toBe('')
      const asking = mcp.call('browser_request_sign_in', { site: '127.0.0.1', timeoutMs: 60_000 })
      await viewer.page.waitForSelector(`${card('127.0.0.1')}[data-conversation="session:k6"]`)
      await viewer.page.click(`${card('127.0.0.1')} button.allow`)
      const r = await asking
      expect(r.isError, r.text).toBe(false)
      expect(r.text).toMatch(/^Lent \(allowed\)/)
      expect(r.text).not.toContain(MAIN_A)
      expect(await cookieSeen('k6', other)).toBe(`basket=${MAIN_A}`)
      expect(await cookieSeen('k6', h.site)).toBe('')
      const bad = await mcp.call('browser_request_sign_in', { site: 'http://127.0.0.1/?token=abc' })
      expect(bad.isError).toBe(true)
      expect(bad.text).not.toContain('token=abc')
    } finally {
      await mcp.end()
    }
  })

  it('nobody answers: the errand hears "timeout", nothing is lent, the card goes away', async () => {
    const asking = ask('k3', '127.0.0.1', 1_500)
    await viewer.page.waitForSelector(card('127.0.0.1'))
    expect((await asking).body).toMatchObject({ lent: false, why: 'timeout' })
    await poll(() => viewer.page.locator('section.question').count()).toBe(0)
    expect(await cookieSeen('k3', other)).toBe('')
  })

  it('auto trust answers at once and shows no card (L3); a bad site is a 400', async () => {
    expect((await h.host.call(undefined, 'PUT', '/v1/person/settings/trust', { mode: 'auto' })).status).toBe(200)
    try {
      const started = Date.now()
      const reply = await ask('k4', '127.0.0.1')
      expect(reply.body).toMatchObject({ lent: false, why: 'trust' })
      expect(Date.now() - started).toBeLessThan(10_000)
      expect((await h.host.call(undefined, 'GET', '/v1/person/questions')).body).toEqual({ questions: [] })
      expect(await viewer.page.locator('section.question').count()).toBe(0)
      expect(await cookieSeen('k4', other)).toBe('')
    } finally {
      await h.host.call(undefined, 'PUT', '/v1/person/settings/trust', { mode: 'ask' })
    }

    for (const body of [{ site: 'http://127.0.0.1/?token=abc' }, { site: 42 }, { site: '127.0.0.1', timeoutMs: 0 }]) {
      const r = await request(h.host.port, {
        method: 'POST',
        path: '/v1/session/permission',
        body: JSON.stringify(body),
        headers: { 'x-browser-session': 'k5', 'content-type': 'application/json' },
      })
      expect(r.status).toBe(400)
      expect(r.body.error).toMatchObject({ code: 'BadRequest' })
      expect(r.body.error.message).not.toContain('token=abc')
    }
    // An answer to a question that is not waiting, from the live view's own API.
    const gone = await viewer.page.evaluate(
      async ([id]) => {
        const r = await fetch('/live/api/questions/nope', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-errands-live': id! },
          body: '{"answer":"allow"}',
        })
        return r.status
      },
      [viewer.liveId],
    )
    expect(gone).toBe(404)
  })
})
