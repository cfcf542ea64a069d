import { errandMachine, type ErrandEvent, type TaskStatus } from '@errands/machines'
import {
  emptyStorage, parseUpstreamProxy, Runtime, type ContextError, type ContextId, type RuntimeEvent, type Snapshot, type UpstreamProxy,
} from '@errands/runtime'
import { SealedStore, type StoreError } from '@errands/store'
import { Clock, Context, Effect, Either, Fiber, Layer, Option, Redacted, Runtime as EffectRuntime, type Scope } from 'effect'
import { createActor } from 'xstate'
import { SnapshotBook, type SnapshotAmendment } from './amendments.ts'
import { makeEffectClock } from './clock.ts'
import { supervisorConfig } from './config.ts'
import { makeErrandEffects } from './effects.ts'
import { AllBusy, ErrandUnavailable, InvalidRequest, UnknownConversation, type SupervisorError } from './errors.ts'
import { HealthLog, words, type Capacity, type HealthMessage } from './health.ts'
import type { Binding, Conversation, ErrandView, JournalEntry, SupervisorOptions } from './types.ts'
import { UpstreamBook } from './upstream.ts'
import {
  holdsContext, isEvictable, isIsolated, stateString, topState, viewOf,
  type Entry, type ErrandActor, type ErrandSnapshot,
} from './views.ts'

/**
 * What the supervisor does. Every caller — the Effect API, the Promise API, the HTTP host, the
 * live view and journal replay — goes through these operations, so there is one code path.
 */
