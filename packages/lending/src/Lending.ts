/**
 * Sign-ins are lent, never shared (SPEC L1–L7). The `Lending` service answers the permission
 * question for a site in an errand, lends a site's sign-in when the person presses Allow, takes
 * sites back when the person revokes them, and signs every errand out of everything.
 *
 * Direction is one-way: from the main context **into** one errand, and **out of** errands. No
 * function here writes to the main context (L4).
 *
 * @example
 * const lending = yield* Lending
 * const card = yield* lending.ask('task-1', 'shop.example') // { decision: 'ask', lendsSignIn: true, ... }
 * yield* lending.allow('task-1', 'shop.example')             // the person pressed Allow
 * yield* lending.revoke('shop.example')                      // taken back from every errand, open or parked
 */
import { Runtime, type StorageState } from '@errands/runtime'
import { SealedStore, type StoreError } from '@errands/store'
import { type Conversation, type ErrandView, Sessions, type SupervisorError } from '@errands/sessions'
import { Supervisor, type Seed, type SupervisorOptions } from '@errands/supervisor'
import { Context, Effect, Layer } from 'effect'
import { LendFailed, LendRefused, type LendingError, type SettingsError } from './errors.ts'
import {
  lendIntoContext,
  lendIntoRecord,
  mainStorageFor,
  mergeStorage,
  sitesWithout,
  storageWithout,
  takeFromContext,
  takeFromRecord,
  type MoveDeps,
  type Moved,
  type Reach,
} from './moves.ts'
import type { LendReport, Permission, SignIn } from './answers.ts'
import { storageForSites } from './filter.ts'
import { seeder, seedFrom } from './seed.ts'
import { parseSite, Settings } from './Settings.ts'
import { mergeMoves, takeBackLine } from './report.ts'

/**
 * What a revocation or a sign-out took back: per errand, by names and sites only; `dropped`
 * lists parked errands whose sealed record was unreadable and was removed instead of cleaned.
 *
 * @example
 * const r: TakeBackReport = { sites: ['shop.example'], errands: [], dropped: [] }
 */
export interface TakeBackReport {
  readonly sites: ReadonlyArray<string> | 'all'
  readonly errands: ReadonlyArray<Moved>
  readonly dropped: ReadonlyArray<string>
}

/**
 * What lending does. `allow` is the person's press: wire it to the permission card's button,
 * never to an agent tool.
 *
 * @example
 * const lending: LendingShape = yield* Lending
 */
export interface LendingShape {
  /** The seed for new errands (L1); the same function as `seedFrom(runtime, settings)`. */
  readonly seed: (conversation: Conversation) => Effect.Effect<Seed>
  /** The permission card for `site` in the conversation's errand (L2, L3). Changes nothing. */
  readonly ask: (conversationId: string, site: string) => Effect.Effect<Permission, LendRefused | SettingsError>
  /**
   * The person pressed Allow: lends the site's sign-in to this errand only, open or parked (L2) —
   * the main context's, or `signIn` when another host of a cluster read it from its own main
   * context (the one the person pressed Allow on; only the site's part of it is lent).
   */
  readonly allow: (conversationId: string, site: string, signIn?: SignIn) => Effect.Effect<LendReport, LendingError>
  /** The main context's cookies and localStorage of one site: what an Allow here would lend. */
  readonly mainSignIn: (site: string) => Effect.Effect<SignIn, LendingError>
  /** Removes the site from the always-allowed sites and takes it back from every errand, open or parked (L5). */
  readonly revoke: (site: string) => Effect.Effect<TakeBackReport, LendingError>
  /** Wipes every errand's cookies and localStorage, open and parked (L5). Main and settings stay. */
  readonly signOutEverywhere: Effect.Effect<TakeBackReport, LendFailed>
  /**
   * Waits until no errand is in the middle of a change (the supervisor's `settle`); lending runs nothing in the
   * background.
   */
  readonly settle: Effect.Effect<void>
}

const refuse = (reason: LendRefused['reason'], conversationId: string, site: string): LendRefused =>
  new LendRefused({
    reason,
    conversationId,
    site,
    message:
      reason === 'unknown-conversation'
        ? `No conversation "${conversationId}" is known; nothing was lent.`
        : reason === 'main-context'
          ? `Conversation "${conversationId}" browses in your main browser, which is already signed in where you ` +
            `are; nothing is lent to it.`
          : `The errand of "${conversationId}" has ended; nothing was lent to it.`,
  })

