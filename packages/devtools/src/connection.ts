/**
 * A client connection as its parts see it: what it is set up with, a client's command, why it
 * ended, and what a browser view and the method table may ask of it. The proxy (proxy.ts), its
 * views (view.ts) and the allowlist (browserMethods.ts) share these without importing one another
 * in a circle: the proxy uses the views and the table, and they know the connection only by this.
 */
import type { GuardPolicy } from '@errands/guard'
import type { CdpChannel } from '@errands/runtime'
import type { HandBack } from '@errands/sessions'
import type { ClientDownloads } from './clientDownloads.ts'
import type { TargetInfo } from './targets.ts'

/** A command's params or an answer's result. @example const p: Params = { targetId: 'T1' } */
export type Params = Record<string, unknown>

/**
 * A client command being handled: its id, the session it came on, its params. @example const c: Command = { id: 1,
 * method: 'Browser.getVersion', params: {}, sessionId: undefined }
 */
export interface Command {
  readonly id: number
  readonly method: string
  readonly params: Params
  readonly sessionId: string | undefined
}

/**
 * How a proxy is set up. @example await ErrandProxy.connect({ connect: target.connect, browserContextId, policy, log,
 * name: 'session:k1' })
 */
export interface ProxyOptions {
  /** Opens the proxy's own channel into the errands' browser (never shown to the client). */
  readonly connect: () => Promise<CdpChannel>
  /** The errand's browser context id in that browser. */
  readonly browserContextId: string
  readonly policy: GuardPolicy
  readonly log: (line: string) => void
  /** How log lines name the errand (its conversation id; never a token or URL). */
  readonly name: string
  /** Deadline of the connection to the browser. */
  readonly deadlineMs?: number | undefined
  /** The errand's own files folder: the only place a client may name files (#27); none: no paths at all. */
  readonly filesDir?: string | undefined
  /** Where the engine kept a download, by Chromium's guid (`DevToolsTarget.download`, clientDownloads.ts). */
  readonly download?: ((guid: string) => Promise<string | undefined>) | undefined
  /** Commands of this client waiting for the browser at once; more are refused (#27, default `MAX_IN_FLIGHT`). */
  readonly maxInFlight?: number | undefined
  /** Browser sessions of this client at once (`Target.attachToBrowserTarget`, default `MAX_BROWSER_SESSIONS`). */
  readonly maxBrowserSessions?: number | undefined
  /**
   * Opens a helper errand of this errand for the client's `Target.createBrowserContext` (#22, E1):
   * its own context, counted against the cap. None: a second context is refused.
   */
  readonly openHelper?: (() => Promise<HelperContext>) | undefined
  /**
   * Asks a person for help with the errand (`Errands.requestHelp`, P3): the session service's
   * `askForHelp`, as `POST /v1/session/help`; `signal` aborts it when the client leaves. None:
   * `Errands.requestHelp` is refused.
   */
  readonly requestHelp?: ((reason: string, timeoutMs: number, signal: AbortSignal) => Promise<HandBack>) | undefined
}

/**
 * A helper errand's context, opened for a client's `browser.newContext()`.
 *
 * @example
 * const helper: HelperContext = { browserContextId: 'AB12…', close: () => release() }
 */
export interface HelperContext {
  /** Its browser context id (the client sees it as it is). */
  readonly browserContextId: string
  /** Releases the helper errand (the context and its tabs go). Idempotent. */
  readonly close: () => void
}

/**
 * Why a connection ended, as the client's close frame says it. @example proxy.close({ code: 4001, reason: 'parked' })
 */
export interface CloseReason {
  readonly code: number
  readonly reason: string
}

/**
 * What the connection needs of the view a command came on, to answer it later (a browser session
 * or a helper context opened, a session detached).
 *
 * @example
 * from.reply(command, { sessionId })
 */
export interface AnsweringView {
  /** The errand's targets (and the browser target) the view knows, by id. */
  readonly targets: ReadonlyMap<string, TargetInfo>
  reply(command: Command, result: Params): void
  refuse(command: Command, why: string): void
  emit(method: string, params: Params, sessionId?: string): void
}

/**
 * What a browser view and the browser-level methods ask of the client connection they are part
 * of (`ErrandProxy` is one).
 *
 * @example
 * view.connection.close({ code: 1000, reason: 'Browser.close ends only this connection; the errand goes on.' })
 */
export interface ViewConnection {
  readonly options: ProxyOptions
  /** Windows of the errand's targets the client asked for: the only ones it may move or resize. */
  readonly windows: Set<number>
  /** The errand's browser context id as this client sees it. */
  readonly alias: string
  /** The client's download behaviours and copies (clientDownloads.ts). */
  readonly downloads: ClientDownloads
  /** Whether a person drives the errand now (the client's acting commands are held, wheel.ts). */
  readonly personDriving: boolean
  close(why: CloseReason): void
  /** Whether `browserContextId` (as the browser names it) is the errand's or one of its helpers' here. */
  owns(browserContextId: unknown): boolean
  /** The browser's id of a context the client named; undefined: not one of ours. */
  realContext(named: unknown): string | undefined
  helperIds(): Array<string>
  openBrowserSession(from: AnsweringView, command: Command): void
  closeBrowserSession(from: AnsweringView, sessionId: string): boolean
  openHelperContext(from: AnsweringView, command: Command): void
  closeHelperContext(browserContextId: unknown): boolean
  /** Refuses `command` (-32000 with `why`; -32601 without, not logged when `logged` is false). */
  refused(command: Command, why: string | undefined, viewSession?: string, logged?: boolean): void
  toClient(message: Params): void
  sendToClient(text: string): void
  /** A client command went to the browser (the in-flight limit). */
  began(): void
  /** A client command's answer came back, or will not. */
  settled(): void
}
