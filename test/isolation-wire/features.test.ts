/**
 * Issue #9 (T5): HSTS, connections, service workers, permissions and the clipboard between two errands and
 * between an errand and the person's main context, on real Chromium, judged on the wire where
 * there is a wire (which scheme a request arrived on, whether it reached the server at all).
 * Mirrors Playwright's browser-context tests (browsercontext-service-worker-policy,
 * permissions "should isolate permissions between browser contexts", geolocation "should isolate
 * contexts", the clipboard tests). Each case shows the positive in the context that set it up.
 *
 * Chromium keeps one clipboard per browser process, and every errand lives in the errands'
 * browser: the runtime gives each errand a clipboard of its own by marking what it copies
 * (docs/shared-surfaces.md). These tests copy and paste with real key presses.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { everyone, others, useWire, hostFor, type Who } from './harness.ts'
import { HOSTS } from './server.ts'

const wire = useWire()

let probes = 0

describe('HSTS', () => {
  /** Navigates `who`'s tab to `http://host/hsts`; returns where it ended and the schemes the server saw. */
  const plainVisit = async (who: Who, host: string) => {
    const probe = `hsts${++probes}`
    const page = await wire().visit(who, wire().server.url(host, `/hsts?probe=${probe}`, 'http'))
    return {
      url: new URL(page.url()).protocol,
      title: await page.title(),
      schemes: wire()
        .server.hits.filter((h) => h.probe === probe)
        .map((h) => h.scheme),
    }
  }

  it.each(['a', 'main'] as const)('an upgrade learned in %s applies there and in no other context', async (learner) => {
    const host = hostFor('hsts', learner)
    // Before: plain HTTP stays plain (no automatic HTTPS upgrade on this port).
    expect(await plainVisit(learner, host)).toEqual({ url: 'http:', title: 'hsts:http', schemes: ['http'] })
    await wire().visit(learner, wire().server.url(host, '/hsts', 'https')) // Strict-Transport-Security: max-age=3600
    // The positive: Chromium upgrades internally — the plain request never reaches the server.
    expect(await plainVisit(learner, host)).toEqual({ url: 'https:', title: 'hsts:https', schemes: ['https'] })
    for (const other of others(learner)) {
      expect(await plainVisit(other, host), `${other} must not know ${learner}'s HSTS`).toEqual({
        url: 'http:',
        title: 'hsts:http',
        schemes: ['http'],
      })
    }
  })
})

describe('connections (socket pools)', () => {
  /**
   * Loads a page of `host` in `who` and fetches `/echo` from it; returns the connections (client ports) those requests
   * came on.
   */
  const requestsOf = async (who: Who, host: string) => {
    const start = wire().server.hits.length
    const page = await wire().visit(who, wire().server.url(host, '/page?t=connections'))
    await page.evaluate(() => fetch('/echo').then((r) => r.text()))
    return new Set(
      wire()
        .server.hits.slice(start)
        .filter((h) => h.host === host)
        .map((h) => h.connection),
    )
  }

  it.each(['a', 'main'] as const)(
    'keep-alive connections of %s are reused there and by no other context',
    async (owner) => {
      const host = hostFor('conn', owner)
      const owned = await requestsOf(owner, host)
      // The positive: the pool works — the context's next requests ride a connection it opened.
      const again = await requestsOf(owner, host)
      expect([...again].some((c) => owned.has(c))).toBe(true)
      for (const c of again) owned.add(c)
      for (const other of others(owner)) {
        const theirs = await requestsOf(other, host)
        expect(theirs.size).toBeGreaterThan(0)
        expect(
          [...theirs].filter((c) => owned.has(c)),
          `${other} must not use ${owner}'s connections`,
        ).toEqual([])
      }
    },
  )
})

