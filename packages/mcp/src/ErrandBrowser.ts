/**
 * What the MCP tools need from the engine: one errand, already bound to its session key, driven
 * through the same calls the host's HTTP verbs use (A3). The host implements it over its
 * `Browsing` service (`@errands/host`'s `errandBrowserOf`); this package never reaches the
 * supervisor or Chromium by another way, and never imports the host (imports go one way).
 *
 * Every method drives the errand: the first call opens it, a parked one is resumed, a crashed one
 * healed; while a call runs it is never parked to make room.
 *
 * @example
 * const summary = yield* errand.navigate('http://127.0.0.1:3000/')
 * const yaml = yield* onPlaywrightPage(errand, 'snapshot', (page) => page.ariaSnapshot({ mode: 'ai' }))
 */
import type { RawPage } from '@errands/runtime'
import type { Effect } from 'effect'
import type { ToolResult } from './remote.ts'

/**
 * A failure of an engine call, as every typed error of the engine is: a tag and a message a model
 * can act on (`AllBusy` says "wait a minute and try again", `BlockedByPolicy` names the rule).
 *
 * @example
 * const f: EngineFailure = { _tag: 'AllBusy', message: 'All 4 browser slots are busy; wait a minute and try again.' }
 */
export interface EngineFailure {
  readonly _tag: string
  readonly message: string
}

/** Where the active tab is after a call. @example const { url, title, tab } = summary */
export interface PageAt {
  readonly url: string
  readonly title: string
  /** The tab's id in this session (opaque). */
  readonly tab: string
}

/** One tab of the errand. @example tabs.find((t) => t.active) */
export interface TabAt {
  readonly id: string
  readonly url: string
  readonly title: string
  readonly active: boolean
}

/** A download of the errand, as `GET /v1/session/downloads` lists it. */
export interface DownloadAt {
  readonly name: string
  readonly size: number
  readonly type: string
  readonly at: number
  readonly source: string
}

/** What the tools reach of the errand's files folder. */
export interface ErrandFilesAccess {
  readonly downloads: () => Effect.Effect<ReadonlyArray<DownloadAt>, EngineFailure>
  readonly read: (
    name: string,
  ) => Effect.Effect<{ readonly bytes: Uint8Array; readonly type: string } | undefined, EngineFailure>
}

/** One errand, bound to a session key. @example const at = yield* errand.navigate('http://127.0.0.1:3000/') */
export interface ErrandBrowser {
  /** The session key the errand is bound to (what a backend or a reconnect names). */
  readonly key: string
  /** Navigates the active tab; the containment policy decides first (a refused URL touches nothing). */
  readonly navigate: (url: string) => Effect.Effect<PageAt, EngineFailure>
  readonly back: () => Effect.Effect<PageAt, EngineFailure>
  readonly tabs: () => Effect.Effect<ReadonlyArray<TabAt>, EngineFailure>
  /** Opens a tab at `url` (policy-checked) and makes it active. */
  readonly openTab: (url: string) => Effect.Effect<TabAt, EngineFailure>
  readonly activateTab: (id: string) => Effect.Effect<ReadonlyArray<TabAt>, EngineFailure>
  readonly closeTab: (id: string) => Effect.Effect<ReadonlyArray<TabAt>, EngineFailure>
  /**
   * Runs `run` on the active tab's page while driving the errand, under the engine's deadline.
   * The page is the runtime's opaque `RawPage` (its declared escape hatch, #24); the tools see
   * it as Playwright's through `onPlaywrightPage`. `tab` is the active tab's id. Failures come
   * back as the engine's few kinds (timeout, target closed, crashed, refused).
   */
  readonly onPage: <A>(what: string, run: (page: RawPage, tab: string) => Promise<A>) => Effect.Effect<A, EngineFailure>
  /**
   * Answers the errand's waiting JavaScript dialog (#22): what it was, or a failure whose
   * message says none waits. Absent where the engine holds no dialogs.
   */
  readonly dialog?:
    | ((how: {
        readonly accept: boolean
        readonly promptText?: string | undefined
      }) => Effect.Effect<{ readonly type: string; readonly message: string }, EngineFailure>)
    | undefined
  /**
   * Asks the person for a site's sign-in and waits for their answer (P4, issue #26): lent, or why
   * not, in words. Absent where the engine has nobody to ask.
   */
  readonly requestSignIn?:
    | ((
        site: string,
        timeoutMs?: number,
      ) => Effect.Effect<
        { readonly site: string; readonly lent: boolean; readonly why: string; readonly message: string },
        EngineFailure
      >)
    | undefined
  /**
   * The wheel check for a tool (P1): the words to refuse it with while a person has the wheel and
   * it acts (the boundary's `wheelRefusal`, `PersonDriving`'s message), or `undefined` to run it.
   * Absent where nobody can take the wheel.
   */
  readonly wheelRefusal?: ((tool: string) => string | undefined) | undefined
  /**
   * Asks a person for help and waits for their hand-back (P3, issue #26): handed back with their
   * note, or the time ran out. Absent where the engine has nobody to ask.
   */
  readonly requestHelp?:
    | ((
        reason: string,
        timeoutMs?: number,
      ) => Effect.Effect<
        | { readonly handedBack: true; readonly note: string | null }
        | { readonly handedBack: false; readonly reason: 'timeout' },
        EngineFailure
      >)
    | undefined
  /**
   * Fills the person's saved sign-in for the active tab's site with stand-ins (W2, W3;
   * docs/passwords.md); targets are selectors. Absent where the engine keeps no passwords.
   */
  readonly fillPassword?:
    | ((targets: {
        readonly password: string
        readonly username?: string | undefined
        readonly totp?: string | undefined
        readonly site?: string | undefined
        readonly user?: string | undefined
      }) => Effect.Effect<{ readonly site: string; readonly user: string; readonly filled: number }, EngineFailure>)
    | undefined
  /**
   * A tool call for an errand held by another host (a cluster's, #24): runs it there and answers
   * with its result; `undefined` while the errand is held here. Absent on a single host.
   */
  readonly elsewhere?:
    | ((tool: string, args: unknown) => Effect.Effect<ToolResult, EngineFailure> | undefined)
    | undefined
  /**
   * The errand's own files folder (issue #25, docs/files.md) — the same one `/v1/upload` and
   * `POST /v1/session/files` use: its downloads, and one file's bytes by plain name (none when
   * absent). Absent where the engine keeps no files for errands.
   */
  readonly files?: ErrandFilesAccess | undefined
  /** The MCP session ended: park the errand (lossless, E4), resumable with the same key. */
  readonly park: () => Effect.Effect<void>
  /** The MCP session ended and nobody can name its key again: forget the errand. */
  readonly release: () => Effect.Effect<void>
}
