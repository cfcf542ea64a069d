/**
 * Issue #9 (T5): HSTS, connections, service workers, permissions and the clipboard between two errands and
 * between an errand and the person's main context, on real Chromium, judged on the wire where
 * there is a wire (which scheme a request arrived on, whether it reached the server at all).
 * Mirrors Playwright's browser-context tests (browsercontext-service-worker-policy,
 * permissions "should isolate permissions between browser contexts", geolocation "should isolate
 * contexts", the clipboard tests). Each case shows the positive in the context that set it up.
 *
 * The clipboard is **not** isolated between errands: Chromium keeps one clipboard per browser
 * process, and every errand lives in the errands' browser (docs/shared-surfaces.md). The test
 * asserts that truth, so a change in Chromium's behaviour shows up here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { everyone, others, startWire, type Who, type Wire } from './harness.ts'
import { HOSTS } from './server.ts'

let w: Wire
beforeAll(async () => {
  w = await startWire()
})
afterAll(async () => {
  await w?.stop()
})

/** A host of its own per case and direction, so what one case leaves behind cannot help another. */
const hostFor = (what: string, who: Who) => `${what}-${who}.wire.test`
let probes = 0

describe('HSTS', () => {
  /** Navigates `who`'s tab to `http://host/hsts`; returns where it ended and the schemes the server saw. */
  const plainVisit = async (who: Who, host: string) => {
    const probe = `hsts${++probes}`
    const page = await w.visit(who, w.server.url(host, `/hsts?probe=${probe}`, 'http'))
    return { url: new URL(page.url()).protocol, title: await page.title(), schemes: w.server.hits.filter((h) => h.probe === probe).map((h) => h.scheme) }
  }

  it.each(['a', 'main'] as const)('an upgrade learned in %s applies there and in no other context', async (learner) => {
    const host = hostFor('hsts', learner)
    // Before: plain HTTP stays plain (no automatic HTTPS upgrade on this port).
    expect(await plainVisit(learner, host)).toEqual({ url: 'http:', title: 'hsts:http', schemes: ['http'] })
    await w.visit(learner, w.server.url(host, '/hsts', 'https')) // Strict-Transport-Security: max-age=3600
    // The positive: Chromium upgrades internally — the plain request never reaches the server.
    expect(await plainVisit(learner, host)).toEqual({ url: 'https:', title: 'hsts:https', schemes: ['https'] })
    for (const other of others(learner)) {
      expect(await plainVisit(other, host), `${other} must not know ${learner}'s HSTS`).toEqual({ url: 'http:', title: 'hsts:http', schemes: ['http'] })
    }
  })
})

describe('connections (socket pools)', () => {
  /** Loads a page of `host` in `who` and fetches `/echo` from it; returns the connections (client ports) those requests came on. */
  const requestsOf = async (who: Who, host: string) => {
    const start = w.server.hits.length
    const page = await w.visit(who, w.server.url(host, '/page?t=connections'))
    await page.evaluate(() => fetch('/echo').then((r) => r.text()))
    return new Set(w.server.hits.slice(start).filter((h) => h.host === host).map((h) => h.connection))
  }

  it.each(['a', 'main'] as const)('keep-alive connections of %s are reused there and by no other context', async (owner) => {
    const host = hostFor('conn', owner)
    const owned = await requestsOf(owner, host)
    // The positive: the pool works — the context's next requests ride a connection it opened.
    const again = await requestsOf(owner, host)
    expect([...again].some((c) => owned.has(c))).toBe(true)
    for (const c of again) owned.add(c)
    for (const other of others(owner)) {
      const theirs = await requestsOf(other, host)
      expect(theirs.size).toBeGreaterThan(0)
      expect([...theirs].filter((c) => owned.has(c)), `${other} must not use ${owner}'s connections`).toEqual([])
    }
  })
})

describe('service workers', () => {
  it.each(['a', 'main'] as const)('a worker registered in %s intercepts there only; elsewhere there is no registration and requests reach the network', async (registrant) => {
    const host = hostFor('sw', registrant)
    const page = await w.visit(registrant, w.server.url(host, '/sw-page', 'https'))
    await page.waitForFunction(() => document.title !== 'sw:pending')
    expect(await page.title()).toBe('sw:controlled')
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length)).toBe(1)
    expect(await page.evaluate(() => fetch('/sw-probe').then((r) => r.text()))).toBe('from-sw')
    await w.visit(registrant, w.server.url(host, '/sw-probe', 'https'))
    expect(await page.textContent('body')).toBe('from-sw') // navigations are intercepted too
    expect(w.server.count('/sw-probe', { host })).toBe(0)

    let reached = 0
    for (const other of others(registrant)) {
      const there = await w.visit(other, w.server.url(host, '/page', 'https'))
      expect(await there.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length), other).toBe(0)
      expect(await there.evaluate(() => fetch('/sw-probe').then((r) => r.text())), other).toBe('from-network')
      await w.visit(other, w.server.url(host, '/sw-probe', 'https'))
      expect(await there.textContent('body'), other).toBe('from-network')
      reached += 2
      expect(w.server.count('/sw-probe', { host })).toBe(reached)
    }
  })
})