describe('service workers', () => {
  it.each(['a', 'main'] as const)(
    'a worker registered in %s intercepts there only; elsewhere there is no registration and requests reach the ' +
      'network',
    async (registrant) => {
      const host = hostFor('sw', registrant)
      const page = await wire().visit(registrant, wire().server.url(host, '/sw-page', 'https'))
      await page.waitForFunction(() => document.title !== 'sw:pending')
      expect(await page.title()).toBe('sw:controlled')
      expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length)).toBe(1)
      expect(await page.evaluate(() => fetch('/sw-probe').then((r) => r.text()))).toBe('from-sw')
      await wire().visit(registrant, wire().server.url(host, '/sw-probe', 'https'))
      expect(await page.textContent('body')).toBe('from-sw') // navigations are intercepted too
      expect(wire().server.count('/sw-probe', { host })).toBe(0)

      let reached = 0
      for (const other of others(registrant)) {
        const there = await wire().visit(other, wire().server.url(host, '/page', 'https'))
        expect(await there.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length), other).toBe(
          0,
        )
        expect(await there.evaluate(() => fetch('/sw-probe').then((r) => r.text())), other).toBe('from-network')
        await wire().visit(other, wire().server.url(host, '/sw-probe', 'https'))
        expect(await there.textContent('body'), other).toBe('from-network')
        reached += 2
        expect(wire().server.count('/sw-probe', { host })).toBe(reached)
      }
    },
  )
})

describe('permissions', () => {
  const state = async (who: Who, origin: string) => {
    const page = await wire().visit(who, `${origin}/page`)
    return page.evaluate(async () => (await navigator.permissions.query({ name: 'geolocation' })).state)
  }

  it.each(['a', 'main'] as const)('geolocation granted to %s is granted there only', async (granter) => {
    const origin = wire().server.url(hostFor('geo', granter), '', 'https')
    for (const who of everyone) expect(await state(who, origin), `${who} before`).toBe('prompt')
    await wire().browserContext(granter).grantPermissions(['geolocation'], { origin })
    await wire().browserContext(granter).setGeolocation({ latitude: 48.8566, longitude: 2.3522 })
    expect(await state(granter, origin)).toBe('granted')
    const page = await wire().visit(granter, `${origin}/page`)
    const where = await page.evaluate(
      () =>
        new Promise<number>((resolve, reject) =>
          navigator.geolocation.getCurrentPosition(
            (p) => resolve(p.coords.latitude),
            (e) => reject(new Error(e.message)),
          ),
        ),
    )
    expect(where).toBeCloseTo(48.8566, 3)
    for (const other of others(granter)) expect(await state(other, origin), other).toBe('prompt')
  })
})