export interface SupervisorShape {
  /** Registers a conversation; a task (or a chat with its own browser) gets an open errand (E1, E2). */
  readonly open: (conversation: Conversation) => Effect.Effect<Binding, SupervisorError>
  /** Runs `f` with the conversation's context while driving it (never parked while driven, C2). */
  readonly use: <A, E, R>(conversationId: string, f: (binding: Binding) => Effect.Effect<A, E, R>) => Effect.Effect<A, E | SupervisorError, R>
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
  readonly setUpstreamProxy: (conversationId: string, proxy: UpstreamProxy | undefined) => Effect.Effect<void, SupervisorError | ContextError>
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

const quiet = (s: ErrandSnapshot) => s.status !== 'active' || (!s.hasTag('busy') && !s.hasTag('settling'))
const notBusy = (s: ErrandSnapshot) => s.status !== 'active' || !s.hasTag('busy')

/** Waits (interruptibly) until the actor's snapshot satisfies `predicate`. */
const waitUntil = (actor: ErrandActor, predicate: (s: ErrandSnapshot) => boolean): Effect.Effect<ErrandSnapshot> =>
  Effect.async<ErrandSnapshot>((resume) => {
    const now = actor.getSnapshot()
    if (predicate(now)) return resume(Effect.succeed(now))
    const sub = actor.subscribe({
      next: (s) => {
        if (predicate(s)) {
          sub.unsubscribe()
          resume(Effect.succeed(s))
        }
      },
      complete: () => resume(Effect.succeed(actor.getSnapshot())),
      error: () => resume(Effect.succeed(actor.getSnapshot())),
    })
    return Effect.sync(() => sub.unsubscribe())
  })

/**
 * Builds the supervisor on a runtime and a sealed store. Parked errands found in the store come
 * back as parked actors, resumable (E5).
 *
 * @example
 * const supervisor = yield* makeSupervisor({ settings: defaultSettings({ maxErrands: 2 }) })
 * const binding = yield* supervisor.open({ id: 'task-1', kind: 'task' })
 */
export const makeSupervisor = (
  options: SupervisorOptions,
): Effect.Effect<SupervisorShape, StoreError, Runtime | SealedStore | Scope.Scope> =>
  Effect.gen(function* () {
    const runtime = yield* Runtime
    const store = yield* SealedStore
    const effectRuntime = yield* Effect.runtime<never>()
    const clock = yield* makeEffectClock
    const settings = options.settings
    const health = new HealthLog(100)
    const entries = new Map<string, Entry>()
    const byContext = new Map<ContextId, Entry>()
    const snapshots = new SnapshotBook()
    const proxies = new UpstreamBook()
    const changeListeners = new Set<(view: ErrandView) => void>()
    const admission = yield* Effect.makeSemaphore(1)
    /** Heals started because someone watches a crashed errand; `settle` waits for them. */
    const pendingHeals = new Set<Fiber.RuntimeFiber<void>>()
    const now = () => EffectRuntime.runSync(effectRuntime)(Clock.currentTimeMillis)
    const journal = (entry: JournalEntry) => options.journal?.(entry)
    const seed = options.seed ?? (() => Effect.succeed({ storage: emptyStorage, lentSites: [] }))
    let shuttingDown = false

    const machine = errandMachine.provide({
      actors: makeErrandEffects({
        runtime, store, snapshots, health, seed, effectRuntime, proxies, sealSnapshots: options.sealSnapshots === true,
        conversationOf: (id) => entries.get(id)?.conversation ?? { id, kind: 'task' },
      }),
    })

    const onSnapshot = (entry: Entry, actor: ErrandActor, snapshot: ErrandSnapshot) => {
      if (entry.actor !== actor) return
      for (const [id, e] of byContext) if (e === entry && id !== snapshot.context.contextId) byContext.delete(id)
      if (snapshot.context.contextId !== null) byContext.set(snapshot.context.contextId, entry)
      const state = snapshot.status === 'done' ? 'closed' : stateString(snapshot.value)
      if (state === entry.lastState) return
      entry.lastState = state
      if (state === 'healing.waiting' && snapshot.context.watchers > 0) healWatched(entry, actor)
      // Crashed again soon after a heal: the machine backs off; say so, so nobody waits blindly.
      if (state === 'healing.cooling') health.add({ at: now(), level: 'warning', text: words.crashedAgain, conversationId: entry.conversation.id })
      options.trace?.({ t: now(), conversationId: entry.conversation.id, state })
      const view = viewOf(entry, runtime.mainContext)
      for (const listener of changeListeners) listener(view)
    }

    const spawn = (entry: Entry, parked?: { parkedAt: number; lentSites: ReadonlyArray<string> }): ErrandActor => {
      const conversation = entry.conversation
      const actor = createActor(machine, {
        id: `errand:${conversation.id}`,
        clock,
        ...(options.inspect ? { inspect: options.inspect } : {}),
        input: {
          errandId: conversation.id,
          conversationId: conversation.id,
          kind: conversation.kind,
          reason: conversation.kind === 'chat' ? 'own-browser' : conversation.helper ? 'helper' : 'task',
          now: now(),
          parkedAt: parked?.parkedAt,
          lentSites: parked?.lentSites,
          snapshotDebounceMs: settings.snapshotDebounceMs,
          maxHeals: options.maxHeals,
          healBackoffMs: options.healBackoffMs,
          healWindowMs: options.healWindowMs,
        },
      })
      entry.actor = actor
      entry.lastState = undefined
      actor.subscribe({ next: (s) => onSnapshot(entry, actor, s), error: () => undefined })
      actor.start()
      return actor
    }

    const send = (entry: Entry, event: ErrandEvent) => {
      const actor = entry.actor
      if (actor !== undefined && actor.getSnapshot().status === 'active') actor.send(event)
    }

    const entryOf = (conversationId: string) =>
      Effect.suspend(() => {
        const entry = entries.get(conversationId)
        return entry === undefined
          ? Effect.fail(new UnknownConversation({
              reason: 'unknown-conversation', conversationId,
              message: `No conversation "${conversationId}" is known; open it first.`,
            }))
          : Effect.succeed(entry)
      })

    /** Makes room for one more context (parking the LRU idle errand, C2) and runs `trigger` while holding the slot. */
    const admit = (entry: Entry, trigger: () => void): Effect.Effect<void, AllBusy> =>
      admission.withPermits(1)(
        Effect.gen(function* () {
          const holding = [...entries.values()].filter((e) => e !== entry && holdsContext(e)).length
          if (holding >= settings.maxErrands) {
            const victim = [...entries.values()]
              .filter((e) => e !== entry && isEvictable(e))
              .sort((a, b) => a.actor!.getSnapshot().context.lastUsedAt - b.actor!.getSnapshot().context.lastUsedAt || (a.conversation.id < b.conversation.id ? -1 : 1))[0]
            if (victim === undefined) return yield* AllBusy.of(settings.maxErrands)
            victim.actor!.send({ type: 'errand.evict', cause: 'capacity', at: now() })
            yield* waitUntil(victim.actor!, notBusy)
            if (holdsContext(victim)) return yield* AllBusy.of(settings.maxErrands)
          }
          trigger()
        }),
      )

    /**
     * A watched errand that crashed is reopened at once (H2) — through admission, so the cap
     * holds; when every slot is busy it waits for its next use. Runs after the current
     * transition (never inside the actor's own notification).
     */
    const healWatched = (entry: Entry, actor: ErrandActor) => {
      if (shuttingDown) return
      const fiber = EffectRuntime.runFork(effectRuntime)(
        Effect.gen(function* () {
          yield* Effect.yieldNow()
          const s = actor.getSnapshot()
          if (entry.actor !== actor || !s.matches({ healing: 'waiting' }) || s.context.watchers === 0) return
          yield* Effect.ignore(admit(entry, () => actor.send({ type: 'errand.used', at: now() })))
          yield* waitUntil(actor, notBusy)
        }),
      )
      pendingHeals.add(fiber)
      fiber.addObserver(() => pendingHeals.delete(fiber))
    }

    const unavailable = (entry: Entry, reason: ErrandUnavailable['reason']) => {
      const e = entry.actor?.getSnapshot().context.lastError
      return new ErrandUnavailable({
        reason, conversationId: entry.conversation.id,
        message: `This conversation's browser could not be ${reason === 'open-failed' ? 'opened' : reason === 'resume-failed' ? 'resumed' : 'reopened'}${e ? ` (${e.reason})` : ''}; try again in a moment.`,
      })
    }

    /** Brings the entry's errand to `active` (seed, resume or heal through admission) and attaches a driver when asked. */
    const ensureActive = (entry: Entry, drive: boolean): Effect.Effect<Binding, SupervisorError> =>
      Effect.gen(function* () {
        let spawned = false
        let resumed = false
        let healed = false
        const attach = (actor: ErrandActor) => {
          if (!drive) return
          actor.send({ type: 'driver.attached', at: now() })
          entry.driving.push(actor)
        }
        if (drive && entry.actor !== undefined && entry.actor.getSnapshot().status === 'active') attach(entry.actor)
        for (let step = 0; step < 16; step++) {
          if (shuttingDown) return yield* new ErrandUnavailable({ reason: 'shutting-down', conversationId: entry.conversation.id, message: 'The browser is shutting down; try again after it restarts.' })
          const actor = entry.actor
          const snapshot = actor?.getSnapshot()
          if (actor === undefined || snapshot === undefined || snapshot.status === 'done') {
            // A resume whose sealed record was unreadable ends the errand: say so rather than
            // quietly handing back an empty one (the next use starts fresh).
            if (resumed) return yield* unavailable(entry, 'resume-failed')
            if (spawned) return yield* unavailable(entry, 'open-failed')
            yield* admit(entry, () => attach(spawn(entry)))
            spawned = true
          } else if (snapshot.matches('active')) {
            return { conversationId: entry.conversation.id, contextId: snapshot.context.contextId!, isolated: true }
          } else if (snapshot.hasTag('busy')) {
            yield* waitUntil(actor, notBusy)
          } else if (snapshot.matches('parked')) {
            if (resumed) return yield* unavailable(entry, 'resume-failed')
            yield* admit(entry, () => actor.send({ type: 'errand.used', at: now() }))
            resumed = true
          } else if (snapshot.matches({ healing: 'waiting' })) {
            if (healed) return yield* unavailable(entry, 'heal-failed')
            yield* admit(entry, () => actor.send({ type: 'errand.used', at: now() }))
            healed = true
          } else {
            // healing.cooling: it crashed again right after a heal. Rather than hold the caller
            // for the backoff, say when to come back (the backoff runs out on the clock).
            return yield* new ErrandUnavailable({
              reason: 'heal-failed', conversationId: entry.conversation.id,
              message: "This conversation's browser crashed again right after reopening; wait a few seconds and try again.",
            })
          }
        }
        return yield* unavailable(entry, 'open-failed')
      })

    const register = (conversation: Conversation): Entry => {
      const existing = entries.get(conversation.id)
      if (existing !== undefined) return existing
      const entry: Entry = { conversation, ownBrowser: false, actor: undefined, driving: [], lastState: undefined }
      entries.set(conversation.id, entry)
      return entry
    }

    /** A proxy made elsewhere (an embedder's `Redacted.make`) is checked like one from HTTP. */
    const checkedProxy = (proxy: UpstreamProxy): Effect.Effect<UpstreamProxy, InvalidRequest> =>
      Either.match(parseUpstreamProxy(Redacted.isRedacted(proxy) ? Redacted.value(proxy) : String(proxy)), {
        onLeft: (e) => Effect.fail(new InvalidRequest({ reason: 'invalid-upstream-proxy', message: e.message })),
        onRight: (p) => Effect.succeed(p),
      })

    const mainBinding = (conversationId: string): Binding => ({ conversationId, contextId: runtime.mainContext, isolated: false })

    const drive = (conversationId: string) =>
      Effect.gen(function* () {
        const entry = yield* entryOf(conversationId)
        if (!isIsolated(entry)) return mainBinding(conversationId)
        journal({ t: now(), op: 'drive', conversationId })
        return yield* ensureActive(entry, true).pipe(
          Effect.tapError(() => Effect.sync(() => void detach(entry))),
        )
      })

    const detach = (entry: Entry) => {
      const actor = entry.driving.pop()
      if (actor !== undefined && actor.getSnapshot().status === 'active') actor.send({ type: 'driver.detached', at: now() })
    }

    const undrive = (conversationId: string) =>
      Effect.sync(() => {
        const entry = entries.get(conversationId)
        if (entry === undefined || entry.driving.length === 0) return
        journal({ t: now(), op: 'undrive', conversationId })
        detach(entry)
      })

    const closeEntry = (entry: Entry) =>
      Effect.gen(function* () {
        const actor = entry.actor
        if (actor === undefined) return
        send(entry, { type: 'errand.close', at: now() })
        yield* waitUntil(actor, (s) => s.status !== 'active')
      })

    const sweep = Effect.gen(function* () {
      const t = now()
      const idle = [...entries.values()].filter(
        (e) => isEvictable(e) && t - e.actor!.getSnapshot().context.lastUsedAt >= settings.idleMs,
      )
      for (const e of idle) e.actor!.send({ type: 'errand.evict', cause: 'idle', at: t })
      for (const e of idle) yield* waitUntil(e.actor!, notBusy)
      return idle.map((e) => e.conversation.id)
    })

    const settle = Effect.gen(function* () {
      for (let round = 0; round < 100; round++) {
        const pending = [...entries.values()].filter((e) => e.actor !== undefined && !quiet(e.actor.getSnapshot()))
        if (pending.length === 0 && pendingHeals.size === 0) return
        for (const fiber of [...pendingHeals]) yield* Fiber.await(fiber)
        for (const e of pending) yield* waitUntil(e.actor!, quiet)
      }
    })

    const shutdown = Effect.gen(function* () {
      if (shuttingDown) return
      journal({ t: now(), op: 'shutdown' })
      shuttingDown = true
      for (const entry of entries.values()) send(entry, { type: 'system.shutdown', at: now() })
      yield* settle
    })

    const onRuntimeEvent = (event: RuntimeEvent) => {
      const t = now()
      switch (event._tag) {
        case 'PageLoaded': {
          const entry = byContext.get(event.contextId)
          if (entry === undefined) return
          journal({ t, op: 'page.loaded', conversationId: entry.conversation.id })
          send(entry, { type: 'page.loaded', at: t })
          return
        }
        case 'ContextCrashed': {
          const entry = byContext.get(event.contextId)
          if (entry === undefined) return
          journal({ t, op: 'context.crashed', conversationId: entry.conversation.id })
          health.add({ at: t, level: 'warning', text: words.crashed, conversationId: entry.conversation.id })
          // What the context held when it crashed (its storage outlives a renderer): read from
          // now, so every take-back from here on amends it (L5), and kept as the snapshot its
          // heal reopens — unless the errand ended meanwhile.
          const errandId = entry.conversation.id
          const lastWords = snapshots.read(errandId, Effect.flatMap(runtime.lastWords(event.contextId), (w) =>
            Option.isSome(w) ? Effect.succeed({ ...w.value, takenAt: t }) : Effect.fail('none' as const)))
          snapshots.expect(errandId, EffectRuntime.runPromise(effectRuntime)(lastWords.pipe(
            Effect.tap((s) => Effect.sync(() => {
              if (entries.get(errandId) === entry && entry.actor?.getSnapshot().status === 'active') snapshots.set(errandId, s)
            })),
            Effect.ignore,
          )))
          send(entry, { type: 'context.crashed', at: t })
          return
        }
        case 'BrowserCrashed': {
          journal({ t, op: 'browser.crashed' })
          const affected = event.contextIds.map((id) => byContext.get(id)).filter((e): e is Entry => e !== undefined)
          for (const entry of affected) {
            health.add({ at: t, level: 'warning', text: words.crashed, conversationId: entry.conversation.id })
            send(entry, { type: 'browser.crashed', at: t })
          }
        }
      }
    }

    // Parked errands from an earlier run come back as parked actors (E5); unreadable records are
    // dropped for that errand only, and health says so (S4).
    for (const problem of yield* store.problems()) {
      health.add({ at: now(), level: 'warning', text: words.recordDropped(problem.reason), conversationId: problem.errandId })
      yield* Effect.ignore(store.discard(problem.file))
    }
    /** A sealed record comes in as a parked actor; an unreadable one is dropped, said in health. */
    const adoptRecord = (errandId: string): Effect.Effect<boolean, StoreError> =>
      Effect.gen(function* () {
        const found = yield* Effect.either(store.get(errandId))
        if (found._tag === 'Left') {
          if (found.left._tag !== 'RecordUnreadable') return yield* found.left
          health.add({ at: now(), level: 'warning', text: words.recordDropped(found.left.reason), conversationId: errandId })
          yield* Effect.ignore(store.remove(errandId))
          return false
        }
        if (Option.isNone(found.right)) return false
        const record = found.right.value
        const entry = register({ id: record.conversationId, kind: record.kind, helper: record.reason === 'helper' })
        entry.ownBrowser = record.kind === 'chat'
        spawn(entry, { parkedAt: record.parkedAt, lentSites: record.lentSites })
        return true
      })
    for (const parked of yield* store.list()) yield* Effect.ignore(adoptRecord(parked.errandId))

    const unsubscribe = yield* runtime.subscribe(onRuntimeEvent)
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        yield* shutdown
        unsubscribe()
        for (const entry of entries.values()) entry.actor?.stop()
      }),
    )
    if (options.sweep !== false) {
      yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(settings.sweepEveryMs), sweep)))
    }

    const supervisor: SupervisorShape = {
      open: (conversation) =>
        Effect.gen(function* () {
          const { upstreamProxy, ...plain } = conversation
          // The journal keeps inputs to replay, never a secret (L7): the proxy stays out of it.
          journal({ t: now(), op: 'open', conversation: plain })
          if (upstreamProxy !== undefined) {
            const proxy = yield* checkedProxy(upstreamProxy)
            // Taken by the open that opens the errand (the first, or the first after a release);
            // an errand that holds a context, or was told before, keeps its own (setUpstreamProxy changes it).
            const live = entries.get(conversation.id)
            if (!proxies.has(conversation.id) && (live === undefined || !holdsContext(live))) proxies.set(conversation.id, proxy)
          }
          const entry = register(plain)
          return isIsolated(entry) ? yield* ensureActive(entry, false) : mainBinding(conversation.id)
        }),
      use: (conversationId, f) =>
        Effect.acquireUseRelease(drive(conversationId), f, () => undrive(conversationId)),
      drive,
      undrive,
      taskChanged: (conversationId, status) =>
        Effect.gen(function* () {
          const entry = yield* entryOf(conversationId)
          journal({ t: now(), op: 'task', conversationId, status })
          const event = { type: 'task.changed', status, at: now() } as const
          if (status === 'running' && entry.actor?.getSnapshot().matches('parked')) {
            // A parked task that runs again resumes — which takes a slot, so it is admitted like
            // any other resume. When every slot is busy it stays parked until its next use.
            yield* Effect.ignore(admit(entry, () => send(entry, event)))
          } else send(entry, event)
          if (entry.actor) yield* waitUntil(entry.actor, notBusy)
          return viewOf(entry, runtime.mainContext)
        }),
      chatDeleted: (conversationId) =>
        Effect.gen(function* () {
          const entry = entries.get(conversationId)
          if (entry === undefined) return
          journal({ t: now(), op: 'chat.deleted', conversationId })
          send(entry, { type: 'chat.deleted', at: now() })
          if (entry.actor) yield* waitUntil(entry.actor, (s) => s.status !== 'active')
          entries.delete(conversationId)
          proxies.delete(conversationId)
        }),
      setOwnBrowser: (conversationId, on) =>
        Effect.gen(function* () {
          const entry = yield* entryOf(conversationId)
          if (entry.conversation.kind === 'task') {
            return yield* new InvalidRequest({ reason: 'tasks-always-isolated', message: 'Tasks and helpers always browse in a context of their own; only a chat can be toggled.' })
          }
          journal({ t: now(), op: 'own-browser', conversationId, on })
          if (on && !entry.ownBrowser) {
            entry.ownBrowser = true
            yield* ensureActive(entry, false).pipe(Effect.tapError(() => Effect.sync(() => void (entry.ownBrowser = false))))
          } else if (!on && entry.ownBrowser) {
            entry.ownBrowser = false
            yield* closeEntry(entry)
          }
          return viewOf(entry, runtime.mainContext)
        }),
      watch: (conversationId) =>
        Effect.gen(function* () {
          const entry = yield* entryOf(conversationId)
          const actor = entry.actor
          if (actor === undefined || actor.getSnapshot().status !== 'active') return
          journal({ t: now(), op: 'watch', conversationId })
          // Watching a crashed errand reopens it at once (H2): `healWatched` sees the watcher
          // arrive in healing.waiting and heals it through admission.
          actor.send({ type: 'watcher.attached', at: now() })
          if (actor.getSnapshot().matches({ healing: 'waiting' })) healWatched(entry, actor)
        }),
      unwatch: (conversationId) =>
        Effect.sync(() => {
          const entry = entries.get(conversationId)
          if (entry?.actor === undefined || entry.actor.getSnapshot().context.watchers === 0) return
          journal({ t: now(), op: 'unwatch', conversationId })
          send(entry, { type: 'watcher.detached', at: now() })
        }),
      park: (conversationId) =>
        Effect.gen(function* () {
          const entry = yield* entryOf(conversationId)
          journal({ t: now(), op: 'park', conversationId })
          send(entry, { type: 'errand.park', at: now() })
          if (entry.actor) yield* waitUntil(entry.actor, notBusy)
          return viewOf(entry, runtime.mainContext)
        }),
      resume: (conversationId) =>
        Effect.gen(function* () {
          const entry = yield* entryOf(conversationId)
          journal({ t: now(), op: 'resume', conversationId })
          return isIsolated(entry) ? yield* ensureActive(entry, false) : mainBinding(conversationId)
        }),
      release: (conversationId) =>
        Effect.gen(function* () {
          journal({ t: now(), op: 'release', conversationId })
          const entry = entries.get(conversationId)
          if (entry !== undefined) yield* closeEntry(entry)
          proxies.delete(conversationId)
          // Idempotent, and thorough: a record left by an earlier run goes too.
          yield* Effect.ignore(store.remove(conversationId))
        }),
      setLentSites: (conversationId, lentSites) =>
        Effect.gen(function* () {
          const entry = entries.get(conversationId)
          if (entry === undefined) return
          const sorted = [...new Set(lentSites)].sort()
          send(entry, { type: 'sites.changed', lentSites: sorted, at: now() })
          const contextId = supervisor.contextOf(conversationId)
          // The tabs carry the lent sites too (E6); a context that just closed has no label to change.
          if (contextId !== undefined) {
            yield* Effect.ignore(runtime.setLabel(contextId, { reason: entry.actor!.getSnapshot().context.reason, lentSites: sorted }))
          }
        }),
      pageLoaded: (conversationId) =>
        Effect.sync(() => {
          const entry = entries.get(conversationId)
          if (entry === undefined) return
          journal({ t: now(), op: 'page.loaded', conversationId })
          send(entry, { type: 'page.loaded', at: now() })
        }),
      sweep,
      shutdown,
      list: Effect.sync(() => [...entries.values()].map((e) => viewOf(e, runtime.mainContext))),
      view: (conversationId) => Effect.map(entryOf(conversationId), (e) => viewOf(e, runtime.mainContext)),
      capacity: Effect.sync(() => {
        const all = [...entries.values()]
        return {
          open: all.filter(holdsContext).length,
          parked: all.filter((e) => e.actor?.getSnapshot().matches('parked') === true).length,
          limit: settings.maxErrands,
        }
      }),
      health: Effect.sync(() => health.recent()),
      onHealth: (listener) => health.onMessage(listener),
      onChange: (listener) => {
        changeListeners.add(listener)
        return () => void changeListeners.delete(listener)
      },
      settle,
      contextOf: (conversationId) => {
        const snapshot = entries.get(conversationId)?.actor?.getSnapshot()
        return snapshot?.status === 'active' && snapshot.matches('active') ? (snapshot.context.contextId ?? undefined) : undefined
      },
      setUpstreamProxy: (conversationId, proxy) =>
        Effect.gen(function* () {
          const entry = yield* entryOf(conversationId)
          const checked = proxy === undefined ? undefined : yield* checkedProxy(proxy)
          if (!isIsolated(entry)) {
            return yield* new InvalidRequest({ reason: 'invalid-input', message: "A chat on the person's own browser has no egress lane of its own; give it a browser of its own first." })
          }
          proxies.set(conversationId, checked)
          const contextId = supervisor.contextOf(conversationId)
          if (contextId === undefined) return
          const unsupported = (message: string) => new InvalidRequest({ reason: 'invalid-upstream-proxy', message })
          if (runtime.setUpstreamProxy === undefined) return yield* unsupported(`The ${runtime.kind} browser cannot chain an errand through a proxy.`)
          yield* runtime.setUpstreamProxy(contextId, checked).pipe(Effect.catchTag('InvalidUpstreamProxy', (e) => Effect.fail(unsupported(e.message))))
        }),
      adopt: (conversationId) =>
        Effect.gen(function* () {
          const entry = entries.get(conversationId)
          if (entry === undefined) return (yield* adoptRecord(conversationId)) ? 'adopted' : 'absent'
          const snapshot = entry.actor?.getSnapshot()
          const parkedHere = snapshot?.status === 'active' && snapshot.matches('parked')
          // An unreadable record is the resume's to report; only a record that is gone is news.
          const gone = parkedHere && (yield* Effect.orElseSucceed(Effect.map(store.get(conversationId), Option.isNone), () => false))
          if (gone) {
            // Parked here once, then resumed and closed by another process: nothing is left to resume.
            entry.actor?.stop()
            entries.delete(conversationId)
            return 'forgotten'
          }
          return 'known'
        }),
      lastSnapshot: (conversationId) => snapshots.get(conversationId),
      amendSnapshots: (amend) => Effect.sync(() => snapshots.amend(amend)),
    }
    return supervisor
  })

