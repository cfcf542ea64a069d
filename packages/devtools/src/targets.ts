/**
 * What the DevTools proxy knows about targets and what it lets a client pass: CDP's target
 * filters (`Target.setDiscoverTargets` / `setAutoAttach` / `getTargets`), the errand's
 * browser context id as the client sees it, and the checks of methods sent on a client's own
 * (flatten) sessions.
 *
 * @example
 * matchesFilter('tab', undefined) // false: by default CDP leaves out tab and browser targets
 * matchesFilter('tab', [{}])      // true
 */

/** One entry of a CDP `TargetFilter`. @example const entry: FilterEntry = { type: 'page', exclude: true } */
export interface FilterEntry {
  readonly type?: string | undefined
  readonly exclude?: boolean | undefined
}

/** What CDP assumes when a method gets no filter: everything but `browser` and `tab` targets. */
const DEFAULT_FILTER: ReadonlyArray<FilterEntry> = [
  { type: 'browser', exclude: true },
  { type: 'tab', exclude: true },
  {},
]

/**
 * Whether a target of `type` passes `filter` the way Chromium decides it: the first entry whose
 * type matches (or has none) decides; no entry matching means excluded.
 *
 * @example
 * matchesFilter('page', [{ type: 'page', exclude: true }, {}]) // false
 */
export const matchesFilter = (type: string, filter: unknown): boolean => {
  const entries = Array.isArray(filter) ? (filter as ReadonlyArray<FilterEntry>) : DEFAULT_FILTER
  for (const entry of entries) {
    if (typeof entry !== 'object' || entry === null) continue
    if (entry.type === undefined || entry.type === type) return entry.exclude !== true
  }
  return false
}

/**
 * A CDP target's info as Chromium reports it (the fields the proxy reads). @example const t: TargetInfo = { targetId:
 * 'T1', type: 'page' }
 */
export interface TargetInfo {
  readonly targetId: string
  readonly type: string
  readonly browserContextId?: string | undefined
  readonly [field: string]: unknown
}

/**
 * Methods that take a `browserContextId` (every one of `devtools-protocol`'s, A1/#27): without
 * one, Chromium acts on its **default** context — a context every errand's client would share and
 * no errand owns. On any session the proxy forces the errand's own context into them (or refuses
 * when another is named).
 *
 * @example
 * CONTEXT_METHODS.has('Storage.setCookies') // true
 */
export const CONTEXT_METHODS: ReadonlySet<string> = new Set([
  'Browser.setPermission',
  'Browser.grantPermissions',
  'Browser.resetPermissions',
  'Browser.setDownloadBehavior',
  'Browser.cancelDownload',
  'Storage.getCookies',
  'Storage.setCookies',
  'Storage.clearCookies',
  'Target.createTarget',
  'Target.disposeBrowserContext',
])

/**
 * Session methods whose `url` the guard decides first: navigations, and rewrites of a paused
 * request's URL (a client's own Fetch interception must not send a request where the guard would
 * not let it go).
 *
 * @example
 * URL_METHODS.has('Page.navigate') // true
 */
export const URL_METHODS: ReadonlySet<string> = new Set([
  'Page.navigate',
  'Network.loadNetworkResource',
  'Fetch.continueRequest',
  'Network.continueInterceptedRequest',
])

/**
 * Methods a client may send on one of its own sessions (a tab, page, worker of the errand) in the
 * domains that also act on the whole browser: there only these pass. Every other method of a
 * session is the target's own (Page, Runtime, Network …) and is forwarded.
 *
 * @example
 * SESSION_METHODS['Target']?.has('setAutoAttach') // true
 */
export const SESSION_METHODS: Readonly<Record<string, ReadonlySet<string>>> = {
  // Attaching to the session's own children (frames, workers, the page under a tab) and reading itself.
  Target: new Set(['setAutoAttach', 'getTargetInfo', 'detachFromTarget', 'activateTarget']),
  // Windows: Puppeteer's page.windowId() / resize() ask on the page's own session; the view
  // checks the target and that the window is one of the errand's.
  Browser: new Set(['getVersion', 'getWindowForTarget', 'getWindowBounds', 'setWindowBounds', 'setContentsSize']),
  SystemInfo: new Set(),
  Tethering: new Set(),
  Extensions: new Set(),
  PWA: new Set(),
  // Tracing and the browser's sampling profile record every process of the browser.
  Tracing: new Set(),
  Memory: new Set([
    'getDOMCounters',
    'getDOMCountersForLeakDetection',
    'prepareForLeakDetection',
    'forciblyPurgeJavaScriptMemory',
    'startSampling',
    'stopSampling',
    'getSamplingProfile',
  ]),
}

/**
 * Why a session-level method is refused, or undefined when it passes the domain check.
 *
 * @example
 * refusedOnSession('Browser.close') // 'Browser.close acts on the whole browser; …'
 */
export const refusedOnSession = (method: string): string | undefined => {
  const dot = method.indexOf('.')
  const allowed = SESSION_METHODS[method.slice(0, dot)]
  if (allowed === undefined || allowed.has(method.slice(dot + 1))) return undefined
  return `${method} acts beyond this tab; on an errand's DevTools endpoint it is not allowed`
}
