/**
 * The supervisor service: `makeSupervisor` wires one supervisor's parts together on a runtime and
 * a sealed store, and `Supervisor` is its Effect service with `layer`, `layerConfig` and
 * `layerTest`. The parts live beside it: actors, admission, driving, settling, runtime events,
 * adoption and the operations.
 */
import { errandMachine } from '@errands/machines'
import { emptyStorage, Runtime } from '@errands/runtime'
import { SealedStore, type StoreError } from '@errands/store'
import { Clock, Context, Effect, Layer, Runtime as EffectRuntime, type Scope } from 'effect'
import { makeAdmission } from './admission.ts'
import { makeAdoption } from './adoption.ts'
import { SnapshotBook } from './amendments.ts'
import { makeEffectClock } from '@errands/sessions'
import { supervisorConfig } from './config.ts'
import type { SupervisorCore } from './core.ts'
import { makeDriving } from './driving.ts'
import { makeErrandEffects } from './effects.ts'
import { HealthLog, QuestionBook } from '@errands/sessions'
import { makeOperations } from './operations.ts'
import { makeRuntimeEvents } from './runtimeEvents.ts'
import { makeActors } from './actors.ts'
import { makeSettling } from './settling.ts'
import { makeWheel } from './wheel.ts'
import type { SupervisorShape } from './shape.ts'
import type { SupervisorOptions } from './types.ts'
import { UpstreamBook } from './upstream.ts'
import { topState } from './views.ts'

export type { SupervisorShape } from './shape.ts'

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
    const core: SupervisorCore = {
      runtime,
      store,
      effectRuntime,
      options,
      settings: options.settings,
      health: new HealthLog(100),
      questions: new QuestionBook(),
      entries: new Map(),
      byContext: new Map(),
      snapshots: new SnapshotBook(),
      proxies: new UpstreamBook(),
      changeListeners: new Set(),
      handBackListeners: new Set(),
      admission: yield* Effect.makeSemaphore(1),
      pendingHeals: new Set(),
      now: () => EffectRuntime.runSync(effectRuntime)(Clock.currentTimeMillis),
      journal: (entry) => options.journal?.(entry),
      shuttingDown: false,
    }
    const seed = options.seed ?? (() => Effect.succeed({ storage: emptyStorage, lentSites: [] }))

    const { entries, snapshots, health, proxies } = core
    const effects = makeErrandEffects({
      runtime,
      store,
      snapshots,
      health,
      seed,
      effectRuntime,
      proxies,
      sealSnapshots: options.sealSnapshots === true,
      conversationOf: (id) => entries.get(id)?.conversation ?? { id, kind: 'task' },
    })
    const machine = errandMachine.provide({ actors: effects.actors })

    // A watched errand's heal goes through admission, which spawns through the actors.
    const actors = makeActors(core, machine, clock, (entry, actor) => admission.healWatched(entry, actor))
    const admission = makeAdmission(core, actors)
    const driving = makeDriving(core, actors, admission)
    const settling = makeSettling(core, actors)
    const adoption = makeAdoption(core, actors)
    const { shutdown } = settling

    yield* adoption.adoptAll

    const unsubscribe = yield* runtime.subscribe(makeRuntimeEvents(core, actors))
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        yield* shutdown
        unsubscribe()
        for (const entry of entries.values()) entry.actor?.stop()
      }),
    )
    if (options.sweep !== false) {
      yield* Effect.forkScoped(
        Effect.forever(Effect.zipRight(Effect.sleep(core.settings.sweepEveryMs), settling.sweep)),
      )
    }

    const wheel = makeWheel(core, actors, admission)
    return makeOperations(core, { actors, admission, driving, settling, adoption, wheel, sealOpen: effects.sealOpen })
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
 * Effect.runPromise(program.pipe(Effect.provide(Supervisor.layer({ settings }).pipe(Layer.provide([memoryRuntimeLayer,
 * SealedStore.layerMemory])))))
 */
export class Supervisor extends Context.Tag('@errands/supervisor/Supervisor')<Supervisor, SupervisorShape>() {
  /** The supervisor with explicit options. */
  static layer(options: SupervisorOptions): Layer.Layer<Supervisor, StoreError, Runtime | SealedStore> {
    return Layer.scoped(Supervisor, makeSupervisor(options))
  }

  /** The supervisor with settings decoded from `ERRANDS_*` variables (fails start-up on invalid values). */
  static layerConfig(options: Omit<SupervisorOptions, 'settings'> = {}) {
    return Layer.scoped(
      Supervisor,
      Effect.flatMap(supervisorConfig, (settings) => makeSupervisor({ ...options, settings })),
    )
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
