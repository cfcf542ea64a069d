/**
 * Lending on the deterministic memory runtime and an in-memory sealed store, with the seed
 * wired into the supervisor — the set-up of this package's unit tests, and a starting point for
 * callers' tests.
 *
 * `testSupervisor` from `@errands/supervisor` cannot be used for this: its `options.seed` would
 * need the memory runtime that `testSupervisor` creates inside itself. This builds the same
 * parts (`defaultSettings`, `memoryRuntimeLayer`, `SealedStore.layerMemory`) in the order
 * lending needs.
 *
 * @example
 * it.scoped('lends', () => Effect.gen(function* () { ... }).pipe(Effect.provide(testLending({ settings: {
 * alwaysAllowed: ['shop.example'] } }))))
 */
import { memoryRuntimeLayer, MemoryRuntimeTag, type Runtime } from '@errands/runtime'
import { SealedStore } from '@errands/store'
import {
  defaultSettings,
  sessionsLayer,
  Supervisor,
  type SupervisorOptions,
  type SupervisorSettings,
} from '@errands/supervisor'
import { Effect, Layer } from 'effect'
import { Lending } from './Lending.ts'
import { Settings, type BrowserSettingsSchema } from './Settings.ts'

/**
 * What {@link testLending} can be given.
 *
 * @example
 * const options: TestLendingOptions = { settings: { trust: 'auto' }, supervisor: { maxErrands: 3 } }
 */
export interface TestLendingOptions {
  /** The person's browser settings (default: nothing always allowed, trust `ask`). */
  readonly settings?: Partial<typeof BrowserSettingsSchema.Encoded> | undefined
  /** Supervisor settings over `defaultSettings({ maxErrands: 2, dataDir: '/nonexistent' })`. */
  readonly supervisor?: Partial<SupervisorSettings> | undefined
  /** Supervisor options other than settings and seed (inspect, trace, sweep …). */
  readonly options?: Omit<SupervisorOptions, 'settings' | 'seed'> | undefined
  /** The sealed store (default: a fresh in-memory one). Share one to simulate a restart. */
  readonly store?: Layer.Layer<SealedStore> | undefined
}

/**
 * Lending, the supervisor (seeded by lending), the memory runtime, the store and the settings.
 *
 * @example
 * Effect.provide(program, testLending({ settings: { alwaysAllowed: ['shop.example'] } }))
 */
export const testLending = (
  o: TestLendingOptions = {},
): Layer.Layer<Lending | Supervisor | Runtime | MemoryRuntimeTag | SealedStore | Settings> => {
  const base = Layer.mergeAll(
    memoryRuntimeLayer,
    o.store ?? SealedStore.layerMemory,
    Settings.layerMemory(o.settings ?? {}),
  )
  const supervisor = Lending.supervisorLayer({
    ...o.options,
    settings: defaultSettings({ maxErrands: 2, dataDir: '/nonexistent', ...o.supervisor }),
  })
  return Lending.layer.pipe(
    Layer.provideMerge(sessionsLayer),
    Layer.provideMerge(supervisor),
    Layer.provideMerge(base),
    Layer.orDie,
  )
}

/**
 * The services a lending test usually needs, together.
 *
 * @example
 * const { lending, supervisor, memory, settings, store } = yield* lendingServices
 */
export const lendingServices = Effect.all({
  lending: Lending,
  supervisor: Supervisor,
  memory: MemoryRuntimeTag,
  settings: Settings,
  store: SealedStore,
})
