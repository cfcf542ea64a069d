/**
 * The allowlist of browser-level methods of an errand's DevTools endpoint and what each does:
 * answer here, rewrite to the errand's browser context, or forward with its target checked.
 * Each runs on a browser view (view.ts): the root one or a client's browser session, alike.
 * A method missing from the table is refused by the view.
 *
 * @example
 * BROWSER_METHODS['Target.getBrowserContexts']?.(view, command) // answers { browserContextIds: [] }
 */
import type { Command } from './connection.ts'
import { knownMethod } from './protocol.ts'
import { matchesFilter, type TargetInfo } from './targets.ts'
import type { BrowserView } from './view.ts'

/** One method's handling. */
type Handler = (view: BrowserView, command: Command) => void

const getVersion: Handler = (p, c) => {
  p.forward(c, {})
}

const browserClose: Handler = (p, c) => {
  p.reply(c, {})
  p.connection.close({ code: 1000, reason: 'Browser.close ends only this connection; the errand goes on.' })
}

/** Methods that act on one browser context: on the errand's, whatever context the client named or not. */
const inErrandContext: Handler = (p, c) => {
  const params = p.inContext(c)
  if (params) p.forward(c, params)
}

/**
 * Why clipboard reading is never granted to an errand: Chromium keeps one clipboard per browser
 * process, the errands' clipboard script guards it in each page's main world only, and a client's
 * own isolated world (`Page.createIsolatedWorld`) holding the grant read another errand's copy
 * with the native `navigator.clipboard.readText()` (docs/devtools-endpoint.md, T5).
 */
const CLIPBOARD_READ_REFUSED =
  "clipboard reading is not granted in an errand: the errands share one browser's clipboard " +
  '(clipboardSanitizedWrite, writing, is granted; a paste of what this errand copied works without a grant)'

/** `Browser.grantPermissions` in the errand's context, clipboard reading refused. */
const grantPermissions: Handler = (p, c) => {
  const permissions = Array.isArray(c.params.permissions) ? c.params.permissions : []
  if (permissions.includes('clipboardReadWrite')) return p.refuse(c, CLIPBOARD_READ_REFUSED)
  inErrandContext(p, c)
}

/** `Browser.setPermission` in the errand's context, a grant of clipboard reading refused. */
const setPermission: Handler = (p, c) => {
  const permission = c.params.permission as { name?: unknown } | undefined
  if (permission?.name === 'clipboard-read' && c.params.setting !== 'denied') return p.refuse(c, CLIPBOARD_READ_REFUSED)
  inErrandContext(p, c)
}

/**
 * The client's download behaviour: its view, never the errand's (clientDownloads.ts); forwarded only when the
 * errand has no folder.
 */
const downloadBehavior: Handler = (p, c) => {
  const params = p.inContext(c)
  if (params === undefined) return
  if (p.connection.downloads.emulated) return p.setDownloads(c, params)
  p.forward(c, p.downloadTo(params))
}

/**
 * A browser session confined like the connection itself (#22): Playwright's
 * `browser.newBrowserCDPSession()` and `context.newCDPSession(page)` open one first.
 */
const attachToBrowserTarget: Handler = (p, c) => {
  p.connection.openBrowserSession(p, c)
}

const windowForTarget: Handler = (p, c) => {
  if (!p.ours(c.params.targetId)) return p.refuse(c, 'name a targetId of this errand')
  p.forward(c, c.params, (r) => p.rememberWindow(r))
}

/** Methods on a window (bounds, contents size): only a window of the errand's targets. */
const ownWindow: Handler = (p, c) => {
  if (!p.connection.windows.has(c.params.windowId as number))
    return p.refuse(c, "that window is not one of this errand's (ask Browser.getWindowForTarget)")
  p.forward(c, c.params)
}

const getBrowserContexts: Handler = (p, c) => {
  // Like Chromium, the default context is not listed; the errand is the default context. Helper
  // contexts the client opened are.
  p.reply(c, { browserContextIds: p.connection.helperIds() })
}

/** `browser.newContext()`: a helper errand of this errand (#22, E1), never a bare context. */
const createBrowserContext: Handler = (p, c) => {
  p.connection.openHelperContext(p, c)
}

