/**
 * Real-Chromium set-up for the Daily Browser: Debian's Chromium with the unpacked extension in a
 * fresh persistent profile (extensions do not run in `newContext()` contexts), the door on a
 * loopback port, and a fixture site on 127.0.0.2 — an address the extension has no host
 * permission for, so it can read the fixture tab only through the activeTab grant.
 *
 * The person's click on the toolbar button is CDP `Extensions.triggerAction` (needs
 * `--enable-unsafe-extension-debugging`): it grants activeTab for that tab and opens the real
 * popup, which Playwright does not list as a page; it is driven over a raw CDP session instead.
 *
 * @example
 * const h = await startHarness()
 * const popup = await h.openPopup(page)
 * await popup.pair('bot-1 code')
 * await h.stop()
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { dailyExtensionId, startDailyBrowser, type DailyBrowserHandle } from '@errands/daily'
import { chromium, type BrowserContext, type CDPSession, type Page, type Worker } from 'playwright-core'

/** The unpacked extension's folder. */
export const EXTENSION_DIR = fileURLToPath(new URL('../../extension', import.meta.url))
export const EXTENSION_ORIGIN = `chrome-extension://${dailyExtensionId}`
const ADMIN_TOKEN = 'daily-browser-test-admin'

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,PreloadTopChromeWebUI',
]

/** One request the door received (for wire-level checks). */
export interface DoorRequest {
  readonly path: string
  readonly origin: string | undefined
  readonly cookie: string | undefined
  readonly peer: string | undefined
}

/** The running browser, door and fixture site. */
export interface Harness {
  readonly ctx: BrowserContext
  readonly sw: Worker
  readonly daily: DailyBrowserHandle
  readonly hostUrl: string
  readonly fixtureUrl: (path: string) => string
  readonly doorLog: Array<DoorRequest>
  /** Holds `/lease/answer` requests until released (to keep an observation pending). */
  readonly holdAnswers: (on: boolean) => void
  readonly held: () => number
  readonly releaseHeld: () => void
  readonly openPopup: (page: Page) => Promise<Popup>
  /** The extension's session state (read in its worker). */
  readonly extensionState: () => Promise<Record<string, any>>
  /** Stops the extension's service worker, as Chrome does to an idle one; resolves once it is gone. */
  readonly stopWorker: () => Promise<void>
  /** How many extension service workers are running. */
  readonly workers: () => Promise<number>
  readonly stop: () => Promise<void>
}

/** The real popup, driven over CDP. */
export interface Popup {
  readonly eval: <T = unknown>(expression: string) => Promise<T>
  readonly text: (id: string) => Promise<string>
  readonly pair: (code: string, host: string) => Promise<void>
  readonly click: (id: string) => Promise<void>
  readonly close: () => Promise<void>
}

/**
 * Polls `check` until it returns a truthy value (or throws after `timeoutMs`).
 *
 * @example
 * await until(async () => (await daily.status('bot-1'))?.state === 'shared')
 */
export const until = async <T>(check: () => Promise<T> | T, timeoutMs = 15_000, what = 'condition'): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await check()
      if (value) return value
    } catch (e) {
      last = e
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const listen = (server: Server, host: string) =>
  new Promise<number>((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)))

