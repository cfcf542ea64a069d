import type { ObservationFailed, ObservationResult } from '@errands/daily'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXTENSION_ORIGIN, startHarness, until, type Harness, type Popup } from './harness.ts'

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => {
  await h?.stop()
})

const status = async (botId: string) => h.daily.run(h.daily.daily.status(botId))
const observe = (botId: string) => h.daily.run(h.daily.daily.observe(botId))
const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as ObservationFailed,
  )

/** A fresh code for `botId`, typed into the real popup opened on `page`'s tab. */
const pairOn = async (page: Page, botId: string): Promise<Popup> => {
  const { code } = await h.daily.run(h.daily.daily.createPairing(botId))
  const popup = await h.openPopup(page)
  await popup.pair(code, h.hostUrl)
  await until(async () => (await popup.text('bot')) === botId, 15_000, 'the popup to show the paired bot')
  return popup
}

const shareOn = async (popup: Popup, botId: string) => {
  await popup.click('share')
  await until(async () => (await status(botId))?.state === 'shared', 15_000, 'the lease to be shared')
  // The host hears of the Share before the popup does (the worker answers the popup afterwards).
  await until(
    () => popup.eval<boolean>(`!document.getElementById('shared').hidden`),
    15_000,
    'the popup to show the shared page',
  )
}

const SECRETS = [
  'typed-pass-9',
  'typed-email@example.org',
  'VALUE-ATTR-EMAIL',
  'VALUE-ATTR-PASSWORD',
  '4111111111111111',
  'HIDDEN-INPUT-SECRET',
  'TEXTAREA-SECRET',
  'OPTION-SECRET',
  'EDITABLE-SECRET',
  'SUBMIT-VALUE-SECRET',
  'HIDDEN-TEXT-7',
  'HIDDEN-ATTR-TEXT',
]