const disposeBrowserContext: Handler = (p, c) => {
  if (p.connection.closeHelperContext(c.params.browserContextId)) return p.reply(c, {})
  p.refuse(c, "only a helper context this connection opened can be disposed of; the errand's own is the default one")
}

const getTargets: Handler = (p, c) => {
  const filter = c.params.filter
  void p.internal('Target.getTargets', { filter: [{}] }).then(
    (r) => {
      const all = Array.isArray(r.targetInfos) ? (r.targetInfos as Array<TargetInfo>) : []
      const mine = all.filter(
        (t) => t.type !== 'browser' && p.connection.owns(t.browserContextId) && matchesFilter(t.type, filter),
      )
      p.reply(c, { targetInfos: mine.map((t) => p.hide(t)) })
    },
    (error: Error) => p.refuse(c, error.message),
  )
}

const getTargetInfo: Handler = (p, c) => {
  const targetId = c.params.targetId
  // Without a target: the browser's own info (no context in it).
  if (targetId !== undefined && !p.ours(targetId)) return p.refuse(c, 'no target with this id belongs to this errand')
  p.forward(c, c.params, (r) => p.hideResult(r))
}

const ownTarget: Handler = (p, c) => {
  // Puppeteer's `browser.target().createCDPSession()`: the browser target, as a browser session
  // confined like the connection (the same as `Target.attachToBrowserTarget`).
  if (c.method === 'Target.attachToTarget' && isBrowserTarget(p, c.params.targetId)) {
    if (c.params.flatten !== true)
      return p.refuse(c, 'only flatten sessions are offered (attachToTarget with flatten: true)')
    return p.connection.openBrowserSession(p, c)
  }
  if (!p.ours(c.params.targetId)) return p.refuse(c, 'no target with this id belongs to this errand')
  if (c.method === 'Target.attachToTarget' && c.params.flatten !== true) {
    return p.refuse(c, 'only flatten sessions are offered (attachToTarget with flatten: true)')
  }
  p.forward(c, c.params)
}

/** Whether `targetId` is the browser's own target (as the view's discovery lists it). */
const isBrowserTarget = (p: BrowserView, targetId: unknown): boolean =>
  typeof targetId === 'string' && p.targets.get(targetId)?.type === 'browser'

/**
 * `Target.getDevToolsTarget`: the DevTools window opened for a target — never one for an
 * errand's (`Target.openDevTools` is refused), so `{}` as Chromium answers a target without one
 * (chrome-devtools-mcp asks for every page it lists).
 */
const getDevToolsTarget: Handler = (p, c) => {
  // It asks of pages it saw closed too: Chromium's answer for a target that is gone.
  if (!p.ours(c.params.targetId)) return p.noSuchTarget(c)
  p.reply(c, {})
}

const detach: Handler = (p, c) => {
  const sessionId = c.params.sessionId
  if (typeof sessionId === 'string' && p.connection.closeBrowserSession(p, sessionId)) return p.reply(c, {})
  if (typeof sessionId !== 'string' || !p.sessions.has(sessionId))
    return p.refuse(c, 'no session with this id belongs to this errand')
  p.forward(c, { sessionId })
}

const createTarget: Handler = (p, c) => {
  const params = p.inContext(c)
  if (params === undefined || !p.allowedUrl(c, params.url)) return
  // As in Chromium, the new target is attached (auto-attach) before the answer arrives.
  p.forward(c, params, async (r) => {
    await p.attachMatching()
    return r
  })
}

const setDiscoverTargets: Handler = (p, c) => {
  if (c.params.discover !== true) {
    p.discover = undefined
    return p.reply(c, {})
  }
  const filter = c.params.filter
  p.discover = { filter }
  for (const info of p.targets.values())
    if (matchesFilter(info.type, filter)) p.emit('Target.targetCreated', { targetInfo: p.hide(info) })
  p.reply(c, {})
}

const setAutoAttach: Handler = (p, c) => {
  if (c.params.autoAttach !== true) {
    p.autoAttach = undefined
    return p.reply(c, {})
  }
  if (c.params.flatten !== true)
    return p.refuse(c, 'only flatten sessions are offered (setAutoAttach with flatten: true)')
  p.autoAttach = { filter: c.params.filter }
  void p.attachMatching().then(() => p.reply(c, {}))
}

