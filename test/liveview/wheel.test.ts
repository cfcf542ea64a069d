/**
 * Taking the wheel (P1–P3, P5, C2; issue #26) end to end: a real host with real Chromium for its
 * errands and a cap of one, the person's live view driven by Playwright in a second headless
 * Chromium. An agent asks for help; the person watches the errand, takes the wheel, clicks into
 * the errand's form and types through the screencast, and presses its button — the fixture gets
 * the form with the typed text — while the agent's acting verbs answer 409 PersonDriving and the
 * cap parks nothing; "Hand back" with a note answers the agent's waiting request with that note.
 */
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { centreOf, clickOnScreen, hostWritings, startLiveHarness, type LiveHarness, type Viewer } from './harness.ts'

let h: LiveHarness
let viewer: Viewer

beforeAll(async () => {
  h = await startLiveHarness({ ERRANDS_MAX_SESSIONS: '1' })
  viewer = await h.signedIn()
})
afterAll(async () => {
  await h?.stop()
})

const poll = <T>(f: () => T | Promise<T>) => expect.poll(f, { timeout: 20_000, interval: 100 })
const TYPED = 'hello wheel 42'

describe('taking the wheel from the live view', () => {
  it(
    'the person drives the errand through the screencast; the agent is refused (409) and waits; the cap parks ' +
      'nothing; Hand back answers the agent with the note',
    async () => {
      await h.navigate('k1', h.site.url('/signup'))
      const input = await centreOf(h.host, 'k1', '#q')
      const button = await centreOf(h.host, 'k1', '#send')

      // The agent asks for help and waits.
      const helped = h.host.call('k1', 'POST', '/v1/session/help', {
        reason: 'Please fill in the sign-up form',
        timeoutMs: 120_000,
      })
      const page = viewer.page
      await page.waitForSelector('section.help[data-help="session:k1"]')
      expect(await page.locator('section.help').textContent()).toContain('Please fill in the sign-up form')
      await page.click('section.help button[name="help-watch"]')
      await poll(() => page.locator('#screen').getAttribute('data-seq').then(Number)).toBeGreaterThan(0)

      await page.click('button[name="take-wheel"]')
      await page.waitForSelector('[data-testid="driving-banner"]')
      await poll(() => page.locator('#screen').getAttribute('data-driving')).toBe('true')

      // Meanwhile the agent's acting verbs are refused in words it can act on; reads still answer.
      const click = await h.host.call('k1', 'POST', '/v1/click', { selector: '#send' })
      expect(click.status).toBe(409)
      expect(click.body).toMatchObject({
        error: {
          code: 'PersonDriving',
          message: expect.stringContaining('A person is using this browser; wait for them to hand it back'),
        },
      })
      expect((await h.host.call('k1', 'POST', '/v1/navigate', { url: h.site.url('/page?t=x') })).status).toBe(409)
      expect((await h.host.call('k1', 'GET', '/v1/url')).status).toBe(200)

      // Another session under a cap of one: refused, and the errand the person drives stays open (C2).
      const other = await h.host.call('k2', 'POST', '/v1/navigate', { url: h.site.url('/page?t=other') })
      expect(other.status).toBe(503)
      const sessions = (await h.host.call(undefined, 'GET', '/v1/person/sessions')).body as {
        sessions: Array<{ conversationId: string; state: string; personDriving?: boolean }>
      }
      expect(sessions.sessions.find((s) => s.conversationId === 'session:k1')).toMatchObject({ state: 'active' })

      // The person clicks into the field on the picture and types, then presses Send on the picture.
      await clickOnScreen(page, input)
      await page.keyboard.type(TYPED, { delay: 20 })
      const shot = process.env.ERRANDS_SCREENSHOT_DIR
      if (shot !== undefined) {
        // Wait for a frame that shows what was typed before taking the picture.
        await page.waitForTimeout(800)
        const file = join(shot, 'live-view-wheel.png')
        mkdirSync(dirname(file), { recursive: true })
        await page.screenshot({ path: file })
      }
      await clickOnScreen(page, button)
      await poll(() => h.site.submitted.at(-1)).toBe(TYPED)

      // Hand back with a note: the agent's waiting request answers with it.
      await page.fill('input[name="hand-back-note"]', 'Signed up for you')
      await page.click('button[name="hand-back"]')
      const answer = await helped
      expect(answer.status).toBe(200)
      expect(answer.body).toEqual({ handedBack: true, note: 'Signed up for you' })
      await poll(() => page.locator('[data-testid="driving-banner"]').count()).toBe(0)
      await poll(() => page.locator('section.help').count()).toBe(0)
      expect((await h.host.call('k1', 'GET', '/v1/url')).body).toMatchObject({
        url: expect.stringContaining('/submitted?q=hello+wheel+42'),
      })
      // The agent drives again.
      expect((await h.host.call('k1', 'POST', '/v1/navigate', { url: h.site.url('/page?t=back') })).status).toBe(200)

      // The sign-in the person made stays in the errand (P5, L4): the errand sends its cookie to the
      // site; the person's own browser, on the same site, does not have it.
      const member = `member=${encodeURIComponent(TYPED)}`
      expect((await h.host.call('k1', 'POST', '/v1/navigate', { url: h.site.url('/show') })).status).toBe(200)
      expect(h.site.cookies.filter((c) => c.path === '/show').at(-1)?.cookie).toContain(member)
      expect(
        (await h.host.call(undefined, 'POST', '/v1/person/main/navigate', { url: h.site.url('/show') })).status,
      ).toBe(200)
      expect(h.site.cookies.filter((c) => c.path === '/show').at(-1)?.cookie ?? '').not.toContain('member=')
    },
  )

  it('what the person typed is in no log or journal of the host (P5, L7)', () => {
    expect(hostWritings(h.host)).not.toContain(TYPED)
  })

  it('input without the wheel is refused: the live view only watches while the agent drives', async () => {
    const r = await viewer.page.evaluate(
      async ({ header, id }) => {
        const res = await fetch('/live/api/conversations/session%3Ak1/input', {
          method: 'POST',
          headers: { 'content-type': 'application/json', [header]: id },
          body: JSON.stringify({ events: [{ type: 'text', text: 'x' }] }),
        })
        return { status: res.status, body: await res.json() }
      },
      { header: 'x-errands-live', id: viewer.liveId! },
    )
    expect(r.status).toBe(409)
    expect(r.body.error.code).toBe('NotAtTheWheel')
  })
})
