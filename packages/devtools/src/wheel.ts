/**
 * A person at the wheel, on the DevTools face (P1–P3). While a person drives an errand from the
 * live view, HTTP and MCP agents are refused their acting verbs (409 `PersonDriving`); a DevTools
 * client is **paused** instead: its commands that act are held — queued in the order they came —
 * and sent on when the wheel is handed back. Its WebSocket stays open and its reads still answer;
 * how long it waits for a held answer is the client's business.
 *
 * **The rule** is the one of every face, deny by default: `acts('devtools', method, params)` of
 * `@errands/runtime` (acting.ts). Only the methods it names as reads pass — `DOM.getDocument`,
 * `Page.captureScreenshot`, enabling domains, attaching — and so does an evaluation sent with
 * `throwOnSideEffect: true`, which V8 itself stops at its first side effect. Everything else is
 * held: input, navigations, script (`Runtime.evaluate`, `Page.addScriptToEvaluateOnNewDocument`,
 * breakpoints), CSS and DOM writes, `Fetch.*` answers, and any method Chromium adds later.
 * What the client set up **before** the take is the business of drive.ts: its interception is
 * answered by the endpoint and its breakpoints are off for the drive (ADR "a person's wheel is
 * deny by default").
 *
 * The `Errands.*` domain, on the browser session (no `sessionId`, or a browser session of
 * `Target.attachToBrowserTarget`): `Errands.requestHelp {reason, timeoutMs?}` (the host's
 * `POST /v1/session/help`) and `Errands.getFilesFolder`; events `Errands.wheelTaken {}` and
 * `Errands.handedBack {note}`, sent to every client (Playwright, Puppeteer and
 * chrome-remote-interface let an event they do not know pass).
 *
 * @example
 * const wheel = new WheelGate(route, announce, suspend)
 * wheel.set(true)  // Errands.wheelTaken; what acts is held from now
 * wheel.hold({ id: 1, method: 'Page.navigate', params: { url }, sessionId: 'S1' }) // true: held
 */
import { acts } from '@errands/runtime'
import {
  HELP_DEFAULT_TIMEOUT_MS,
  HELP_MAX_TIMEOUT_MS,
  HELP_MIN_TIMEOUT_MS,
  HELP_REASON_MAX as REASON_MAX,
  HelpRequest,
} from '@errands/sessions'
import { Either, ParseResult, Schema } from 'effect'
import type { Command, Params } from './connection.ts'

export { HELP_DEFAULT_TIMEOUT_MS, HELP_MAX_TIMEOUT_MS } from '@errands/sessions'

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
  // The one rule of a request for help (HelpRequest of @errands/sessions), in this protocol's words.
  const decoded = Schema.decodeUnknownEither(HelpRequest)({ reason: params.reason, timeoutMs: params.timeoutMs })
  if (Either.isRight(decoded))
    return { reason: decoded.right.reason, timeoutMs: decoded.right.timeoutMs ?? HELP_DEFAULT_TIMEOUT_MS }
  const [first] = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
  return first?.path[0] === 'timeoutMs'
    ? `timeoutMs must be a whole number of milliseconds from ${HELP_MIN_TIMEOUT_MS} to ${HELP_MAX_TIMEOUT_MS} ` +
        `(default ${HELP_DEFAULT_TIMEOUT_MS})`
    : `reason must be a string of 1–${REASON_MAX} characters (why the agent needs a person, shown in the live view)`
}

/**
 * One connection's side of the wheel: whether a person drives its errand, the commands held
 * meanwhile, and the note of the hand-back to come.
 *
 * @example
 * const wheel = new WheelGate((c) => route(c), (method, params) => announce(method, params), (on) => suspend(on))
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
    /**
     * What the client set up before is suspended for the drive (`true`, before the client hears the
     * take) or put back (`false`, before anything held is sent): drive.ts.
     */
    private readonly suspend: (personDriving: boolean) => void = () => undefined,
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
    if (!this.driving || !acts('devtools', command.method, command.params)) return false
    this.held.push(command)
    return true
  }

  /** The person's note, heard just before their hand-back (`Sessions.onHandBack`). */
  noteOf(note: string | null): void {
    if (this.driving) this.note = note
  }

  /**
   * The errand's view says a person drives (`true`) or not: on a change, what the client set up
   * is suspended or put back, the client is told (`Errands.wheelTaken`, `Errands.handedBack
   * {note}`) and, at the hand-back, what was held is sent on in the order it came.
   */
  set(personDriving: boolean): void {
    if (personDriving === this.driving) return
    this.driving = personDriving
    this.suspend(personDriving)
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
