import type { EffectInput, OpenedContext, ParkInput, Parked, RestoreInput, SnapshotTaken } from '@errands/machines'
import {
  emptyStorage,
  type ContextError,
  type ContextId,
  type RuntimeShape,
  type SessionLabel,
  type Snapshot,
} from '@errands/runtime'
import { unreadable, type ParkedRecord, type SealedStoreShape, type StoreError } from '@errands/store'
import { Cause, Clock, Effect, Exit, Option, Runtime as EffectRuntime } from 'effect'
import { fromPromise } from 'xstate'
import type { SnapshotBook } from './amendments.ts'
import type { UpstreamBook } from './upstream.ts'
import type { HealthLog } from '@errands/sessions'
import { words } from './health.ts'
import {
  claimAsideFiles,
  dropAsideFiles,
  MAX_PARKED_FILES_BYTES,
  packAsideFiles,
  packFiles,
  unpackFiles,
} from './parkedFiles.ts'
import type { Conversation } from '@errands/sessions'
import type { Seed } from './types.ts'

/** What the errand machine's effects need from the supervisor. */
export interface EffectDeps {
  readonly runtime: RuntimeShape
  readonly store: SealedStoreShape
  /** The last snapshot of each open errand, for healing (H2), amended by lending. Never shown anywhere. */
  readonly snapshots: SnapshotBook
  readonly health: HealthLog
  readonly seed: (conversation: Conversation) => Effect.Effect<Seed>
  readonly conversationOf: (conversationId: string) => Conversation
  readonly effectRuntime: EffectRuntime.Runtime<never>
  /** Each errand's upstream proxy (issue #21): opened with it, sealed with it, resumed with it. */
  readonly proxies: UpstreamBook
  /** Seal each snapshot as the errand's record too (cluster mode, issue #16). */
  readonly sealSnapshots?: boolean | undefined
}

const label = (input: EffectInput, lentSites: ReadonlyArray<string>): SessionLabel => ({
  reason: input.reason,
  lentSites: [...lentSites].sort(),
})

/**
 * Runs an Effect for an invoked actor: the actor's abort signal interrupts it (STYLE §8), and a
 * failure rejects with the typed error itself, so the machine can read its tag and reason.
 */
const runFor = <A, E>(rt: EffectRuntime.Runtime<never>, effect: Effect.Effect<A, E>, signal: AbortSignal): Promise<A> =>
  EffectRuntime.runPromiseExit(rt)(effect, { signal }).then((exit) =>
    Exit.isSuccess(exit) ? exit.value : Promise.reject(Cause.squash(exit.cause)),
  )

/**
 * The effects the errand machine names (`actors`), implemented on a runtime and the sealed store, and
 * `sealOpen`, the supervisor's own use of the same sealing (a lend made durable before it is answered).
 *
 * @example
 * const effects = makeErrandEffects(deps)
 * const machine = errandMachine.provide({ actors: effects.actors })
 */
