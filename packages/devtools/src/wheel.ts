/**
 * A person at the wheel, on the DevTools face (P1–P3, issue #26). While a person drives an errand
 * from the live view, HTTP and MCP agents are refused their acting verbs (409 `PersonDriving`); a
 * DevTools client is **paused** instead: its commands that act on the errand's pages are held —
 * queued in the order they came — and sent on when the wheel is handed back. Its WebSocket stays
 * open and its reads still answer; how long it waits for a held answer is the client's business.
 *
 * **The rule** ({@link actsOnPage}), the host's acting verbs (packages/host/src/browsing/driving.ts:
 * navigate, input, evaluate, dialog, viewport, open / activate / close tab, upload) spelt in CDP:
 * - every `Input.*` command (mouse, keys, touch, drag, text, gestures);
 * - navigations and what changes the page's document: `Page.navigate`, `reload`,
 *   `navigateToHistoryEntry`, `stopLoading`, `setDocumentContent`, `close`, `bringToFront`,
 *   `handleJavaScriptDialog`, and the DOM's writes (`DOM.setFileInputFiles`, `setAttributeValue`,
 *   `setOuterHTML`, `removeNode`, `focus`, `scrollIntoViewIfNeeded` …);
 * - running the page's JavaScript: `Runtime.evaluate`, `callFunctionOn`, `runScript` — except an
 *   evaluation sent with `throwOnSideEffect: true`, which V8 itself stops at its first side effect:
 *   that one is a read and answers;
 * - tabs: `Target.createTarget`, `closeTarget`, `activateTarget`;
 * - the viewport and window size, cookies and DOM storage written.
 * Everything else passes: reads (`DOM.getDocument`, `Page.captureScreenshot`,
 * `Runtime.getProperties`, `Page.getNavigationHistory` …), enabling domains and events, attaching,
 * and the answers a page is waiting for from the client's own interception (`Fetch.continueRequest`
 * …: holding them would stall the person's own page loads).
 *
 * The `Errands.*` domain, on the browser session (no `sessionId`, or a browser session of
 * `Target.attachToBrowserTarget`): `Errands.requestHelp {reason, timeoutMs?}` (the host's
 * `POST /v1/session/help`) and `Errands.getFilesFolder`; events `Errands.wheelTaken {}` and
 * `Errands.handedBack {note}`, sent to every client (Playwright, Puppeteer and
 * chrome-remote-interface let an event they do not know pass).
 *
 * @example
 * actsOnPage('Page.navigate', { url: 'https://example.com/' })             // true: held while a person drives
 * actsOnPage('Runtime.evaluate', { expression: 'document.title', throwOnSideEffect: true }) // false: a read
 */
import type { Command, Params } from './connection.ts'

/**
 * The longest `Errands.requestHelp` may wait (10 minutes), as `POST /v1/session/help`. @example HELP_MAX_TIMEOUT_MS //
 * 600000
 */
export const HELP_MAX_TIMEOUT_MS = 600_000
/**
 * How long `Errands.requestHelp` waits when it does not say (5 minutes), as `POST /v1/session/help`. @example
 * HELP_DEFAULT_TIMEOUT_MS // 300000
 */
export const HELP_DEFAULT_TIMEOUT_MS = 300_000
/** The shortest wait and the longest reason `POST /v1/session/help` takes. */
const HELP_MIN_TIMEOUT_MS = 100
const REASON_MAX = 500

/** Domains every command of which acts. */
const ACTING_DOMAINS: ReadonlySet<string> = new Set(['Input'])

/**
 * Commands held while a person drives (with every `Input.*` one, and evaluations that may have
 * side effects). See the file's doc for the rule.
 *
 * @example
 * ACTING_METHODS.has('DOM.setFileInputFiles') // true
 */
export const ACTING_METHODS: ReadonlySet<string> = new Set([
  'Page.navigate',
  'Page.reload',
  'Page.navigateToHistoryEntry',
  'Page.stopLoading',
  'Page.setDocumentContent',
  'Page.close',
  'Page.bringToFront',
  'Page.handleJavaScriptDialog',
  'Page.resetNavigationHistory',
  'Page.setWebLifecycleState',
  'Page.crash',
  'DOM.setFileInputFiles',
  'DOM.setAttributeValue',
  'DOM.setAttributesAsText',
  'DOM.setNodeValue',
  'DOM.setNodeName',
  'DOM.setOuterHTML',
  'DOM.removeNode',
  'DOM.removeAttribute',
  'DOM.moveTo',
  'DOM.copyTo',
  'DOM.undo',
  'DOM.redo',
  'DOM.focus',
  'DOM.scrollIntoViewIfNeeded',
  'Runtime.runScript',
  'Debugger.evaluateOnCallFrame',
  'Target.createTarget',
  'Target.closeTarget',
  'Target.activateTarget',
  'Emulation.setDeviceMetricsOverride',
  'Emulation.clearDeviceMetricsOverride',
  'Emulation.setVisibleSize',
  'Emulation.setPageScaleFactor',
  'Browser.setWindowBounds',
  'Browser.setContentsSize',
  'Storage.setCookies',
  'Storage.clearCookies',
  'Network.setCookie',
  'Network.setCookies',
  'Network.deleteCookies',
  'Network.clearBrowserCookies',
  'DOMStorage.setDOMStorageItem',
  'DOMStorage.removeDOMStorageItem',
  'DOMStorage.clear',
])

