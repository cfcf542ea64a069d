/**
 * The wheel's keyboard and the waiting badge (P1, P3, P5; issue #26) end to end: a real host with
 * real Chromium for its errands, the person's live view driven by Playwright in a second headless
 * Chromium. An agent's pending request for help shows "Waiting for you: help" on its row and in
 * the header; the person takes the wheel ("A person is driving"), and types into the errand's
 * form through the hidden capture field the ways a person does who is not typing ASCII: text an
 * input method inserts (no keydown), a composition (only its final text may arrive), a paste (one
 * over a thousand characters, cut into the route's pieces; one over the cap is not sent at all),
 * Control+A, Backspace, and Enter to submit — the fixture gets the form with exactly that text.
 * The hand-back clears the badges; nothing typed reaches the host's logs or journals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { centreOf, clickOnScreen, hostWritings, startLiveHarness, type LiveHarness, type Viewer } from './harness.ts'

let h: LiveHarness
let viewer: Viewer

beforeAll(async () => {
  h = await startLiveHarness({ ERRANDS_MAX_SESSIONS: '2' })
  viewer = await h.signedIn()
})
afterAll(async () => {
  await h?.stop()
})

const poll = <T>(f: () => T | Promise<T>) => expect.poll(f, { timeout: 20_000, interval: 100 })

const IME = '日本語 café'
const COMPOSED = '東京'
/**
 * Just over one text event's 1,000 characters, so the paste goes as two. (The runtime types text
 * keyboard characters as keys and inserts the rest a run at a time, so the paste lands at once.)
 */
const PASTED = ` — ${'ペースト✓'.repeat(200)}`
const TYPED = `${IME}${COMPOSED}${PASTED}`

/** The capture field the keyboard goes through while the person drives. */
const FIELD = 'textarea[name="wheel-keyboard"]'

/** One event the live view sent to the input route. */
type Sent = { readonly type: string; readonly text?: string; readonly key?: string }

