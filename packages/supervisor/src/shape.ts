/**
 * The supervisor's operations as a type: the session verbs of the boundary (@errands/sessions) but `resolve`,
 * which the boundary builds from `open` and `drive`, and what only the engine's own parts call — lending's
 * snapshot amendments and lent sites, the runtime's page loads, the sweep, settle and shutdown.
 */
import type { SessionsShape } from '@errands/sessions'
import type { ContextError } from '@errands/runtime'
import type { StoreError } from '@errands/store'
import type { Effect } from 'effect'
import type { SnapshotAmendment } from './amendments.ts'

/**
 * What the supervisor does. Every caller — the session boundary, the Promise API, lending and journal replay —
 * goes through these operations, so there is one code path.
 */
export interface SupervisorShape extends Omit<SessionsShape, 'resolve'> {
  /** Records which sites' sign-ins the conversation's errand now holds (after a lend or a revoke, E6). */
  readonly setLentSites: (conversationId: string, lentSites: ReadonlyArray<string>) => Effect.Effect<void>
  /** A page of the conversation's context finished loading (normally reported by the runtime). */
  readonly pageLoaded: (conversationId: string) => Effect.Effect<void>
  /** Parks every errand idle for longer than the idle limit (C4). Runs on the clock by itself. */
  readonly sweep: Effect.Effect<ReadonlyArray<string>>
  /** Parks every open errand (E5) and refuses new work. Runs when the supervisor's scope closes. */
  readonly shutdown: Effect.Effect<void>
  /** Waits until no errand is opening, parking, closing, healing or snapshotting. */
  readonly settle: Effect.Effect<void>
  /**
   * Rewrites the in-memory snapshots of open errands — the ones a crashed errand is healed from
   * and sealed from (H2) — now, and every snapshot being read or restored at this moment when it
   * lands, so none brings back what `amend` takes out. Lending takes revoked sites out this way
   * (L5; a heal from an older snapshot reopened a revoked sign-in — found by the model soak, seed
   * 9001) and puts a site it lends into an open errand in (L2). Parked records are the store's.
   */
  readonly amendSnapshots: (amend: SnapshotAmendment) => Effect.Effect<void>
  /**
   * Seals the conversation's open errand as it is now, as its record in the store, when the
   * supervisor seals snapshots (`sealSnapshots`, a cluster): what was just put into it — a sign-in
   * lent by the person's Allow (L2) — then survives this process dying without a goodbye, where the
   * debounced snapshot (H1) would come only after its next page load. Otherwise, or when the errand
   * is not open, nothing. Fails with the store's or the browser's error.
   */
  readonly sealNow: (conversationId: string) => Effect.Effect<void, StoreError | ContextError>
}