/** Supervisor failures while lending, as lending errors with the supervisor's (secret-free) words. */
const fromSupervisor =
  (site: string) =>
  (e: SupervisorError | LendingError): LendingError => {
    switch (e._tag) {
      case 'UnknownConversation':
        return refuse(e.reason, e.conversationId, site)
      case 'AllBusy':
      case 'ErrandUnavailable':
      case 'InvalidRequest':
        return new LendFailed({ reason: 'unavailable', message: e.message })
      default:
        return e
    }
  }

/**
 * Builds lending on the runtime, the supervisor, the sealed store and the settings.
 *
 * @example
 * const lending = yield* makeLending
 */
export const makeLending: Effect.Effect<LendingShape, never, Runtime | Sessions | Supervisor | SealedStore | Settings> =
  Effect.gen(function* () {
    const runtime = yield* Runtime
    // The errands' verbs through the session boundary (ADR 0044); the supervisor only for what no face may do:
    // amending snapshots, recording lent sites, settling.
    const sessions = yield* Sessions
    const supervisor = yield* Supervisor
    const store = yield* SealedStore
    const settings = yield* Settings
    const deps: MoveDeps = { runtime, store }
    const lock = yield* Effect.makeSemaphore(1)
    const serial = lock.withPermits(1)

    /** The conversation's errand view, refusing unknown conversations and chats on main. */
    const errandView = (conversationId: string, site: string): Effect.Effect<ErrandView, LendRefused> =>
      sessions.view(conversationId).pipe(
        Effect.mapError((e) => refuse(e.reason, conversationId, site)),
        Effect.filterOrFail(
          (view) => view.reason !== 'main' && view.contextId !== runtime.mainContext,
          () => refuse('main-context', conversationId, site),
        ),
        Effect.filterOrFail(
          (view) => view.state !== 'closed',
          () => refuse('errand-closed', conversationId, site),
        ),
      )

    /**
     * Takes `reach` out of every open errand's in-memory snapshot, and out of every snapshot
     * being read or restored now, so a heal or a park from one cannot bring it back (L5).
     */
    const amendTakeBack = (reach: Reach) =>
      supervisor.amendSnapshots((_id, snapshot) => ({ ...snapshot, storage: storageWithout(snapshot.storage, reach) }))

    /** One pass over every parked record and every errand (see `takeBack`). */
    const takeBackPass = (reach: Reach) =>
      Effect.gen(function* () {
        const moved: Array<Moved> = []
        const dropped: Array<string> = []
        const failures: Array<{ readonly id: string; readonly error: LendFailed }> = []
        // Before the contexts are cleaned, so a heal during this pass starts without `reach`;
        // and after, for snapshots read while a context still held it.
        yield* amendTakeBack(reach)
        const entries = yield* store.list().pipe(
          Effect.mapError(
            (e) =>
              new LendFailed({
                reason: 'store',
                message: `could not list set-aside errands (${e.reason}); try again in a moment`,
              }),
          ),
        )
        for (const entry of entries) {
          const r = yield* Effect.either(takeFromRecord(deps, entry.errandId, reach))
          if (r._tag === 'Left') failures.push({ id: entry.errandId, error: r.left })
          else if (r.right === 'dropped') dropped.push(entry.errandId)
          else if (r.right !== undefined) moved.push(r.right)
        }
        for (const view of yield* sessions.list) {
          if (view.reason === 'main' || view.state === 'closed' || view.state === 'main') continue
          const id = view.conversationId
          const contextId = sessions.contextOf(id)
          const open = contextId !== undefined && contextId !== runtime.mainContext ? contextId : undefined
          if (open !== undefined) {
            const r = yield* Effect.either(takeFromContext(deps, id, open, reach))
            if (r._tag === 'Left') failures.push({ id, error: r.left })
            else if (r.right !== undefined) moved.push(r.right)
          }
          const remaining = sitesWithout(view.lentSites, reach)
          if (remaining.length !== view.lentSites.length) yield* supervisor.setLentSites(id, remaining)
        }
        yield* amendTakeBack(reach)
        return { moved, dropped, failures }
      })

    /**
     * Takes `reach` back from every errand. Two passes with a settle before each: an errand that
     * was parking, resuming or healing during the first pass is caught by the second; both are
     * idempotent.
     */
    const takeBack = (reach: Reach): Effect.Effect<TakeBackReport, LendFailed> =>
      Effect.gen(function* () {
        yield* supervisor.settle
        const first = yield* takeBackPass(reach)
        yield* supervisor.settle
        const second = yield* takeBackPass(reach)
        const report: TakeBackReport = {
          sites: reach === 'all' ? 'all' : [...reach].sort(),
          errands: mergeMoves([...first.moved, ...second.moved]),
          dropped: [...new Set([...first.dropped, ...second.dropped])].sort(),
        }
        for (const m of report.errands)
          yield* Effect.logInfo(takeBackLine(reach === 'all' ? 'signed out of every site' : 'revoked', m))
        for (const id of report.dropped) {
          yield* Effect.logWarning(
            `errand ${id}: its set-aside session could not be read, so it was removed instead of cleaned`,
          )
        }
        // A failure in the first pass that the second pass got past is no failure.
        const failures = second.failures
        if (failures.length > 0) {
          return yield* new LendFailed({
            reason: failures[0]!.error.reason,
            message:
              `took sign-ins back from every other errand, but not from ` +
              `${failures.map((f) => f.id).join(', ')}: ${failures[0]!.error.message}`,
          })
        }
        return report
      })

    /** Lends `lent` into the conversation's open errand (or one healing: driving it heals it first). */
    const lendOpen = (conversationId: string, site: string, view: ErrandView, lent: StorageState) =>
      // Driving it keeps it from being parked while the cookies go in, and heals a crashed one first.
      sessions.use(conversationId, (binding) =>
        Effect.gen(function* () {
          if (!binding.isolated || binding.contextId === runtime.mainContext) {
            return yield* refuse('main-context', conversationId, site)
          }
          const m = yield* lendIntoContext(deps, conversationId, binding.contextId, lent)
          if (m === undefined) {
            return yield* new LendFailed({
              reason: 'browser',
              message: `the errand's browser closed while ${site} was lent; try again`,
            })
          }
          // What went into the context goes into its snapshot too: a crash before the next
          // snapshot heals with the lent sign-in.
          yield* supervisor.amendSnapshots((id, snapshot) =>
            id === conversationId
              ? { ...snapshot, storage: mergeStorage(snapshot.storage, { cookies: lent.cookies, origins: [] }) }
              : snapshot,
          )
          const current = yield* sessions.view(conversationId).pipe(Effect.orElseSucceed(() => view))
          yield* supervisor.setLentSites(conversationId, [...current.lentSites, site])
          // Sealed before it is answered (a cluster, K3): an owner killed right after the person's Allow
          // brought the errand back from its last snapshot, without the sign-in it had just been lent.
          yield* supervisor.sealNow(conversationId).pipe(
            Effect.mapError(
              (e) =>
                new LendFailed({
                  reason: e._tag === 'StoreError' ? 'store' : 'browser',
                  message:
                    `${site} was lent into the open errand, but its sealed copy could not be written (${e.reason}): ` +
                    `should its host stop without a goodbye, it would come back without it; press Allow again`,
                }),
            ),
          )
          return m
        }),
      )

    const allow = (conversationId: string, input: string, signIn?: SignIn): Effect.Effect<LendReport, LendingError> =>
      Effect.gen(function* () {
        const site = yield* parseSite(input)
        yield* errandView(conversationId, site)
        return yield* serial(
          Effect.gen(function* () {
            yield* supervisor.settle
            const view = yield* errandView(conversationId, site)
            // What another host sends is filtered like main: never more than the site it names.
            const lent =
              signIn === undefined
                ? yield* mainStorageFor(runtime, new Set([site]))
                : storageForSites(signIn, new Set([site]))
            if (view.state === 'parked') {
              const done = yield* lendIntoRecord(deps, conversationId, lent, [site])
              if (done === undefined) return yield* refuse('errand-closed', conversationId, site)
              yield* supervisor.setLentSites(conversationId, done.record.lentSites)
              // A resume that read the record while main's sign-in was being read (before the
              // update above) opened without it: the errand is open now, so lend into it too.
              // One that reads the record later finds the update (soak, seed 15, in CI).
              yield* supervisor.settle
              const after = yield* errandView(conversationId, site)
              if (after.state === 'parked') return { site, ...done.moved }
            }
            return { site, ...(yield* lendOpen(conversationId, site, view, lent)) }
          }),
        ).pipe(
          Effect.mapError(fromSupervisor(site)),
          Effect.tap((r) =>
            Effect.logInfo(
              `lent sign-in for ${site} to errand ${conversationId} (${r.where}): cookies ` +
                (r.cookies.join(', ') || '(none)') +
                (r.origins.length > 0 ? `; localStorage of ${r.origins.join(', ')}` : ''),
            ),
          ),
        )
      }).pipe(Effect.annotateLogs({ conversationId }))

    return {
      seed: seedFrom(runtime, settings),
      ask: (conversationId, input) =>
        Effect.gen(function* () {
          const site = yield* parseSite(input)
          const view = yield* errandView(conversationId, site)
          const { alwaysAllowed, trust } = yield* settings.get
          if (alwaysAllowed.includes(site) && view.lentSites.includes(site)) {
            return { site, lendsSignIn: true, decision: 'allowed-always' } satisfies Permission
          }
          // L3: auto and full never ask about an ordinary site, so they never lend by themselves.
          return trust === 'ask'
            ? ({ site, lendsSignIn: true, decision: 'ask' } satisfies Permission)
            : ({ site, lendsSignIn: false, decision: 'not-lent' } satisfies Permission)
        }),
      allow,
      mainSignIn: (input) => Effect.flatMap(parseSite(input), (site) => mainStorageFor(runtime, new Set([site]))),
      revoke: (input) =>
        Effect.gen(function* () {
          const site = yield* parseSite(input)
          return yield* serial(
            Effect.gen(function* () {
              // Settings first, so that no errand opened from now on is seeded with it.
              yield* settings.removeAlways(site)
              return yield* takeBack(new Set([site]))
            }),
          ).pipe(Effect.annotateLogs({ site }))
        }),
      signOutEverywhere: serial(takeBack('all')),
      settle: supervisor.settle,
    }
  })

