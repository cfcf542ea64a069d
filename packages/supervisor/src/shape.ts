/**
 * The supervisor's operations as a type: what the `Supervisor` service offers its callers.
 */
import type { TaskStatus } from '@errands/machines'
import type { ContextError, ContextId, Snapshot, UpstreamProxy } from '@errands/runtime'
import type { StoreError } from '@errands/store'
import type { Effect } from 'effect'
import type { SnapshotAmendment } from './amendments.ts'
import type { SupervisorError, UnknownConversation } from './errors.ts'
import type { Capacity, HealthMessage } from './health.ts'
import type { Binding, Conversation, ErrandView } from './types.ts'
import type { WheelShape } from './wheel.ts'

/**
 * What the supervisor does. Every caller — the Effect API, the Promise API, the HTTP host, the
 * live view and journal replay — goes through these operations, so there is one code path.
 */
export interface SupervisorShape extends WheelShape {
  /** Registers a conversation; a task (or a chat with its own browser) gets an open errand (E1, E2). */
  readonly open: (conversation: Conversation) => Effect.Effect<Binding, SupervisorError>
  /** Runs `f` with the conversation's context while driving it (never parked while driven, C2). */
  readonly use: <A, E, R>(
    conversationId: string,
    f: (binding: Binding) => Effect.Effect<A, E, R>,
  ) => Effect.Effect<A, E | SupervisorError, R>
  /** Starts driving (resuming or healing first when needed); pair with `undrive`. `use` does both. */
  readonly drive: (conversationId: string) => Effect.Effect<Binding, SupervisorError>
  readonly undrive: (conversationId: string) => Effect.Effect<void>
  readonly taskChanged: (conversationId: string, status: TaskStatus) => Effect.Effect<ErrandView, UnknownConversation>
  readonly chatDeleted: (conversationId: string) => Effect.Effect<void>
  /** Gives a chat a browser of its own, or takes it back (E2). */
  readonly setOwnBrowser: (conversationId: string, on: boolean) => Effect.Effect<ErrandView, SupervisorError>
  readonly watch: (conversationId: string) => Effect.Effect<void, SupervisorError>
  readonly unwatch: (conversationId: string) => Effect.Effect<void>
  readonly park: (conversationId: string) => Effect.Effect<ErrandView, UnknownConversation>
  readonly resume: (conversationId: string) => Effect.Effect<Binding, SupervisorError>
  /** Closes and forgets the conversation's errand. Idempotent. */
  readonly release: (conversationId: string) => Effect.Effect<void>
  /** Records which sites' sign-ins the conversation's errand now holds (after a lend or a revoke, E6). */
  readonly setLentSites: (conversationId: string, lentSites: ReadonlyArray<string>) => Effect.Effect<void>
  /** A page of the conversation's context finished loading (normally reported by the runtime). */
  readonly pageLoaded: (conversationId: string) => Effect.Effect<void>
  /** Parks every errand idle for longer than the idle limit (C4). Runs on the clock by itself. */
  readonly sweep: Effect.Effect<ReadonlyArray<string>>
  /** Parks every open errand (E5) and refuses new work. Runs when the supervisor's scope closes. */
  readonly shutdown: Effect.Effect<void>
  readonly list: Effect.Effect<ReadonlyArray<ErrandView>>
  readonly view: (conversationId: string) => Effect.Effect<ErrandView, UnknownConversation>
  readonly capacity: Effect.Effect<Capacity>
  readonly health: Effect.Effect<ReadonlyArray<HealthMessage>>
  readonly onHealth: (listener: (message: HealthMessage) => void) => () => void
  /** Calls `listener` whenever an errand's state changes. */
  readonly onChange: (listener: (view: ErrandView) => void) => () => void
  /** Waits until no errand is opening, parking, closing, healing or snapshotting. */
  readonly settle: Effect.Effect<void>
  /** The context id of the conversation's live errand, if any (for runtime-level tools). */
  readonly contextOf: (conversationId: string) => ContextId | undefined
  /**
   * Names the upstream proxy the conversation's errand leaves through from now on (issue #21;
   * `undefined`: none beyond the runtime's default). An open errand's context is re-chained at
   * once; a parked one takes it when it resumes (and seals it when it parks again).
   */
  readonly setUpstreamProxy: (
    conversationId: string,
    proxy: UpstreamProxy | undefined,
  ) => Effect.Effect<void, SupervisorError | ContextError>
  /**
   * Brings this supervisor up to date with the sealed store for one errand that another process
   * sharing the store may have parked, sealed or closed (a cluster peer, issue #16): unknown here
   * and sealed there → registered as parked (`adopted`, resumable with its tabs); parked here but
   * gone from the store → forgotten (`forgotten`); otherwise `known` or `absent`.
   */
  readonly adopt: (conversationId: string) => Effect.Effect<'adopted' | 'known' | 'absent' | 'forgotten', StoreError>
  /** The errand's last in-memory snapshot (for the engine's own tools; never shown to an agent). */
  readonly lastSnapshot: (conversationId: string) => Snapshot | undefined
  /**
   * Rewrites the in-memory snapshots of open errands — the ones a crashed errand is healed from
   * and sealed from (H2) — now, and every snapshot being read or restored at this moment when it
   * lands, so none brings back what `amend` takes out. Lending takes revoked sites out this way
   * (L5; a heal from an older snapshot reopened a revoked sign-in — found by the model soak, seed
   * 9001) and puts a site it lends into an open errand in (L2). Parked records are the store's.
   */
  readonly amendSnapshots: (amend: SnapshotAmendment) => Effect.Effect<void>
}
