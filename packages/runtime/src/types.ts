import type { UpstreamProxy } from './upstream.ts'

/**
 * The data a runtime holds for a context, in the shapes Playwright's `storageState()` uses,
 * so a real browser's state and the deterministic runtime's state compare field by field.
 *
 * @example
 * const empty: StorageState = { cookies: [], origins: [] }
 */

/** A cookie as Playwright reports it (`expires` is seconds since the epoch, `-1` for a session cookie). */
export interface Cookie {
  readonly name: string
  readonly value: string
  readonly domain: string
  readonly path: string
  readonly expires: number
  readonly httpOnly: boolean
  readonly secure: boolean
  readonly sameSite: 'Strict' | 'Lax' | 'None'
}

/** One origin's localStorage (or one tab's sessionStorage of an origin). IndexedDB is never in it (L4). */
export interface OriginStorage {
  readonly origin: string
  readonly localStorage: ReadonlyArray<{ readonly name: string; readonly value: string }>
}

/**
 * Cookies and localStorage of a context, without IndexedDB and without passkeys: what lending
 * copies and takes back (L4). An errand's own IndexedDB travels beside it in its {@link Snapshot}.
 */
export interface StorageState {
  readonly cookies: ReadonlyArray<Cookie>
  readonly origins: ReadonlyArray<OriginStorage>
}

/** The empty storage state. */
export const emptyStorage: StorageState = { cookies: [], origins: [] }

/** Identifies a browser context inside one runtime. `"main"` is the person's signed-in context. */
export type ContextId = string

/** The id of the person's main context in every runtime. */
export const MAIN_CONTEXT: ContextId = 'main'

/** Why a context is isolated — carried by every tab so the live view can say so (E6). */
export type IsolationReason = 'task' | 'helper' | 'own-browser' | 'main'

/** What each tab of a context carries about its session (E6). Names and sites only: never secrets. */
export interface SessionLabel {
  readonly reason: IsolationReason
  /** Registrable domains whose sign-ins were lent to this context, sorted. */
  readonly lentSites: ReadonlyArray<string>
}

/** A tab as the runtime sees it. `id` is unique within its context only. */
export interface TabInfo {
  readonly id: string
  readonly url: string
  readonly title: string
  readonly active: boolean
  readonly session: SessionLabel
}

/** A tab to (re)open: its URL and whether it is the active one. */
export interface TabSpec {
  readonly url: string
  readonly active: boolean
  /**
   * The tab's id when it was snapshotted. A context reopened from the snapshot gives the tab the
   * same id, so the ids an agent holds stay valid across a park it never saw (C2) or a heal;
   * records sealed before ids were kept have none (the tabs are numbered afresh).
   */
  readonly id?: string
  /**
   * The tab's sessionStorage for the origin it shows (E7), written into its first document of
   * that origin before the page's scripts run. Other origins of the tab's history are not kept.
   */
  readonly sessionStorage?: OriginStorage | undefined
}

/**
 * One IndexedDB database of an origin, as a snapshot keeps it (E7): its stores, indexes, keys and
 * values as one JSON text in the runtime's clone encoding — opaque above the runtime, and its
 * length is what the per-errand cap counts.
 */
export interface IndexedDbDatabase {
  readonly name: string
  readonly version: number
  readonly data: string
}

/** An origin's IndexedDB databases (E7). */
export interface OriginIndexedDb {
  readonly origin: string
  readonly databases: ReadonlyArray<IndexedDbDatabase>
}

/**
 * A database a snapshot left out, by its origin only (its name may say too much, L7): over the
 * errand's cap (`over-cap`), holding a value no script can read back (`unsupported`: a
 * non-extractable CryptoKey …), or not readable at all (`unreadable`).
 */
export interface IndexedDbLeftOut {
  readonly origin: string
  readonly reason: 'over-cap' | 'unsupported' | 'unreadable'
}

/**
 * The id for a tab (re)opened into a context: `wanted` (a `TabSpec.id`) when it is a free
 * `t<n>`, else `t<next>`. Returns the id and the next number to hand out, which is always past
 * both, so later tabs number after a kept id. Every runtime numbers tabs through this.
 *
 * @example
 * tabIdFor('t5', (id) => false, 1) // { id: 't5', next: 6 }
 * tabIdFor(undefined, () => false, 6) // { id: 't6', next: 7 }
 */
export const tabIdFor = (
  wanted: string | undefined,
  taken: (id: string) => boolean,
  next: number,
): { readonly id: string; readonly next: number } => {
  const n = wanted === undefined ? NaN : Number(/^t([1-9]\d{0,8})$/.exec(wanted)?.[1])
  if (wanted !== undefined && Number.isInteger(n) && !taken(wanted)) return { id: wanted, next: Math.max(next, n + 1) }
  return { id: `t${next}`, next: next + 1 }
}