/**
 * The lending service (`@errands/lending/Lending`).
 *
 * @example
 * const app = Lending.layer.pipe(
 *   Layer.provideMerge(Lending.supervisorLayer({ settings: supervisorSettings })),
 *   Layer.provideMerge(Layer.mergeAll(runtimeLayer, storeLayer, Settings.layer(dataDir))),
 * )
 */
export class Lending extends Context.Tag('@errands/lending/Lending')<Lending, LendingShape>() {
  /**
   * Lending on the `Runtime`, `Supervisor`, `SealedStore` and `Settings` services.
   *
   * @example
   * Effect.provide(program, Lending.layer.pipe(Layer.provideMerge(Lending.supervisorLayer({ settings })),
   * Layer.provideMerge(base)))
   */
  static readonly layer: Layer.Layer<Lending, never, Runtime | Sessions | Supervisor | SealedStore | Settings> =
    Layer.effect(Lending, makeLending)

  /**
   * The supervisor with lending's seed wired in (L1): the way out of the chicken-and-egg (the
   * supervisor needs the seed when it is built; the rest of lending needs the supervisor).
   *
   * @example
   * Lending.supervisorLayer({ settings: defaultSettings() }) // Layer<Supervisor, StoreError, Runtime | SealedStore |
   * Settings>
   */
  static supervisorLayer(
    options: Omit<SupervisorOptions, 'seed'>,
  ): Layer.Layer<Supervisor, StoreError, Runtime | SealedStore | Settings> {
    return Layer.unwrapEffect(Effect.map(seeder, (seed) => Supervisor.layer({ ...options, seed })))
  }

  /**
   * A stand-in whose missing methods die loudly, naming the method.
   *
   * @example
   * Lending.layerTest({ ask: () => Effect.succeed({ site: 'shop.example', lendsSignIn: true, decision: 'ask' }) })
   */
  static layerTest(partial: Partial<LendingShape>): Layer.Layer<Lending> {
    const missing = (name: string) => Effect.dieMessage(`Lending.layerTest: "${name}" was not provided`)
    return Layer.succeed(Lending, {
      seed: () => missing('seed'),
      ask: () => missing('ask'),
      allow: () => missing('allow'),
      mainSignIn: () => missing('mainSignIn'),
      revoke: () => missing('revoke'),
      signOutEverywhere: missing('signOutEverywhere'),
      settle: missing('settle'),
      ...partial,
    })
  }
}