describe('permissions', () => {
  const state = async (who: Who, origin: string) => {
    const page = await w.visit(who, `${origin}/page`)
    return page.evaluate(async () => (await navigator.permissions.query({ name: 'geolocation' })).state)
  }

  it.each(['a', 'main'] as const)('geolocation granted to %s is granted there only', async (granter) => {
    const origin = w.server.url(hostFor('geo', granter), '', 'https')
    for (const who of everyone) expect(await state(who, origin), `${who} before`).toBe('prompt')
    await w.browserContext(granter).grantPermissions(['geolocation'], { origin })
    await w.browserContext(granter).setGeolocation({ latitude: 48.8566, longitude: 2.3522 })
    expect(await state(granter, origin)).toBe('granted')
    const page = await w.visit(granter, `${origin}/page`)
    const where = await page.evaluate(() => new Promise<number>((resolve, reject) =>
      navigator.geolocation.getCurrentPosition((p) => resolve(p.coords.latitude), (e) => reject(new Error(e.message)))))
    expect(where).toBeCloseTo(48.8566, 3)
    for (const other of others(granter)) expect(await state(other, origin), other).toBe('prompt')
  })
})

describe('the clipboard', () => {
  const origin = () => w.server.url(HOSTS.shop, '', 'https')
  const open = async (who: Who) => {
    const page = await w.visit(who, `${origin()}/page?t=clipboard`)
    await page.bringToFront() // the Clipboard API wants a focused document
    return page
  }
  const write = async (who: Who, text: string) => (await open(who)).evaluate((t) => navigator.clipboard.writeText(t), text)
  const read = async (who: Who) => (await open(who)).evaluate(() => navigator.clipboard.readText())

  beforeAll(async () => {
    for (const who of everyone) await w.browserContext(who).grantPermissions(['clipboard-read', 'clipboard-write'], { origin: origin() })
  })

  it('is SHARED between errands (one clipboard per Chromium process), but not with main', async () => {
    const text = `from-a-${Math.random().toString(36).slice(2)}`
    await write('a', text)
    expect(await read('a')).toBe(text)
    // The truth about Chromium: b, another errand context of the same browser, reads a's text.
    expect(await read('b')).toBe(text)
    expect(await read('main')).not.toBe(text)
  })

  it('keyboard copy and paste needs no permission: Ctrl+C in one errand, Ctrl+V in another pastes it; main has its own', async () => {
    // An origin nobody granted anything: pages there may not read the clipboard themselves.
    const origin = w.server.url(hostFor('clip', 'a'), '', 'https')
    const field = async (who: Who, text: string) => {
      const page = await w.visit(who, `${origin}/page?t=field`)
      await page.evaluate((t) => { document.body.innerHTML = '<textarea id="f"></textarea>'; document.querySelector('textarea')!.value = t }, text)
      await page.focus('#f')
      return page
    }
    const paste = async (who: Who) => {
      const page = await field(who, '')
      await page.keyboard.press('Control+V')
      return page.inputValue('#f')
    }
    const copy = async (who: Who, text: string) => {
      const page = await field(who, text)
      await page.keyboard.press('Control+A')
      await page.keyboard.press('Control+C')
    }
    const page = await field('b', '')
    expect(await page.evaluate(async () => (await navigator.permissions.query({ name: 'clipboard-read' as PermissionName })).state)).toBe('prompt')
    // Headless Chromium answers the prompt with "no": the page itself cannot read the clipboard.
    expect(await page.evaluate(() => navigator.clipboard.readText().then(() => 'read', (e: Error) => e.name))).toBe('NotAllowedError')

    const fromA = `keys-a-${Math.random().toString(36).slice(2)}`
    await copy('a', fromA)
    expect(await paste('a')).toBe(fromA)
    expect(await paste('b')).toBe(fromA) // shared: same Chromium process
    expect(await paste('main')).not.toBe(fromA)

    const fromMain = `keys-main-${Math.random().toString(36).slice(2)}`
    await copy('main', fromMain)
    expect(await paste('main')).toBe(fromMain)
    for (const errand of ['a', 'b'] as const) expect(await paste(errand), errand).not.toBe(fromMain)
  })

  it("main's clipboard (the main browser's) is not read by any errand", async () => {
    const text = `from-main-${Math.random().toString(36).slice(2)}`
    await write('main', text)
    expect(await read('main')).toBe(text)
    for (const errand of ['a', 'b'] as const) expect(await read(errand), errand).not.toBe(text)
  })
})