/**
 * The allowlist of browser-level methods and how each is handled; every other browser-level
 * method is refused (`Browser.crash`, `Fetch.enable`, `Tracing.start`, `SystemInfo.*`,
 * `Tethering.*` … all reach beyond one errand).
 *
 * @example
 * Object.keys(BROWSER_METHODS).includes('Target.createTarget') // true
 */
export const BROWSER_METHODS: Readonly<Record<string, Handler>> = {
  'Browser.getVersion': getVersion,
  'Browser.close': browserClose,
  'Browser.grantPermissions': grantPermissions,
  'Browser.resetPermissions': inErrandContext,
  'Browser.setPermission': setPermission,
  'Browser.setDownloadBehavior': downloadBehavior,
  'Browser.cancelDownload': inErrandContext,
  'Browser.getWindowForTarget': windowForTarget,
  'Browser.getWindowBounds': ownWindow,
  'Browser.setWindowBounds': ownWindow,
  'Browser.setContentsSize': ownWindow,
  'Storage.getCookies': inErrandContext,
  'Storage.setCookies': inErrandContext,
  'Storage.clearCookies': inErrandContext,
  'Target.getBrowserContexts': getBrowserContexts,
  'Target.createBrowserContext': createBrowserContext,
  'Target.disposeBrowserContext': disposeBrowserContext,
  'Target.getTargets': getTargets,
  'Target.getTargetInfo': getTargetInfo,
  'Target.getDevToolsTarget': getDevToolsTarget,
  'Target.attachToTarget': ownTarget,
  'Target.attachToBrowserTarget': attachToBrowserTarget,
  'Target.activateTarget': ownTarget,
  'Target.closeTarget': ownTarget,
  'Target.detachFromTarget': detach,
  'Target.createTarget': createTarget,
  'Target.setDiscoverTargets': setDiscoverTargets,
  'Target.setAutoAttach': setAutoAttach,
}

/**
 * The domains Chromium's browser target serves (measured on Chromium 156 with headless=new: every
 * other domain's method answers -32601 "wasn't found" at the browser level).
 *
 * @example
 * BROWSER_TARGET_DOMAINS.has('Page') // false
 */
export const BROWSER_TARGET_DOMAINS: ReadonlySet<string> = new Set([
  'Browser',
  'BluetoothEmulation',
  'Extensions',
  'Fetch',
  'IO',
  'Memory',
  'Security',
  'Storage',
  'SystemInfo',
  'Target',
  'Tethering',
  'Tracing',
])

/**
 * Why the `Extensions` domain stays refused (Stagehand 4 asks it first): Chromium installs an
 * extension in the browser's profile, not in one context, and what it is allowed (`debugger`,
 * `tabs`, content scripts on every URL) reaches every errand of the browser
 * (docs/adr/0052-stagehand-4-extension-not-confined.md).
 */
const EXTENSIONS_REFUSED =
  "extensions belong to the whole browser, every errand's context, never to one errand; an errand's endpoint " +
  'neither lists nor loads them (Stagehand 4 needs its runtime extension: see the DevTools guide)'

/**
 * A browser-level command on a view (the root one or a client's browser session): the allowlist
 * decides. A method Chromium does not know gets its "wasn't found"; a known one off the list is
 * refused with the reason.
 *
 * @example
 * onBrowserCommand(view, { id: 1, method: 'Target.getTargets', params: {}, sessionId: undefined })
 */
export const onBrowserCommand = (view: BrowserView, command: Command): void => {
  const handler = Object.hasOwn(BROWSER_METHODS, command.method) ? BROWSER_METHODS[command.method] : undefined
  if (handler !== undefined) return handler(view, command)
  if (!knownMethod(command.method)) return view.unknown(command)
  // A page's domain sent to the browser (`Page.enable`, Playwright's `Runtime.runIfWaitingForDebugger`
  // when it detaches a browser session): Chromium has no such handler there and answers -32601.
  const domain = command.method.slice(0, command.method.indexOf('.'))
  if (!BROWSER_TARGET_DOMAINS.has(domain)) return view.unknown(command, false)
  if (domain === 'Extensions') return view.refuse(command, EXTENSIONS_REFUSED)
  view.refuse(
    command,
    `${command.method} is not on the allowlist of browser-level methods of an errand's DevTools endpoint`,
  )
}
