/**
 * Desktop notifications (issue #26) end to end: a real host with real Chromium for its errands,
 * the person's live view driven by Playwright in a second headless Chromium whose context grants
 * the `notifications` permission. An init script wraps `window.Notification` and records every
 * notification the page constructs. The person's attention is the browser's own: the live view is
 * unfocused while another page of its window is in front (focus emulation off), focused when it is
 * brought to the front.
 *
 * Nothing is announced before the person switches notifications on; once on, a sign-in question
 * and a request for help that arrive while the page is in the background each raise one with the
 * reason; a click picks that errand; one that arrives while the person looks at the page raises
 * none (the card is there).
 */
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLiveHarness, type LiveHarness, type Viewer } from './harness.ts'

let h: LiveHarness
let viewer: Viewer
/** Another page in the viewer's window: in front, the live view is in the background. */
let elsewhere: Page

/** Records each notification the page constructs, then lets the browser's own show it. */
const RECORD_NOTIFICATIONS = `(() => {
  const Original = window.Notification
  if (Original === undefined) return
  window.__notes = []
  window.Notification = class extends Original {
    constructor(title, options) {
      super(title, options)
      window.__notes.push({ title, body: options && options.body || '', tag: options && options.tag || '' })
      ;(window.__shown = window.__shown || []).push(this)
    }
  }
})()`

type Note = { title: string; body: string; tag: string }
const notes = () => viewer.page.evaluate(() => (window as unknown as { __notes: Note[] }).__notes)
const poll = <T>(f: () => T | Promise<T>) => expect.poll(f, { timeout: 20_000, interval: 100 })

/** Puts the live view in the background (another page of its window in front). */
const away = async () => {
  await elsewhere.bringToFront()
  await poll(() => viewer.page.evaluate(() => document.hasFocus())).toBe(false)
}
/** Brings the live view to the front. */
const back = async () => {
  await viewer.page.bringToFront()
  await poll(() => viewer.page.evaluate(() => document.hasFocus())).toBe(true)
}

const helpFor = (key: string, reason: string) =>
  h.host.call(key, 'POST', '/v1/session/help', { reason, timeoutMs: 120_000 })

beforeAll(async () => {
  h = await startLiveHarness({ ERRANDS_MAX_SESSIONS: '4' })
  viewer = await h.signedIn({ permissions: ['notifications'], initScript: RECORD_NOTIFICATIONS })
  // Headless Playwright tells every page it has focus; the live view must see the real focus.
  const cdp = await viewer.context.newCDPSession(viewer.page)
  await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false })
  elsewhere = await viewer.context.newPage()
  await elsewhere.setContent('<title>Another tab</title><p>The person is reading something else.</p>')
})
afterAll(async () => {
  await h?.stop()
})

describe('desktop notifications from the live view', () => {
  it(
    'announce nothing until switched on; then a sign-in question and a help request in the background, with the ' +
      'reason; a click picks the errand',
    async () => {
      const page = viewer.page
      await back()
      await poll(() => page.locator('[data-testid="notify"]').getAttribute('data-notify')).toBe('off')

      // Not switched on: a request in the background shows its card and nothing else.
      await away()
      const first = helpFor('k1', 'Before notifications were on')
      await page.waitForSelector('section.help[data-help="session:k1"]')
      expect(await notes()).toEqual([])

      await back()
      await page.click('button[name="notify"]')
      await poll(() => page.locator('[data-testid="notify"]').getAttribute('data-notify')).toBe('on')

      await away()
      const asked = h.host.call('k2', 'POST', '/v1/session/permission', { site: '127.0.0.1', timeoutMs: 120_000 })
      await poll(notes).toEqual([
        expect.objectContaining({
          title: 'Sign in to 127.0.0.1?',
          body: expect.stringContaining('session:k2 asks to use your sign-in for 127.0.0.1'),
        }),
      ])
      const second = helpFor('k3', 'A captcha I cannot solve')
      await poll(async () => (await notes()).length).toBe(2)
      expect((await notes())[1]).toMatchObject({
        title: 'session:k3 asks for your help',
        body: 'A captcha I cannot solve',
      })

      // The person clicks the notification: the live view picks that errand.
      await page.evaluate(() => {
        const shown = (window as unknown as { __shown: Notification[] }).__shown
        shown[shown.length - 1]!.dispatchEvent(new Event('click'))
      })
      await poll(() => page.locator('tr[data-conversation="session:k3"]').getAttribute('class')).toContain('selected')
      const shot = process.env.ERRANDS_SCREENSHOT_DIR
      if (shot !== undefined)
        await page.screenshot({
          path: join(shot, 'live-view-notify.png'),
          clip: { x: 0, y: 0, width: 1400, height: 420 },
        })

      // Looking at the page: the card, no notification.
      await back()
      const third = helpFor('k4', 'Seen on the page')
      await page.waitForSelector('section.help[data-help="session:k4"]')
      expect(await notes()).toHaveLength(2)

      // Everyone stops waiting: the question denied, every request handed back.
      const [question] = (
        (await h.host.call(undefined, 'GET', '/v1/person/questions')).body as { questions: Array<{ id: string }> }
      ).questions
      expect(
        (await h.host.call(undefined, 'POST', `/v1/person/questions/${question!.id}`, { answer: 'deny' })).status,
      ).toBe(200)
      for (const key of ['k1', 'k3', 'k4'])
        expect((await h.host.call(undefined, 'POST', '/v1/person/hand-back', { session: key })).status).toBe(200)
      for (const waiting of [first, asked, second, third]) expect((await waiting).status).toBe(200)
    },
  )
})
