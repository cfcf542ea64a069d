/**
 * The supervisor's operations — the {@link SupervisorShape} every caller goes through — built on
 * its parts: actors, admission, driving, settling and adoption.
 */
import { effectInput, type EffectInput } from '@errands/machines'
import { parseUpstreamProxy, type ContextError, type UpstreamProxy } from '@errands/runtime'
import type { StoreError } from '@errands/store'
import { Effect, Either, Option, Redacted } from 'effect'
import type { Admission } from './admission.ts'
import type { makeAdoption } from './adoption.ts'
import type { SupervisorCore } from './core.ts'
import type { Driving } from './driving.ts'
import { InvalidRequest } from '@errands/sessions'
import type { Actors } from './actors.ts'
import type { makeSettling } from './settling.ts'
import type { SupervisorShape } from './shape.ts'
import { holdsContext, isIsolated, isPersonDriving, isWaitingForPerson, viewOf, isFrozen } from './views.ts'
import type { WheelShape } from './wheel.ts'
import { notBusy, waitUntil } from './waiting.ts'

/** A proxy made elsewhere (an embedder's `Redacted.make`) is checked like one from HTTP. */
const checkedProxy = (proxy: UpstreamProxy): Effect.Effect<UpstreamProxy, InvalidRequest> =>
  Either.match(parseUpstreamProxy(Redacted.isRedacted(proxy) ? Redacted.value(proxy) : String(proxy)), {
    onLeft: (e) => Effect.fail(new InvalidRequest({ reason: 'invalid-upstream-proxy', message: e.message })),
    onRight: (p) => Effect.succeed(p),
  })

/** The parts of one supervisor its operations are built on. */
export interface SupervisorParts {
  readonly actors: Actors
  readonly admission: Admission
  readonly driving: Driving
  readonly settling: ReturnType<typeof makeSettling>
  readonly adoption: ReturnType<typeof makeAdoption>
  readonly wheel: WheelShape
  /** Seals an open errand's fresh snapshot as its record now (the effects' own sealing). */
  readonly sealOpen: (input: EffectInput) => Effect.Effect<void, StoreError | ContextError>
}

/**
 * The operations of one supervisor.
 *
 * @example
 * const supervisor = makeOperations(core, { actors, admission, driving, settling, adoption })
 * yield* supervisor.open({ id: 'task-1', kind: 'task' })
 */
export const makeOperations = (core: SupervisorCore, parts: SupervisorParts): SupervisorShape => {
  const { runtime, store, settings, health, entries, snapshots, proxies, changeListeners, now, journal } = core
  const { register, entryOf, send } = parts.actors
  const { admit, healWatched, ensureActive } = parts.admission
  const { mainBinding, drive, undrive, closeEntry } = parts.driving
  const { sweep, settle, shutdown } = parts.settling
  const { adoptRecord } = parts.adoption

  const supervisor: SupervisorShape = {
    ...parts.wheel,
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
          if (!proxies.has(conversation.id) && (live === undefined || !holdsContext(live)))
            proxies.set(conversation.id, proxy)
        }
        const fresh = !entries.has(conversation.id)
        const entry = register(plain)
        if (!isIsolated(entry)) return mainBinding(conversation.id)
        return yield* ensureActive(entry, false).pipe(
          // Another process holds it (a cluster's owner): a conversation first seen by this refused open leaves
          // nothing behind here — no entry listed, no proxy kept.
          Effect.tapError((e) =>
            Effect.sync(() => {
              if (!fresh || e._tag !== 'ErrandUnavailable' || e.reason !== 'held-elsewhere') return
              if (entries.get(conversation.id) === entry && entry.actor === undefined) {
                entries.delete(conversation.id)
                proxies.delete(conversation.id)
              }
            }),
          ),
        )
      }),
    use: (conversationId, f) => Effect.acquireUseRelease(drive(conversationId), f, () => undrive(conversationId)),
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
          return yield* new InvalidRequest({
            reason: 'tasks-always-isolated',
            message: 'Tasks and helpers always browse in a context of their own; only a chat can be toggled.',
          })
        }
        journal({ t: now(), op: 'own-browser', conversationId, on })
        if (on && !entry.ownBrowser) {
          entry.ownBrowser = true
          yield* ensureActive(entry, false).pipe(
            Effect.tapError(() => Effect.sync(() => void (entry.ownBrowser = false))),
          )
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
          yield* Effect.ignore(
            runtime.setLabel(contextId, { reason: entry.actor!.getSnapshot().context.reason, lentSites: sorted }),
          )
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
        frozen: all.filter(isFrozen).length,
        limit: settings.maxErrands,
        personDriving: all.filter(isPersonDriving).length,
        waitingForPerson: all.filter(isWaitingForPerson).length,
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
      return snapshot?.status === 'active' && snapshot.matches('active')
        ? (snapshot.context.contextId ?? undefined)
        : undefined
    },
    setUpstreamProxy: (conversationId, proxy) =>
      Effect.gen(function* () {
        const entry = yield* entryOf(conversationId)
        const checked = proxy === undefined ? undefined : yield* checkedProxy(proxy)
        if (!isIsolated(entry)) {
          return yield* new InvalidRequest({
            reason: 'invalid-input',
            message:
              "A chat on the person's own browser has no egress lane of its own; give it a browser of its own first.",
          })
        }
        proxies.set(conversationId, checked)
        const contextId = supervisor.contextOf(conversationId)
        if (contextId === undefined) return
        const unsupported = (message: string) => new InvalidRequest({ reason: 'invalid-upstream-proxy', message })
        if (runtime.setUpstreamProxy === undefined)
          return yield* unsupported(`The ${runtime.kind} browser cannot chain an errand through a proxy.`)
        yield* runtime
          .setUpstreamProxy(contextId, checked)
          .pipe(Effect.catchTag('InvalidUpstreamProxy', (e) => Effect.fail(unsupported(e.message))))
      }),
    adopt: (conversationId) =>
      Effect.gen(function* () {
        const entry = entries.get(conversationId)
        if (entry === undefined) return (yield* adoptRecord(conversationId)) ? 'adopted' : 'absent'
        const snapshot = entry.actor?.getSnapshot()
        const parkedHere = snapshot?.status === 'active' && snapshot.matches('parked')
        // An unreadable record is the resume's to report; only a record that is gone is news.
        const gone =
          parkedHere && (yield* Effect.orElseSucceed(Effect.map(store.get(conversationId), Option.isNone), () => false))
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
    sealNow: (conversationId) =>
      Effect.suspend(() => {
        // Only where snapshots are sealed at all (a cluster, K3): a single host's open errand has no record to keep.
        if (core.options.sealSnapshots !== true) return Effect.void
        const snapshot = entries.get(conversationId)?.actor?.getSnapshot()
        if (snapshot?.status !== 'active' || !snapshot.matches('active')) return Effect.void
        return parts.sealOpen(effectInput(snapshot.context))
      }),
  }
  return supervisor
}