/** Evaluations: held unless V8 is told to stop them at a side effect. */
const EVALUATIONS: ReadonlySet<string> = new Set(['Runtime.evaluate', 'Runtime.callFunctionOn'])

/**
 * Whether a client's command acts on the errand's pages (held while a person drives) or reads.
 *
 * @example
 * actsOnPage('Input.dispatchMouseEvent', { type: 'mousePressed', x: 1, y: 1 }) // true
 * actsOnPage('DOM.getDocument', {})                                          // false
 */
export const actsOnPage = (method: string, params: Params): boolean => {
  if (EVALUATIONS.has(method)) return params.throwOnSideEffect !== true
  return ACTING_METHODS.has(method) || ACTING_DOMAINS.has(method.slice(0, method.indexOf('.')))
}

/** `Errands.requestHelp`'s params, checked. */
export interface HelpParams {
  readonly reason: string
  readonly timeoutMs: number
}

/**
 * `Errands.requestHelp`'s params with the defaults of `POST /v1/session/help`, or why they are bad
 * (the client gets -32602 with it).
 *
 * @example
 * helpParams({ reason: 'a captcha' })             // { reason: 'a captcha', timeoutMs: 300000 }
 * helpParams({ reason: '', timeoutMs: 5 })         // 'reason must be a string of 1–500 characters'
 */
export const helpParams = (params: Params): HelpParams | string => {
  const { reason, timeoutMs } = params
  if (typeof reason !== 'string' || reason.length < 1 || reason.length > REASON_MAX) {
    return (
      `reason must be a string of 1–${REASON_MAX} characters (why the agent needs a person, shown in the live ` +
      `view)`
    )
  }
  if (
    timeoutMs !== undefined &&
    (!Number.isSafeInteger(timeoutMs) ||
      (timeoutMs as number) < HELP_MIN_TIMEOUT_MS ||
      (timeoutMs as number) > HELP_MAX_TIMEOUT_MS)
  ) {
    return (
      `timeoutMs must be a whole number of milliseconds from ${HELP_MIN_TIMEOUT_MS} to ${HELP_MAX_TIMEOUT_MS} ` +
      `(default ${HELP_DEFAULT_TIMEOUT_MS})`
    )
  }
  return { reason, timeoutMs: (timeoutMs as number | undefined) ?? HELP_DEFAULT_TIMEOUT_MS }
}

/**
 * One connection's side of the wheel: whether a person drives its errand, the commands held
 * meanwhile, and the note of the hand-back to come.
 *
 * @example
 * const wheel = new WheelGate((c) => route(c), (method, params) => announce(method, params))
 * if (!wheel.hold(command)) route(command)
 * wheel.set(true) // Errands.wheelTaken
 */
export class WheelGate {
  private driving = false
  private note: string | null = null
  private readonly held: Array<Command> = []

  constructor(
    /** Sends a command on as if it had just come (the hand-back's flush). */
    private readonly route: (command: Command) => void,
    /** An event to the client's browser sessions. */
    private readonly announce: (method: string, params: Params) => void,
  ) {}

  /** Whether a person drives the errand now. */
  get personDriving(): boolean {
    return this.driving
  }

  /** Commands held for the hand-back. */
  get heldCount(): number {
    return this.held.length
  }

  /** Holds `command` when a person drives and it acts; false: send it on now. */
  hold(command: Command): boolean {
    if (!this.driving || !actsOnPage(command.method, command.params)) return false
    this.held.push(command)
    return true
  }

  /** The person's note, heard just before their hand-back (`Sessions.onHandBack`). */
  noteOf(note: string | null): void {
    if (this.driving) this.note = note
  }

  /**
   * The errand's view says a person drives (`true`) or not: on a change, the client is told
   * (`Errands.wheelTaken`, `Errands.handedBack {note}`) and, at the hand-back, what was held is
   * sent on in the order it came.
   */
  set(personDriving: boolean): void {
    if (personDriving === this.driving) return
    this.driving = personDriving
    if (personDriving) return this.announce('Errands.wheelTaken', {})
    const note = this.note
    this.note = null
    this.announce('Errands.handedBack', { note })
    for (const command of this.held.splice(0)) this.route(command)
  }

  /** The connection ended: nothing held is sent. */
  drop(): void {
    this.held.length = 0
  }
}
