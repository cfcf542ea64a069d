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

/** One entry of a CDP `TargetFilter`. */
export interface FilterEntry {
  readonly type?: string | undefined
  readonly exclude?: boolean | undefined
}

/** What CDP assumes when a method gets no filter: everything but `browser` and `tab` targets. */
const DEFAULT_FILTER: ReadonlyArray<FilterEntry> = [{ type: 'browser', exclude: true }, { type: 'tab', exclude: true }, {}]

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

/** A CDP target's info as Chromium reports it (the fields the proxy reads). */
export interface TargetInfo {
  readonly targetId: string
  readonly type: string
  readonly browserContextId?: string | undefined
  readonly [field: string]: unknown
}

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
  Browser: new Set(['getVersion']),
  SystemInfo: new Set(),
  Tethering: new Set(),
  Extensions: new Set(),
  PWA: new Set(),
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