/**
 * The supervisor service (`@errands/supervisor/Supervisor`).
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const supervisor = yield* Supervisor
 *   yield* supervisor.open({ id: 'task-1', kind: 'task' })
 *   yield* supervisor.taskChanged('task-1', 'interrupted') // parked, resumable
 * })
 * Effect.runPromise(program.pipe(Effect.provide(Supervisor.layer({ settings }).pipe(Layer.provide([memoryRuntimeLayer, SealedStore.layerMemory])))))
 */
export class Supervisor extends Context.Tag('@errands/supervisor/Supervisor')<Supervisor, SupervisorShape>() {
  /** The supervisor with explicit options. */
  static layer(options: SupervisorOptions): Layer.Layer<Supervisor, StoreError, Runtime | SealedStore> {
    return Layer.scoped(Supervisor, makeSupervisor(options))
  }

  /** The supervisor with settings decoded from `ERRANDS_*` variables (fails start-up on invalid values). */
  static layerConfig(options: Omit<SupervisorOptions, 'settings'> = {}) {
    return Layer.scoped(Supervisor, Effect.flatMap(supervisorConfig, (settings) => makeSupervisor({ ...options, settings })))
  }

  /** A stand-in for callers' unit tests: the given methods, and every other one fails loudly. */
  static layerTest(partial: Partial<SupervisorShape>): Layer.Layer<Supervisor> {
    const missing = (name: string) => () => Effect.die(new Error(`Supervisor.layerTest: "${name}" was not provided`))
    return Layer.succeed(
      Supervisor,
      new Proxy(partial as SupervisorShape, {
        get: (target, key: string) => (key in target ? target[key as keyof SupervisorShape] : missing(key)),
      }),
    )
  }
}

export { topState }