const FIXTURE = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`

/** The fixture pages: an account page with filled fields of every kind, and a next page. */
const fixture = (req: IncomingMessage, res: ServerResponse) => {
  const path = (req.url ?? '/').split('?')[0]
  res.setHeader('content-type', 'text/html; charset=utf-8')
  if (path === '/account') {
    res.end(
      FIXTURE(
        'Account — Fixture Bank',
        `<nav aria-label="Main navigation"><a href="/statements">Statements</a> <a href="/next">Next page</a></nav>
         <h1>Welcome back, Ada Lovelace</h1>
         <p>Your balance is <b>1,234.56</b> credits.</p>
         <div style="display:none">HIDDEN-TEXT-7</div>
         <div hidden>HIDDEN-ATTR-TEXT</div>
         <form>
           <label for="email">Email address</label>
           <input id="email" name="email" type="email" placeholder="you@example.com" value="VALUE-ATTR-EMAIL">
           <label for="password">Password</label>
           <input id="password" type="password" autocomplete="current-password" value="VALUE-ATTR-PASSWORD">
           <input id="card" autocomplete="cc-number" aria-label="Card number" value="4111111111111111">
           <input type="hidden" name="csrf" value="HIDDEN-INPUT-SECRET">
           <textarea id="notes" aria-label="Notes">TEXTAREA-SECRET</textarea>
           <select id="plan" aria-label="Plan"><option>OPTION-SECRET</option></select>
           <label><input type="checkbox" id="remember" checked> Remember me</label>
           <div contenteditable="true" role="textbox" aria-label="Message">EDITABLE-SECRET</div>
           <button type="button" id="signout">Sign out</button>
           <input type="submit" value="SUBMIT-VALUE-SECRET">
         </form>`,
      ),
    )
    return
  }
  if (path === '/next') return void res.end(FIXTURE('Next — Fixture Bank', '<p>The next page.</p>'))
  res.statusCode = 404
  res.end(FIXTURE('Not found', '<p>Not found</p>'))
}

/**
 * Starts the door (with the Daily Browser service), the fixture site and Chromium with the
 * extension.
 *
 * @example
 * const h = await startHarness({ pollTimeoutMs: 45_000 })
 */
export const startHarness = async (): Promise<Harness> => {
  // A generous observe deadline: the keep-alive test waits for a 30-second alarm.
  const daily = await startDailyBrowser({ observeTimeoutMs: 60_000, door: { adminToken: ADMIN_TOKEN } })
  const doorLog: Array<DoorRequest> = []
  let holding = false
  const held: Array<() => void> = []
  const host = createServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0]!
    doorLog.push({ path, origin: req.headers.origin, cookie: req.headers.cookie, peer: req.socket.remoteAddress })
    if (holding && path === '/daily/lease/answer') {
      held.push(() => void daily.door(req, res))
      return
    }
    if (!(await daily.door(req, res))) {
      res.statusCode = 404
      res.end()
    }
  })
  const hostPort = await listen(host, '127.0.0.1')
  const site = createServer(fixture)
  const sitePort = await listen(site, '127.0.0.2')

  const userDataDir = mkdtempSync(join(tmpdir(), 'errands-daily-'))
  const ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium',
    // Playwright's switch is off so that it adds no headless flags of its own: `--headless` is in FLAGS.
    headless: false,
    args: [
      ...FLAGS,
      `--disable-extensions-except=${EXTENSION_DIR}`,
      `--load-extension=${EXTENSION_DIR}`,
      '--enable-unsafe-extension-debugging',
    ],
    handleSIGTERM: false,
    handleSIGINT: false,
    handleSIGHUP: false,
  })
  const sw =
    ctx.serviceWorkers().find((w) => w.url().startsWith(EXTENSION_ORIGIN)) ??
    (await ctx.waitForEvent('serviceworker', { predicate: (w) => w.url().startsWith(EXTENSION_ORIGIN) }))
  const cdp = await ctx.browser()!.newBrowserCDPSession()
  const raw = (method: string, params: object = {}) =>
    (cdp as unknown as { send: (m: string, p: object) => Promise<any> }).send(method, params)

  const openPopup = async (page: Page): Promise<Popup> => {
    const url = page.url()
    const { targetInfos: tabs } = await raw('Target.getTargets', { filter: [{ type: 'tab' }] })
    const tab = (tabs as Array<{ targetId: string; url: string }>).find((t) => t.url === url)
    if (!tab) throw new Error(`no tab target for ${url}`)
    const before = new Set(
      ((await raw('Target.getTargets')).targetInfos as Array<{ targetId: string }>).map((t) => t.targetId),
    )
    await raw('Extensions.triggerAction', { id: dailyExtensionId, targetId: tab.targetId })
    const target = await until(
      async () =>
        ((await raw('Target.getTargets')).targetInfos as Array<{ targetId: string; url: string }>).find(
          (t) => t.url === `${EXTENSION_ORIGIN}/popup.html` && !before.has(t.targetId),
        ),
      15_000,
      'the popup',
    )
    return drivePopup(cdp, raw, target!.targetId)
  }

  const workerTargets = async () =>
    ((await raw('Target.getTargets')).targetInfos as Array<{ targetId: string; type: string; url: string }>).filter(
      (t) => t.type === 'service_worker' && t.url.startsWith(EXTENSION_ORIGIN),
    )

  return {
    ctx,
    sw,
    daily,
    workers: async () => (await workerTargets()).length,
    stopWorker: async () => {
      for (const t of await workerTargets()) await raw('Target.closeTarget', { targetId: t.targetId })
      await until(async () => (await workerTargets()).length === 0, 15_000, 'the worker to stop')
    },
    hostUrl: `http://127.0.0.1:${hostPort}`,
    fixtureUrl: (path) => `http://127.0.0.2:${sitePort}${path}`,
    doorLog,
    holdAnswers: (on) => void (holding = on),
    held: () => held.length,
    releaseHeld: () => held.splice(0).forEach((go) => go()),
    openPopup,
    extensionState: () =>
      sw.evaluate(
        async () =>
          ((await (globalThis as any).chrome.storage.session.get('daily')) as Record<string, any>).daily ?? {},
      ),
    stop: async () => {
      holding = false
      held.splice(0).forEach((go) => go())
      await ctx.close().catch(() => {})
      await daily.dispose()
      host.closeAllConnections()
      site.closeAllConnections()
      await Promise.all([new Promise((r) => host.close(r)), new Promise((r) => site.close(r))])
      rmSync(userDataDir, { recursive: true, force: true })
    },
  }
}

