/**
 * What the host's page verbs share: how they behave (`BrowsingOptions`), the services they work
 * on, the session book, and what one verb works with (`VerbScope`).
 */
import type { ContextId, RuntimeShape } from '@errands/runtime'
import type { SealedStoreShape } from '@errands/store'
import type { SessionsShape } from '@errands/sessions'
import type { HostSession, SessionBook } from './sessions.ts'

/**
 * How the verbs behave. No containment policy here: a navigation's URL is judged by the runtime
 * (its one rule, the egress's resolve-then-decide: docs/adr/0049-runtime-owns-the-page.md).
 */
export interface BrowsingOptions {
  /** Deadline of one page call. */
  readonly deadlineMs: number
  /** A screencast nobody reads for this long stops (default 30 s). */
  readonly screencastIdleMs?: number | undefined
  /** How long `frame` waits for the first screencast frame before taking a screenshot (default 1.5 s). */
  readonly firstFrameMs?: number | undefined
  /** Caps on what a client stages in an errand's files folder (#25; default 25 MiB a file, 100 MiB an errand). */
  readonly files?: { readonly maxFileBytes: number; readonly maxErrandBytes: number } | undefined
}

/** What a verb works with: the session's record and the context it drives right now. */
export interface VerbScope {
  readonly session: HostSession
  readonly contextId: ContextId
}

/** The services and state every part of the verbs shares (built once by `makeBrowsing`). */
export interface VerbCore {
  readonly options: BrowsingOptions
  /** The one session service (ADR 0027): errands are opened, driven, parked and closed through it. */
  readonly sessions: SessionsShape
  readonly runtime: RuntimeShape
  readonly store: SealedStoreShape
  readonly book: SessionBook
  /** Deadline of one page call (`options.deadlineMs`). */
  readonly deadline: number
}
