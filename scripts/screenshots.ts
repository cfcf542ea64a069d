/**
 * `npx tsx scripts/screenshots.ts` — the live view's screenshots for the docs, taken from a real
 * run: a host with real Chromium, fixture sites on loopback, a few conversations in different
 * states (driven through the API as agents would), and the page in a second headless Chromium.
 * Writes docs/img/live-view-*.png.
 *
 * @example
 * npx tsx scripts/screenshots.ts
 */
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { startLiveHarness } from '../test/liveview/harness.ts'

const out = resolve(import.meta.dirname, '../docs/img')
mkdirSync(out, { recursive: true })

const h = await startLiveHarness({ ERRANDS_MAX_SESSIONS: '3' })
try {
  const { host, site } = h
  // The person is signed in to the fixture site in their own browser.
  await host.call(undefined, 'POST', '/v1/person/main/navigate', { url: site.url('/store?v=person') })
  // Agents at work: three sessions, one with two tabs, one parked, one with a lent sign-in.
  await h.navigate('research-flights', site.url('/big?t=Flights'))
  await host.call('research-flights', 'POST', '/v1/tabs', { url: site.url('/page?t=Hotels&bg=lavender') })
  await h.navigate('compare-prices', site.url('/page?t=Prices&bg=honeydew'))
  await host.call(undefined, 'POST', '/v1/person/lend', { session: 'compare-prices', site: '127.0.0.2' })
  await h.navigate('weekly-report', site.url('/page?t=Report'))
  await host.run(host.supervisor.park('session:weekly-report'))
  // A chat with a browser of its own, and one on the person's browser.
  await host.call(undefined, 'POST', '/v1/person/chats/trip-chat/own-browser', { on: true })
  const trip = await host.run(host.supervisor.view('chat:trip-chat'))
  await host.run(host.runtime.openTab(trip.contextId!, site.url('/page?t=Trip%20ideas&bg=mistyrose')))
  await host.run(host.supervisor.open({ id: 'chat:quick-question', kind: 'chat' }))

  const signIn = await h.open()
  await signIn.page.waitForSelector('input[name="token"]')
  await signIn.page.screenshot({ path: join(out, 'live-view-sign-in.png') })
  await signIn.context.close()

  const viewer = await h.signedIn()
  const page = viewer.page
  await page.click('tr[data-conversation="session:research-flights"]')
  await page.waitForSelector('#screen[data-conversation="session:research-flights"]')
  await page.waitForTimeout(500)
  await page.screenshot({ path: join(out, 'live-view.png'), fullPage: true })
  await page.click('tr[data-conversation="chat:trip-chat"]')
  await page.waitForSelector('input[name="own-browser"]')
  await page.waitForTimeout(500)
  await page.screenshot({ path: join(out, 'live-view-chat.png'), fullPage: true })
  await viewer.context.close()
  process.stdout.write(`screenshots written to ${out}\n`)
} finally {
  await h.stop()
}