describe("the wheel's keyboard: IME, composition, paste, keys; and who waits for the person", () => {
  it(
    'a waiting agent is badged; text arrives the IME way, composed, pasted and edited with keys, and Enter submits ' +
      'exactly it; the hand-back clears the badges',
    async () => {
      await h.navigate('k1', h.site.url('/signup'))
      await h.navigate('k2', h.site.url('/page?t=other'))
      const input = await centreOf(h.host, 'k1', '#q')
      const page = viewer.page
      const row = page.locator('tr[data-conversation="session:k1"]')
      // Every event the page sends (the errand's field cannot be read while the person drives: evaluate acts).
      const sent: Sent[] = []
      page.on('request', (r) => {
        if (r.url().endsWith('/input')) sent.push(...(r.postDataJSON() as { events: Sent[] }).events)
      })
      const keys = () => sent.filter((e) => e.type === 'key').map((e) => e.key)
      const texts = () => sent.filter((e) => e.type === 'text').map((e) => e.text)

      // The agent asks for help: its row says it waits for the person, the other's does not.
      const helped = h.host.call('k1', 'POST', '/v1/session/help', {
        reason: 'Type the name in Japanese',
        timeoutMs: 120_000,
      })
      await poll(() => row.locator('[data-testid="waiting"]').textContent()).toBe('Waiting for you: help')
      expect(await page.locator('tr[data-conversation="session:k2"] [data-testid="waiting"]').count()).toBe(0)
      await poll(() => page.locator('[data-testid="waiting-count"]').textContent()).toBe('1 waiting for you')

      // The header's count picks it; the person takes the wheel, and the keyboard is on the page at once.
      await page.click('[data-testid="waiting-count"]')
      await poll(() => page.locator('#screen').getAttribute('data-seq').then(Number)).toBeGreaterThan(0)
      await page.click('button[name="take-wheel"]')
      await poll(() => row.locator('[data-testid="person-driving"]').textContent()).toBe('A person is driving')
      await poll(() => page.evaluate(() => (document.activeElement as HTMLTextAreaElement | null)?.name)).toBe(
        'wheel-keyboard',
      )

      // A press on the picture puts the errand's caret in its field (and keeps the capture focused).
      await clickOnScreen(page, input)
      expect(await page.evaluate(() => (document.activeElement as HTMLTextAreaElement | null)?.name)).toBe(
        'wheel-keyboard',
      )

      // Typed ASCII with keydowns, then Control+A and an IME's insertion (no keydown) replacing it.
      await page.keyboard.type('junk')
      await page.keyboard.press('Control+a')
      await page.keyboard.insertText(IME)
      await poll(texts).toEqual(['j', 'u', 'n', 'k', IME])
      expect(keys()).toEqual(['Control+a'])

      // A composition: its intermediate states (and the keydowns it makes, "Process") send nothing;
      // its end sends the composed text once.
      await page.locator(FIELD).evaluate((f: HTMLTextAreaElement, composed) => {
        const fire = (e: Event) => f.dispatchEvent(e)
        fire(new CompositionEvent('compositionstart', { data: '', bubbles: true }))
        for (const step of ['と', 'とう', 'とうきょう', composed]) {
          fire(
            new KeyboardEvent('keydown', {
              key: 'Process',
              keyCode: 229,
              isComposing: true,
              bubbles: true,
              cancelable: true,
            } as KeyboardEventInit),
          )
          fire(new CompositionEvent('compositionupdate', { data: step, bubbles: true }))
          f.value = step
          fire(
            new InputEvent('input', {
              data: step,
              inputType: 'insertCompositionText',
              isComposing: true,
              bubbles: true,
            }),
          )
        }
        fire(new CompositionEvent('compositionend', { data: composed, bubbles: true }))
      }, COMPOSED)
      await poll(() => texts().at(-1)).toBe(COMPOSED)
      expect(texts().filter((t) => /[とう]/.test(t!))).toEqual([])
      expect(keys()).toEqual(['Control+a'])

      // A paste: the clipboard's text/plain, in pieces of the route's size; a paste over the cap is not sent.
      const paste = (text: string) =>
        page.locator(FIELD).evaluate((f, t) => {
          const dt = new DataTransfer()
          dt.setData('text/plain', t)
          f.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }))
        }, text)
      const before = texts().length
      await paste(PASTED)
      await poll(() =>
        texts()
          .slice(before)
          .map((t) => t!.length),
      ).toEqual([1_000, PASTED.length - 1_000])
      expect(texts().slice(before).join('')).toBe(PASTED)
      await paste('x'.repeat(20_001))
      await poll(() => page.locator('[data-testid="keyboard-notice"]').textContent()).toContain('nothing was sent')

      // Special keys still go as keys: Backspace undoes what was typed; Enter submits the form.
      await page.keyboard.type('zz')
      await page.keyboard.press('Backspace')
      await page.keyboard.press('Backspace')
      expect(await page.locator(FIELD).inputValue()).toBe('')
      await page.keyboard.press('Enter')
      await expect.poll(() => h.site.submitted.at(-1), { timeout: 60_000, interval: 200 }).toBe(TYPED)
      expect(keys()).toEqual(['Control+a', 'Backspace', 'Backspace', 'Enter'])
      expect(sent.some((e) => e.text?.includes('xxxx'))).toBe(false)

      // The hand-back answers the agent and clears both badges.
      await page.click('button[name="hand-back"]')
      expect((await helped).body).toEqual({ handedBack: true, note: null })
      await poll(() => row.locator('[data-testid="waiting"], [data-testid="person-driving"]').count()).toBe(0)
      await poll(() => page.locator('[data-testid="waiting-count"]').count()).toBe(0)
      expect(await page.locator(FIELD).count()).toBe(0)
    },
  )

  it("nothing typed is in the host's logs or journals (P5)", () => {
    const written = hostWritings(h.host)
    for (const typed of [IME, COMPOSED, 'ペースト✓', 'junk', 'とうきょう']) expect(written).not.toContain(typed)
  })
})