/** Attaches to the popup target (non-flattened session: Playwright's CDPSession has no child sessions). */
const drivePopup = async (
  cdp: CDPSession,
  raw: (m: string, p?: object) => Promise<any>,
  targetId: string,
): Promise<Popup> => {
  const { sessionId } = await raw('Target.attachToTarget', { targetId, flatten: false })
  let next = 0
  const waiting = new Map<number, (m: any) => void>()
  const onMessage = (e: { sessionId: string; message: string }) => {
    if (e.sessionId !== sessionId) return
    const m = JSON.parse(e.message)
    waiting.get(m.id)?.(m)
    waiting.delete(m.id)
  }
  ;(cdp as unknown as { on: (e: string, f: (x: any) => void) => void }).on(
    'Target.receivedMessageFromTarget',
    onMessage,
  )
  const call = (method: string, params: object) =>
    new Promise<any>((resolve) => {
      const id = ++next
      waiting.set(id, resolve)
      void raw('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) })
    })
  const evaluate = async <T>(expression: string): Promise<T> => {
    const m = await call('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })
    if (m.error || m.result?.exceptionDetails) throw new Error(JSON.stringify(m.error ?? m.result.exceptionDetails))
    return m.result.result.value as T
  }
  // The popup's module script has run once its buttons are wired and its state rendered.
  await until(
    () =>
      evaluate<boolean>(
        `document.readyState === 'complete' && !(document.getElementById('pairing').hidden && ` +
          `document.getElementById('paired').hidden)`,
      ),
    15_000,
    'the popup to render',
  )
  const click = async (id: string) => void (await evaluate(`document.getElementById(${JSON.stringify(id)}).click()`))
  return {
    eval: evaluate,
    text: (id) => evaluate<string>(`document.getElementById(${JSON.stringify(id)}).textContent`),
    click,
    pair: async (code, host) => {
      await evaluate(
        `document.getElementById('host').value = ${JSON.stringify(host)}; document.getElementById('code').value = ` +
          `${JSON.stringify(code)}`,
      )
      await click('pair')
    },
    close: async () => void (await raw('Target.closeTarget', { targetId }).catch(() => {})),
  }
}