/**
 * What an errand holds: enough to bring it back as it was (H1, E4).
 * `takenAt` is stamped by the supervisor from its clock, never by a runtime.
 */
export interface Snapshot {
  readonly storage: StorageState
  readonly tabs: ReadonlyArray<TabSpec>
  readonly takenAt: number
  /** The errand's own IndexedDB (E7), every origin it used: never lent, so never in `storage` (L4). */
  readonly indexedDB?: ReadonlyArray<OriginIndexedDb> | undefined
  /** Databases this read left out (said in health; not sealed: the next snapshot says again). */
  readonly leftOut?: ReadonlyArray<IndexedDbLeftOut> | undefined
}

/** What `openContext` needs: who it is for, its label and, for resume/heal/seed, what to restore. */
export interface OpenContextSpec {
  readonly errandId: string
  readonly label: SessionLabel
  /** Storage to put into the fresh context before any page runs (seed, resume, heal). */
  readonly storage?: StorageState | undefined
  /** The errand's own IndexedDB to put back before any page of it runs (resume, heal; E7). */
  readonly indexedDB?: ReadonlyArray<OriginIndexedDb> | undefined
  /** Tabs to reopen, in order (with their sessionStorage). With none, the context starts with one blank tab. */
  readonly tabs?: ReadonlyArray<TabSpec> | undefined
  /**
   * The errand's own upstream proxy (issue #21), a secret: its connections leave through it from
   * the first one on. A runtime that cannot chain this context through a proxy fails the open
   * (`RuntimeError('invalid')`) rather than connect direct.
   */
  readonly upstreamProxy?: UpstreamProxy | undefined
}

/**
 * What a runtime reports on its own. Adapters turn browser failures into these three kinds
 * (plus page loads); the errand machine decides what to do.
 */
export type RuntimeEvent =
  | { readonly _tag: 'PageLoaded'; readonly contextId: ContextId; readonly tabId: string }
  | { readonly _tag: 'ContextCrashed'; readonly contextId: ContextId }
  | { readonly _tag: 'BrowserCrashed'; readonly contextIds: ReadonlyArray<ContextId> }

/**
 * One CDP message, either way (a command, its answer, or an event).
 *
 * @example
 * const m: CdpMessage = { id: 1, method: 'Target.getTargets', params: {} }
 */
export interface CdpMessage {
  readonly id?: number | undefined
  readonly method?: string | undefined
  readonly params?: Record<string, unknown> | undefined
  readonly sessionId?: string | undefined
  readonly result?: unknown
  readonly error?: unknown
}

/**
 * A CDP connection into a real browser that looks like a root connection to its user, but is a
 * browser session of the engine's own connection (A1, A4: no TCP port of Chromium, ADR 0016).
 * Messages without a `sessionId` go to that browser session.
 *
 * @example
 * const channel = await target.connect()
 * channel.onMessage((m) => m.method === 'Target.targetCreated' && console.log(m.params))
 * channel.send({ id: 1, method: 'Target.setDiscoverTargets', params: { discover: true } })
 */
export interface CdpChannel {
  readonly send: (message: CdpMessage) => void
  readonly onMessage: (listener: (message: CdpMessage) => void) => void
  /** Called once when the channel ends (closed, or the browser went away). */
  readonly onClose: (listener: (reason: string) => void) => void
  /** Detaches every session of the channel. Idempotent. */
  readonly close: () => void
}

/**
 * Where a CDP client can reach one context of a real browser (A1): a channel into the browser
 * over the engine's own connection, the context's id in that browser, and the errand's files
 * folder. Only the engine's DevTools proxy (`@errands/devtools`) ever uses it; the channel reaches
 * every context of that browser, so it is never handed to an agent.
 *
 * @example
 * const target: DevToolsTarget = { browserContextId: 'E711FD…', connect, attach: () => clients.attach(id), filesDir:
 * '/tmp/errands-files-x/a1' }
 */
export interface DevToolsTarget {
  readonly browserContextId: string
  /** Opens a fresh channel (one per client connection). */
  readonly connect: () => Promise<CdpChannel>
  /**
   * Counts a client in while its connection is open (the engine leaves the errand's JavaScript
   * dialogs to it, A4); the returned function counts it out (idempotent).
   */
  readonly attach: () => () => void
  /** The errand's own folder: the only place a client may name files of the engine's machine (A1). */
  readonly filesDir?: string | undefined
  /**
   * Where the engine kept the download Chromium names `guid` (a file of its errand's folder, listed
   * like every download), once it has finished and been saved; undefined when it was not kept (over
   * the files caps, failed, or not a download of this runtime's errands within the deadline). The
   * DevTools proxy hands the client its copy from it (docs/devtools-endpoint.md).
   */
  readonly download?: ((guid: string) => Promise<string | undefined>) | undefined
}