describe('the clipboard', () => {
  // The errands' browser has one clipboard for all its contexts; each errand gets its own through
  // a mark only its pages can paste (runtime-chromium/src/clipboard.ts). Main is another browser.
  const origin = () => wire().server.url(HOSTS.shop, '', 'https')
  const open = async (who: Who) => {
    const page = await wire().visit(who, `${origin()}/page?t=clipboard`)
    await page.bringToFront() // the Clipboard API wants a focused document
    return page
  }
  const write = async (who: Who, text: string) =>
    (await open(who)).evaluate((t) => navigator.clipboard.writeText(t), text)
  const read = async (who: Who) =>
    (await open(who)).evaluate(() => navigator.clipboard.readText().catch((e: Error) => `refused: ${e.name}`))
  /** `who`'s tab (or `page`) with a fresh field holding `text`, focused. */
  const field = async (who: Who, text: string, page?: Page) => {
    const tab = page ?? (await wire().visit(who, `${origin()}/page?t=field`))
    // A tab opens once its navigation commits (navigation.ts): its body may not be parsed yet.
    await tab.waitForLoadState('domcontentloaded')
    await tab.bringToFront()
    await tab.evaluate((t) => {
      document.body.innerHTML = '<textarea id="f"></textarea>'
      document.querySelector('textarea')!.value = t
    }, text)
    await tab.focus('#f')
    return tab
  }
  const paste = async (who: Who, page?: Page) => {
    const tab = await field(who, '', page)
    await tab.keyboard.press('Control+V')
    return tab.inputValue('#f')
  }
  const copy = async (who: Who, text: string, key: 'C' | 'X' = 'C') => {
    const tab = await field(who, text)
    await tab.keyboard.press('Control+A')
    await tab.keyboard.press(`Control+${key}`)
    return tab
  }
  const token = (what: string) => `${what}-${Math.random().toString(36).slice(2)}`

  beforeAll(async () => {
    for (const who of everyone)
      await wire().browserContext(who).grantPermissions(['clipboard-read', 'clipboard-write'], { origin: origin() })
  })

  it(
    'keyboard copy in one errand pastes in its own tabs (another site too) and in no other context; main keeps its ' +
      'own',
    async () => {
      const fromA = token('keys-a')
      await copy('a', fromA)
      expect(await paste('a')).toBe(fromA)
      const other = await wire().newTab('a', wire().server.url(hostFor('clip', 'a'), '/page?t=second', 'https'))
      try {
        expect(await paste('a', other), 'a second tab of a, on another site').toBe(fromA)
      } finally {
        await other.close()
      }
      for (const who of others('a')) expect(await paste(who), who).toBe('')

      const fromMain = token('keys-main')
      await copy('main', fromMain)
      expect(await paste('main')).toBe(fromMain)
      // Main's clipboard is another browser's: the errands' one still holds a's text, for a only.
      expect(await paste('a')).toBe(fromA)
      expect(await paste('b')).toBe('')
      // And the other way: b's copy is b's, and a's is gone from the shared clipboard.
      const fromB = token('keys-b')
      await copy('b', fromB)
      expect(await paste('b')).toBe(fromB)
      expect(await paste('a')).toBe('')
    },
  )

  it('cut takes the text out and it pastes only where it was cut; rich text keeps its markup', async () => {
    const cut = token('cut-a')
    const tab = await copy('a', cut, 'X')
    await expect.poll(() => tab.inputValue('#f'), { timeout: 10_000 }).toBe('')
    expect(await paste('a')).toBe(cut)
    expect(await paste('b')).toBe('')

    await tab.evaluate(() => {
      document.body.innerHTML =
        '<div id="src" contenteditable>plain <b>bold</b></div><div id="dst" contenteditable></div>'
    })
    await tab.focus('#src')
    await tab.keyboard.press('Control+A')
    await tab.keyboard.press('Control+C')
    await tab.focus('#dst')
    await tab.keyboard.press('Control+V')
    expect(await tab.innerHTML('#dst')).toContain('<b>bold</b>')
  })

  it("a page's own copy handler is kept, and what it puts pastes in its errand only", async () => {
    const tab = await field('a', 'what was selected')
    const chosen = token('handler-a')
    await tab.evaluate(
      (t) =>
        addEventListener('copy', (e) => {
          e.clipboardData!.setData('text/plain', t)
          e.preventDefault()
        }),
      chosen,
    )
    await tab.keyboard.press('Control+A')
    await tab.keyboard.press('Control+C')
    expect(await paste('a')).toBe(chosen)
    expect(await paste('b')).toBe('')
  })

  it("no page of another errand sees a's text: not its paste handlers, not an iframe of its own", async () => {
    const secret = token('secret-a')
    await copy('a', secret)
    /** Pastes into `who`'s field and into an about:blank iframe, with the page's spies on every paste. */
    const trap = async (who: Who) => {
      const tab = await field(who, '')
      await tab.evaluate(() => {
        const seen: string[] = []
        ;(window as unknown as { seen: string[] }).seen = seen
        const spy = (e: Event) => seen.push((e as ClipboardEvent).clipboardData?.getData('text/plain') ?? '')
        addEventListener('paste', spy, true)
        document.addEventListener('paste', spy, true)
        const frame = document.createElement('iframe')
        document.body.append(frame)
        frame.contentDocument!.body.contentEditable = 'true'
        frame.contentDocument!.addEventListener('paste', spy, true)
      })
      await tab.keyboard.press('Control+V')
      await tab.evaluate(() => document.querySelector('iframe')!.contentDocument!.body.focus())
      await tab.keyboard.press('Control+V')
      return tab.evaluate(() => ({
        seen: (window as unknown as { seen: string[] }).seen,
        field: document.querySelector('textarea')!.value,
        frame: document.querySelector('iframe')!.contentDocument!.body.textContent,
      }))
    }
    // The positive: in a, every spy sees it and both places get it.
    expect(await trap('a')).toEqual({ seen: [secret, secret, secret], field: secret, frame: secret })
    expect(await trap('b')).toEqual({ seen: [], field: '', frame: '' })
  })

  it(
    'navigator.clipboard.writeText pastes in its errand only; reading the clipboard is refused in errands, allowed ' +
      'in main',
    async () => {
      const text = token('api-a')
      await write('a', text)
      expect(await paste('a')).toBe(text)
      expect(await paste('b')).toBe('')
      for (const errand of ['a', 'b'] as const) expect(await read(errand), errand).toBe('refused: NotAllowedError')

      const fromMain = token('api-main')
      await write('main', fromMain)
      expect(await read('main')).toBe(fromMain)
      for (const errand of ['a', 'b'] as const) expect(await paste(errand), errand).not.toBe(fromMain)
    },
  )
})
