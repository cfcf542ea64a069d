/**
 * What a DevTools client set up **before** a person took the wheel, and would still reach the
 * person's pages while they drive (P1; ADR "a person's wheel is deny by default"). Holding the
 * client's commands (wheel.ts) stops what it sends during the drive; these two were sent before:
 *
 * - **Its request interception** (`Fetch.enable`): a paused request would wait for the client's
 *   answer — and the client could answer the person's own click with a page of its own
 *   (`Fetch.fulfillRequest`: "please re-enter your password" at the real URL). While a person
 *   drives, the endpoint answers every request the client's interception pauses itself, as it
 *   came (`Fetch.continueRequest`, `Fetch.continueWithAuth` with the browser's default), and the
 *   client never sees it; requests it was shown and had not answered at the take are continued
 *   the same way. An answer the client sends later is held like every acting command and, sent at
 *   the hand-back, gets Chromium's own error for a request that is no longer paused: refused,
 *   never silently dropped. The interception itself stays on: after the hand-back the client
 *   intercepts again.
 * - **Its breakpoints** (`Debugger.setBreakpoint*`, DOM and event breakpoints, pause on
 *   exceptions): a conditional breakpoint's condition is the agent's script, run in the person's
 *   page on every hit, and a pause freezes the page under the person. For the drive, on every
 *   session of the client's where the debugger is on, breakpoints are made inactive (then V8
 *   evaluates no condition — measured: with `setSkipAllPauses` alone a condition still ran) and
 *   every pause is skipped; a page paused at the take is resumed. At the hand-back the client's
 *   own `setBreakpointsActive` / `setSkipAllPauses` values are put back, before its held commands.
 *
 * What else the client set before the take stays as it was (the page as the person found it):
 * CSS it injected, emulation, scripts it registered for new documents. See the ADR.
 *
 * @example
 * const drive = new DriveSuspension((method, params, sessionId) => view.internal(method, params, sessionId))
 * drive.sent(command)                                  // every client command sent on a page session
 * if (drive.event(sessionId, method, params, driving)) return // answered here, not the client's
 * drive.take() // … drive.handBack()
 */
import type { Command, Params } from './connection.ts'

/** Sends a command of the endpoint's own on a session (its answer is not the client's). */
export type SendOwn = (method: string, params: Params, sessionId: string) => Promise<unknown>

/** A request the client's interception paused and the client has not answered yet. */
interface Paused {
  readonly sessionId: string
  readonly requestId: string
  readonly auth: boolean
}

/** The client's own debugger switches on one session. */
interface DebuggerSwitches {
  active: boolean
  skip: boolean
}

/** The client's answers to a paused request: each ends it. */
const ANSWERS: ReadonlySet<string> = new Set([
  'Fetch.continueRequest',
  'Fetch.fulfillRequest',
  'Fetch.failRequest',
  'Fetch.continueResponse',
  'Fetch.continueWithAuth',
])

const key = (sessionId: string, requestId: unknown) => `${sessionId} ${String(requestId)}`

/**
 * One browser view's side of the drive: the client's paused requests and debugger switches, by
 * session, and what to do with them at the take and the hand-back.
 *
 * @example
 * view.drive.take() // the person took the wheel
 */
export class DriveSuspension {
  private readonly paused = new Map<string, Paused>()
  private readonly debuggers = new Map<string, DebuggerSwitches>()
  /** Sessions whose page the client's debugger holds paused now. */
  private readonly stopped = new Set<string>()

  constructor(private readonly send: SendOwn) {}

  /** A client command sent on to a page session (never one held): what it answers or switches. */
  sent(command: Command): void {
    const sessionId = command.sessionId
    if (sessionId === undefined) return
    const p = command.params
    if (ANSWERS.has(command.method)) {
      this.paused.delete(key(sessionId, p.requestId))
      return
    }
    switch (command.method) {
      case 'Debugger.enable':
        if (!this.debuggers.has(sessionId)) this.debuggers.set(sessionId, { active: true, skip: false })
        return
      case 'Debugger.disable':
        this.debuggers.delete(sessionId)
        this.stopped.delete(sessionId)
        return
      case 'Debugger.setBreakpointsActive': {
        const switches = this.debuggers.get(sessionId)
        if (switches !== undefined) switches.active = p.active === true
        return
      }
      case 'Debugger.setSkipAllPauses': {
        const switches = this.debuggers.get(sessionId)
        if (switches !== undefined) switches.skip = p.skip === true
        return
      }
    }
  }

  /**
   * An event of a page session: true when the endpoint answers it itself (a person drives) and it
   * is not the client's; false: it goes to the client (and is remembered when it waits for one).
   */
  event(sessionId: string, method: string, params: Params, personDriving: boolean): boolean {
    switch (method) {
      case 'Fetch.requestPaused':
      case 'Fetch.authRequired': {
        const paused: Paused = { sessionId, requestId: String(params.requestId), auth: method === 'Fetch.authRequired' }
        if (personDriving) {
          this.release(paused)
          return true
        }
        this.paused.set(key(sessionId, paused.requestId), paused)
        return false
      }
      case 'Debugger.paused':
        if (personDriving) {
          this.resume(sessionId)
          return true
        }
        this.stopped.add(sessionId)
        return false
      case 'Debugger.resumed':
        this.stopped.delete(sessionId)
        return false
      default:
        return false
    }
  }

  /** A person took the wheel: the client's paused requests go on, its breakpoints are off, its pause ends. */
  take(): void {
    for (const paused of this.paused.values()) this.release(paused)
    this.paused.clear()
    for (const sessionId of this.debuggers.keys()) {
      this.own('Debugger.setBreakpointsActive', { active: false }, sessionId)
      this.own('Debugger.setSkipAllPauses', { skip: true }, sessionId)
    }
    for (const sessionId of this.stopped) this.resume(sessionId)
    this.stopped.clear()
  }

  /** The person handed back: the client's own debugger switches, as it left them. */
  handBack(): void {
    for (const [sessionId, switches] of this.debuggers) {
      this.own('Debugger.setBreakpointsActive', { active: switches.active }, sessionId)
      this.own('Debugger.setSkipAllPauses', { skip: switches.skip }, sessionId)
    }
  }

  /** A session went (detached, its target closed): nothing of it is kept. */
  forget(sessionId: string): void {
    this.debuggers.delete(sessionId)
    this.stopped.delete(sessionId)
    for (const [k, paused] of this.paused) if (paused.sessionId === sessionId) this.paused.delete(k)
  }

  /** The request goes on as it came: the browser's own answer to a challenge, the request unchanged. */
  private release(paused: Paused): void {
    if (paused.auth) {
      this.own(
        'Fetch.continueWithAuth',
        { requestId: paused.requestId, authChallengeResponse: { response: 'Default' } },
        paused.sessionId,
      )
    } else this.own('Fetch.continueRequest', { requestId: paused.requestId }, paused.sessionId)
  }

  private resume(sessionId: string): void {
    this.own('Debugger.resume', {}, sessionId)
  }

  // A request the client answered meanwhile, a session that went, a debugger the client switched
  // off in the same moment: Chromium's error says so, and there is nothing left to do.
  private own(method: string, params: Params, sessionId: string): void {
    void this.send(method, params, sessionId).catch(() => undefined)
  }
}