describe('Daily Browser in real Chromium (D2–D6)', () => {
  it(
    'lends one tab read-only: text and labels, never values; a navigation rejects the pending observation and ends ' +
      'the lease',
    async () => {
      const page = h.ctx.pages()[0] ?? (await h.ctx.newPage())
      await page.goto(h.fixtureUrl('/account'))
      await page.fill('#password', 'typed-pass-9')
      await page.fill('#email', 'typed-email@example.org')

      const popup = await pairOn(page, 'bot-1')
      // The click on the toolbar button granted activeTab: the popup sees this tab's page (no `tabs` permission).
      expect(await popup.text('current')).toContain(h.fixtureUrl('/account'))
      expect(await popup.text('current')).toContain('Account — Fixture Bank')
      expect((await status('bot-1'))?.state).toBe('awaiting')
      await shareOn(popup, 'bot-1')
      expect(await popup.text('shared-page')).toContain('Account — Fixture Bank')

      const result: ObservationResult = await observe('bot-1')
      expect(result).toMatchObject({
        target: 'daily-browser',
        untrusted: true,
        page: { origin: new URL(h.fixtureUrl('/')).origin, path: '/account', title: 'Account — Fixture Bank' },
      })
      expect(result.text).toContain('Welcome back, Ada Lovelace')
      expect(result.text).toContain('Your balance is 1,234.56 credits.')
      const labels = result.controls.map((c) => `${c.kind}:${c.label}${c.inputType ? `:${c.inputType}` : ''}`)
      expect(labels).toEqual(
        expect.arrayContaining([
          'link:Statements',
          'link:Next page',
          'button:Sign out',
          'button:submit',
          'label:Email address',
          'label:Password',
          'label:Remember me',
          'field:Email address (placeholder: you@example.com):email',
          'field:Password:password',
          'field:Card number:text',
          'field:Notes:textarea',
          'field:Plan:select',
          'field:Remember me:checkbox',
          'field:Message:textbox',
          'named:Main navigation',
        ]),
      )
      const everything = JSON.stringify(result)
      for (const secret of SECRETS) expect(everything, secret).not.toContain(secret)
      // The values really are in the page: the observation left them out.
      expect(await page.inputValue('#password')).toBe('typed-pass-9')

      // Keep the next observation pending at the host: its answer is held on the wire.
      h.holdAnswers(true)
      const pending = failureOf(observe('bot-1'))
      await until(() => h.held() === 1, 15_000, 'the extension to answer')
      await page.goto(h.fixtureUrl('/next'))
      const rejected = await pending
      expect(rejected).toMatchObject({ _tag: 'ObservationFailed', reason: 'lease-ended', cause: 'navigation' })
      expect(await status('bot-1')).toMatchObject({
        state: 'revoked',
        cause: 'navigation',
        pendingObservations: 0,
        approved: false,
      })
      h.holdAnswers(false)
      h.releaseHeld()

      // The extension forgot the lease and does not share again by itself (D6).
      await until(
        async () => (await h.extensionState()).ended?.cause === 'navigation',
        15_000,
        'the extension to end the lease',
      )
      const state = await h.extensionState()
      expect(state.token).toBeUndefined()
      expect(state.share).toBeUndefined()
      expect(await failureOf(observe('bot-1'))).toMatchObject({ reason: 'lease-ended', cause: 'navigation' })
      await popup.close()

      // On the wire: every door request came from loopback with the extension's Origin and no cookie.
      expect(h.doorLog.length).toBeGreaterThan(3)
      for (const r of h.doorLog) {
        expect(r.origin).toBe(EXTENSION_ORIGIN)
        expect(r.cookie).toBeUndefined()
        expect(r.peer).toBe('127.0.0.1')
      }
    },
  )

  it('Return ends the lease; closing the shared tab ends the next one', async () => {
    const page = await h.ctx.newPage()
    await page.goto(h.fixtureUrl('/account'))
    const popup = await pairOn(page, 'bot-2')
    await shareOn(popup, 'bot-2')
    expect((await observe('bot-2')).text).toContain('Welcome back')
    await popup.click('return')
    await until(async () => (await status('bot-2'))?.state === 'returned', 15_000, 'the lease to be returned')
    expect(await failureOf(observe('bot-2'))).toMatchObject({ reason: 'lease-ended', cause: 'return' })
    await popup.close()

    const again = await pairOn(page, 'bot-2')
    await shareOn(again, 'bot-2')
    await again.close()
    await page.close()
    await until(async () => (await status('bot-2'))?.state === 'revoked', 15_000, 'the lease to be revoked')
    expect((await status('bot-2'))?.cause).toBe('tab-closed')
  })

  it('never reads a tab the person did not click on: sharing another tab fails without a grant', async () => {
    const clicked = await h.ctx.newPage()
    await clicked.goto(h.fixtureUrl('/account'))
    const other = await h.ctx.newPage()
    await other.goto(h.fixtureUrl('/next'))
    const popup = await pairOn(clicked, 'bot-3')
    // Ask the worker, from the popup, to share the other tab: activeTab covers only the clicked one.
    const otherId = await popup.eval<number>(
      `chrome.tabs.query({}).then((tabs) => tabs.find((t) => t.id !== undefined && t.url === undefined)?.id ?? -1)`,
    )
    expect(otherId).toBeGreaterThan(0)
    const answer = await popup.eval<{ ok: boolean; error?: string }>(
      `chrome.runtime.sendMessage({ type: 'share', tabId: ${otherId} })`,
    )
    expect(answer.ok).toBe(false)
    expect(answer.error).toMatch(/Cannot access|permission/i)
    expect((await status('bot-3'))?.state).toBe('awaiting')
    await popup.click('return')
    await until(async () => (await status('bot-3'))?.state === 'returned', 15_000, 'the lease to be returned')
    await popup.close()
    await Promise.all([clicked.close(), other.close()])
  })

  it('a stopped worker is woken by its alarm and resumes the lease from session storage (keep-alive)', async () => {
    const page = await h.ctx.newPage()
    await page.goto(h.fixtureUrl('/account'))
    const popup = await pairOn(page, 'bot-4')
    await shareOn(popup, 'bot-4')
    await popup.close()
    // Chrome stops an idle worker; here it is stopped on purpose, and nothing else happens: only
    // the `daily-poll` alarm (every 30 s) can start it again.
    await h.stopWorker()
    const observed = observe('bot-4')
    // The alarm fires every 30 s from the pairing, so up to 30 s from now, and Chrome may fire a
    // due alarm late on a loaded machine: wait well past one period (40 s left ~10 s of slack).
    await until(async () => (await h.workers()) > 0, 60_000, 'the alarm to restart the worker')
    expect((await observed).text).toContain('Welcome back, Ada Lovelace')
    expect((await status('bot-4'))?.state).toBe('shared')
    await page.close()
    await until(async () => (await status('bot-4'))?.cause === 'tab-closed', 15_000, 'the tab close to end the lease')
  }, 120_000)
})