export const makeErrandEffects = (deps: EffectDeps) => {
  const { runtime, store, snapshots, health, proxies } = deps
  const sealedProxy = (errandId: string) => {
    const upstreamProxy = proxies.sealed(errandId)
    return upstreamProxy === undefined ? {} : { upstreamProxy }
  }

  /** The sealed record of an errand as `input` describes it, with its snapshot (a park's and an open errand's). */
  const recordOf = (input: EffectInput, snapshot: Snapshot, parkedAt: number): ParkedRecord => ({
    errandId: input.errandId,
    conversationId: input.conversationId,
    kind: input.kind,
    reason: input.reason,
    lentSites: input.lentSites,
    snapshot,
    parkedAt,
    ...sealedProxy(input.errandId),
  })

  /** An open errand's snapshot as its sealed record (sealSnapshots): what a peer heals it from. */
  const sealOpenRecord = (input: EffectInput, snapshot: Snapshot) =>
    store.put(recordOf(input, snapshot, snapshot.takenAt))

  const openContext = (input: EffectInput) =>
    Effect.gen(function* () {
      const seed = yield* deps.seed(deps.conversationOf(input.conversationId))
      const contextId = yield* runtime.openContext({
        errandId: input.errandId,
        label: label(input, seed.lentSites),
        storage: seed.storage,
        upstreamProxy: proxies.get(input.errandId),
      })
      return { contextId, lentSites: [...seed.lentSites].sort() } satisfies OpenedContext
    })

  const restoreSnapshot = (input: RestoreInput) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      let snapshot: Snapshot
      let lentSites = input.lentSites
      let upstreamProxy = proxies.get(input.errandId)
      let files: ParkedRecord['files']
      if (input.source === 'parked') {
        const found = yield* store.get(input.errandId).pipe(
          Effect.tapErrorTag('RecordUnreadable', (e) =>
            Effect.zipRight(
              Effect.sync(() =>
                health.add({
                  at: now,
                  level: 'warning',
                  text: words.recordDropped(e.reason),
                  conversationId: input.conversationId,
                }),
              ),
              Effect.ignore(store.remove(input.errandId)),
            ),
          ),
        )
        if (Option.isNone(found)) {
          health.add({
            at: now,
            level: 'warning',
            text: words.recordDropped('missing'),
            conversationId: input.conversationId,
          })
          // The store's own error, reason `missing`: the one class of the tag the machine's isRecordLost reads.
          return yield* unreadable(input.errandId, 'missing')
        }
        snapshot = found.value.snapshot
        lentSites = found.value.lentSites
        files = found.value.files
        upstreamProxy = proxies.restore(input.errandId, found.value.upstreamProxy)
      } else {
        // The held snapshot is amended at once by a take-back (L5), so a heal never reopens a
        // site revoked after the snapshot was taken (found by the model soak, seed 9001). A
        // crashed context's last words, when they are on their way, are that snapshot.
        yield* snapshots.arrived(input.errandId)
        snapshot = snapshots.get(input.errandId) ?? { storage: emptyStorage, tabs: [], takenAt: 0 }
      }
      let contextId: ContextId | undefined
      const opening = runtime
        .openContext({
          errandId: input.errandId,
          label: label(input, lentSites),
          storage: snapshot.storage,
          tabs: snapshot.tabs,
          indexedDB: snapshot.indexedDB,
          upstreamProxy,
        })
        .pipe(
          Effect.map((id) => {
            contextId = id
            return snapshot
          }),
        )
      // What is amended while the context opens is owed to the snapshot kept for it.
      snapshots.set(input.errandId, yield* snapshots.read(input.errandId, opening))
      // The folder as it parked (F3). A file that cannot be written back is said, not fatal: the
      // errand's browser is open, and its record still holds the files until the next park.
      // A heal claims the folder its crashed context left aside (K3): the same files, moved.
      yield* (
        input.source === 'parked'
          ? unpackFiles(runtime, contextId!, files)
          : claimAsideFiles(runtime, input.errandId, contextId!)
      ).pipe(
        Effect.catchAll((e) =>
          Effect.sync(() =>
            health.add({
              at: now,
              level: 'warning',
              text: words.filesLost(e.message),
              conversationId: input.conversationId,
            }),
          ),
        ),
      )
      // A resumed errand keeps its sealed record until it is parked again (overwritten) or closed
      // (removed): the open context lives only in this process, and an engine killed after the
      // resume would otherwise lose an errand that was safely set aside (issue #9; the kill test
      // in test/faults/engine-kill.test.ts). After such a kill it comes back as last sealed.
      if (input.source === 'snapshot')
        health.add({ at: now, level: 'info', text: words.healed, conversationId: input.conversationId })
      return { contextId: contextId!, lentSites: [...lentSites].sort() } satisfies OpenedContext
    })

  /** What each errand's snapshots left out of its IndexedDB and health has said already (E7). */
  const leftOutSaid = new Map<string, ReadonlySet<string>>()
  /** Says, once per errand, each origin whose IndexedDB a snapshot left out (the origin only, L7). */
  const sayLeftOut = (errandId: string, conversationId: string, at: number, snapshot: Snapshot) => {
    const now = new Set((snapshot.leftOut ?? []).map((l) => `${l.reason} ${l.origin}`))
    const said = leftOutSaid.get(errandId) ?? new Set<string>()
    for (const l of snapshot.leftOut ?? [])
      if (!said.has(`${l.reason} ${l.origin}`))
        health.add({ at, level: 'warning', text: words.indexedDbLeftOut(l.origin, l.reason), conversationId })
    if (now.size === 0) leftOutSaid.delete(errandId)
    else leftOutSaid.set(errandId, now)
  }

  /** A fresh snapshot of the context, with what was amended while it was read. */
  const readSnapshot = (input: EffectInput, contextId: ContextId) =>
    snapshots
      .read(
        input.errandId,
        Effect.zipWith(
          runtime.snapshot(contextId),
          Clock.currentTimeMillis,
          (taken, takenAt): Snapshot => ({ ...taken, takenAt }),
        ),
      )
      .pipe(Effect.tap((s) => Effect.sync(() => sayLeftOut(input.errandId, input.conversationId, s.takenAt, s))))

  const takeSnapshot = (input: EffectInput) =>
    Effect.gen(function* () {
      if (input.contextId === null) return { takenAt: yield* Clock.currentTimeMillis } satisfies SnapshotTaken
      const snapshot = yield* readSnapshot(input, input.contextId)
      snapshots.set(input.errandId, snapshot)
      if (deps.sealSnapshots) {
        // Durable for a peer that heals it after this process dies (issue #16). A failed seal
        // keeps the errand open (the in-memory snapshot still heals a crash here), and health
        // says so: a peer would reopen it as last sealed.
        const now = yield* Clock.currentTimeMillis
        yield* sealOpenRecord(input, snapshot).pipe(
          Effect.tapError((e) =>
            Effect.sync(() =>
              health.add({
                at: now,
                level: 'warning',
                text: words.sealFailed(e.reason),
                conversationId: input.conversationId,
              }),
            ),
          ),
          Effect.ignore,
        )
      }
      return { takenAt: snapshot.takenAt } satisfies SnapshotTaken
    })

  /**
   * An open errand's sealed record, written now from a fresh snapshot (cluster mode, issue #16): what
   * was just put into its context — a lent sign-in (L2) — survives this process's death without a
   * goodbye. Fails with the store's or the runtime's error, for the caller to say.
   */
  const sealOpen = (input: EffectInput): Effect.Effect<void, StoreError | ContextError> =>
    Effect.gen(function* () {
      if (input.contextId === null) return
      const snapshot = yield* readSnapshot(input, input.contextId)
      snapshots.set(input.errandId, snapshot)
      yield* sealOpenRecord(input, snapshot)
    })

  const sealAndPark = (input: ParkInput) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      // A frozen page runs nothing, so nothing could be read of it: thawed first. A thaw that
      // fails leaves the read to fail too, and the last snapshot is sealed (C4, docs/parking.md).
      if (input.frozen && input.contextId !== null) yield* Effect.ignore(runtime.thaw(input.contextId))
      // A fresh snapshot when the context is alive; the last one when it crashed meanwhile.
      const fresh =
        input.contextId === null ? Option.none() : yield* Effect.option(readSnapshot(input, input.contextId))
      if (Option.isNone(fresh)) yield* snapshots.arrived(input.errandId)
      const snapshot: Snapshot = Option.isSome(fresh)
        ? { ...fresh.value, takenAt: now }
        : (snapshots.get(input.errandId) ?? { storage: emptyStorage, tabs: [], takenAt: now })
      // Its files folder, sealed with it (F3); a crashed context's, set aside for a heal that
      // does not come now, likewise (K3) — then dropped below.
      const lost = (why: string) =>
        health.add({ at: now, level: 'warning', text: words.filesLost(why), conversationId: input.conversationId })
      const { files, left } = yield* (
        Option.isSome(fresh) && input.contextId !== null
          ? packFiles(runtime, input.contextId)
          : packAsideFiles(runtime, input.errandId)
      ).pipe(
        Effect.catchAll((e) =>
          Effect.sync(() => {
            lost(e.message)
            return { files: undefined, left: [] }
          }),
        ),
      )
      if (left.length > 0)
        lost(
          `${left.length} of them did not fit the ${MAX_PARKED_FILES_BYTES / 1024 / 1024} MiB a set-aside task ` +
            `keeps: ${left.slice(0, 5).join(', ')}`,
        )
      const record: ParkedRecord = { ...recordOf(input, snapshot, now), ...(files === undefined ? {} : { files }) }
      yield* store.put(record).pipe(
        Effect.tapError((e) =>
          Effect.sync(() =>
            health.add({
              at: now,
              level: 'warning',
              text: words.parkFailed(e.reason),
              conversationId: input.conversationId,
            }),
          ),
        ),
      )
      if (input.contextId !== null) yield* runtime.closeContext(input.contextId)
      // A parked errand holds no browser and no copy in memory: the sealed record is the truth.
      // Nor a crashed context's folder kept aside for a heal that will not come (K3): sealed above.
      yield* dropAsideFiles(runtime, input.errandId)
      snapshots.delete(input.errandId)
      health.add(
        input.cause === 'heal-exhausted'
          ? { at: now, level: 'warning', text: words.healGaveUp, conversationId: input.conversationId }
          : { at: now, level: 'info', text: words.parked(input.cause), conversationId: input.conversationId },
      )
      return { parkedAt: now } satisfies Parked
    })

  const closeContext = (input: EffectInput) =>
    Effect.gen(function* () {
      if (input.contextId !== null) yield* runtime.closeContext(input.contextId)
      yield* dropAsideFiles(runtime, input.errandId)
      snapshots.delete(input.errandId)
      yield* store.remove(input.errandId)
    })

  // The first step of setting an errand aside and its undoing (C4, docs/parking.md).
  const freezeContext = (input: EffectInput) =>
    input.contextId === null ? Effect.void : runtime.freeze(input.contextId)
  const thawContext = (input: EffectInput) => (input.contextId === null ? Effect.void : runtime.thaw(input.contextId))

  const rt = deps.effectRuntime
  return {
    sealOpen,
    actors: {
      openContext: fromPromise<OpenedContext, EffectInput>(({ input, signal }) =>
        runFor(rt, openContext(input), signal),
      ),
      restoreSnapshot: fromPromise<OpenedContext, RestoreInput>(({ input, signal }) =>
        runFor(rt, restoreSnapshot(input), signal),
      ),
      takeSnapshot: fromPromise<SnapshotTaken, EffectInput>(({ input, signal }) =>
        runFor(rt, takeSnapshot(input), signal),
      ),
      sealAndPark: fromPromise<Parked, ParkInput>(({ input, signal }) => runFor(rt, sealAndPark(input), signal)),
      closeContext: fromPromise<void, EffectInput>(({ input, signal }) => runFor(rt, closeContext(input), signal)),
      freezeContext: fromPromise<void, EffectInput>(({ input, signal }) => runFor(rt, freezeContext(input), signal)),
      thawContext: fromPromise<void, EffectInput>(({ input, signal }) => runFor(rt, thawContext(input), signal)),
    },
  }
}
