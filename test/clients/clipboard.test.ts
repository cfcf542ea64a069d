/**
 * Issue #22 (T5, A1): the clipboard of one errand never pastes in another **on the path that
 * ships** — the host started the way `npm start` starts it (test/fixtures/shippedHost.ts), a
 * real client (playwright-core over each errand's DevTools URL) on two errands. Under tsx the
 * engine's clipboard script used to be rewritten (esbuild's `__name`), threw in every page, and
 * errand B pasted what A copied. Every page of both errands is watched: nothing the engine
 * injects may raise a page error or a console error.
 */
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startShippedHost, type ShippedHost } from '../fixtures/shippedHost.ts'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'

let host: ShippedHost
let site: Site
const browsers: Browser[] = []
/** Page errors and console errors of every page of every client, with the errand's name. */
const problems: string[] = []

beforeAll(async () => {
  const [started, sites] = await Promise.all([startShippedHost(), serveSites(1)])
  host = started
  site = sites[0]!
})
afterAll(async () => {
  await Promise.all(browsers.map((b) => b.close().catch(() => undefined)))
  await Promise.all([host?.stop(), site ? closeSites([site]) : undefined])
})

/** Errand `key`'s page over its DevTools URL, on a fixture page holding one focused field. */
const open = async (key: string): Promise<Page> => {
  const browser = await chromium.connectOverCDP(await host.devtoolsUrl(key))
  browsers.push(browser)
  const context = browser.contexts()[0]!
  const watch = (page: Page) => {
    page.on('pageerror', (e) => problems.push(`${key}: pageerror ${e.message}`))
    // The fixture site has no favicon: its 404 is the site's, not something the engine injected.
    page.on(
      'console',
      (m) =>
        m.type() === 'error' &&
        !m.text().startsWith('Failed to load resource') &&
        problems.push(`${key}: console ${m.text()}`),
    )
  }
  context.pages().forEach(watch)
  context.on('page', watch)
  const page = context.pages()[0] ?? (await context.newPage())
  await page.goto(site.url(`/title?t=${key}`))
  await page.evaluate('document.body.innerHTML = \'<textarea id="f"></textarea>\'')
  await page.bringToFront()
  await page.focus('#f')
  return page
}

const pasteInto = async (page: Page): Promise<string> => {
  await page.fill('#f', '')
  await page.focus('#f')
  await page.keyboard.press('Control+V')
  return page.inputValue('#f')
}

describe('the clipboard on the shipped start path (T5)', () => {
  it('B never pastes what A copied (Ctrl+C / writeText → Ctrl+V / readText); no page error on any page', async () => {
    const a = await open('clip-a')
    const b = await open('clip-b')

    const copied = `copied-${Math.random().toString(36).slice(2)}`
    await a.fill('#f', copied)
    await a.focus('#f')
    await a.keyboard.press('Control+A')
    await a.keyboard.press('Control+C')
    expect(await pasteInto(b)).not.toContain(copied)
    // The copy happened: A pastes its own text back (so B's empty field means isolation).
    expect(await pasteInto(a)).toBe(copied)

    const written = `written-${Math.random().toString(36).slice(2)}`
    await a.bringToFront()
    await a.evaluate(`navigator.clipboard.writeText(${JSON.stringify(written)})`)
    await b.bringToFront()
    expect(await pasteInto(b)).not.toContain(written)
    const read = await b.evaluate(
      `navigator.clipboard.readText().then((t) => 'read: ' + t, (e) => 'refused: ' + e.name)`,
    )
    expect(read).not.toContain(written)
    expect(read).toBe('refused: NotAllowedError')

    expect(problems).toEqual([])
  })
})
