import { Lending, Settings, type SettingsError } from '@errands/lending'
import { Runtime, type RuntimeError } from '@errands/runtime'
import { ChromiumRuntime, type ChromiumRuntimeOptions } from '@errands/runtime-chromium'
import { SealedStore, type StoreConfigError, type StoreError, type StoreFs } from '@errands/store'
import { databaseUrlConfig, PgSealedStore } from '@errands/store-pg'
import type { Sessions } from '@errands/sessions'
import {
  sessionsLayer,
  supervisorConfig,
  type Supervisor,
  type SupervisorOptions,
  type SupervisorSettings,
} from '@errands/supervisor'
import { Config, Context, Effect, Layer, Option, type ConfigError, type Redacted } from 'effect'
import * as path from 'node:path'

/**
 * The Chromium runtime itself, for adapters that need more than the `Runtime` interface
 * (the host's page verbs, tests that SIGKILL the errands' browser).
 *
 * @example
 * const chromium = yield* Chromium
 * chromium.pageOf(contextId, 't1')
 */
export class Chromium extends Context.Tag('@errands/engine/Chromium')<Chromium, ChromiumRuntime>() {}

/** How to assemble the engine. */
export interface EngineOptions {
  readonly settings: SupervisorSettings
  /** Passed to the Chromium runtime (policy, binary, mode, log …); `dataDir` comes from settings. */
  readonly chromium?: Partial<ChromiumRuntimeOptions> | undefined
  /**
   * The embedder's 32-byte device key; without it one is kept in `<dataDir>/store/device.key` (0600).
   * `engineLayerConfig` also seals the Postgres store under it when `ERRANDS_DATABASE_URL` picks that one.
   */
  readonly storeKey?: Redacted.Redacted<Uint8Array> | undefined
  /** The store's file-system calls; the real disk by default (fault tests inject a slow or full one). */
  readonly storeFs?: StoreFs | undefined
  /** Inspector, journal, trace, seed … */
  readonly supervisor?: Omit<SupervisorOptions, 'settings'> | undefined
  /**
   * Another sealed store instead of the file store under `<dataDir>/store` — the Postgres one
   * that cluster peers share (issue #16, `@errands/cluster`). `storeKey` and `storeFs` are the
   * file store's and do not apply to it.
   */
  readonly store?: Layer.Layer<SealedStore, StoreError | StoreConfigError> | undefined
  /**
   * Another home for the person's settings instead of `<dataDir>/settings.json` — the Postgres
   * table cluster peers share (issue #24, `@errands/cluster`), so every host seeds and asks by
   * the same always-allowed sites and trust mode.
   */
  readonly personSettings?: Layer.Layer<Settings, SettingsError> | undefined
}

/** Everything the engine provides. */
export type EngineServices = Supervisor | Sessions | Runtime | Chromium | SealedStore | Settings | Lending

/** Ways the engine can fail to start. */
export type EngineError = RuntimeError | StoreError | StoreConfigError | SettingsError

/**
 * The engine: local Chromium (R1), the sealed store under `<dataDir>/store` (S1), the person's
 * settings (`<dataDir>/settings.json`), the supervisor seeded with the always-allowed sites'
 * sign-ins (L1), and lending (Allow, revoke, sign out everywhere). Layers release in reverse
 * order, so closing the scope first parks every open errand (E5), then closes the store, then
 * the browsers — no Chromium process outlives it.
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const supervisor = yield* Supervisor
 *   yield* supervisor.open({ id: 'task-1', kind: 'task' })
 * })
 * await Effect.runPromise(program.pipe(Effect.provide(engineLayer({ settings: defaultSettings({ dataDir }) })),
 * Effect.scoped))
 */
export const engineLayer = (options: EngineOptions): Layer.Layer<EngineServices, EngineError> => {
  const chromium = Layer.scoped(
    Chromium,
    ChromiumRuntime.scoped({ ...options.chromium, dataDir: options.settings.dataDir }),
  )
  return engineOver(Layer.effect(Runtime, Chromium).pipe(Layer.provideMerge(chromium)), options)
}

/**
 * The engine's part above the browser — the sealed store, the person's settings, the supervisor
 * seeded by lending, and lending — over any layer that provides the `Runtime` (the host routes
 * errands to a remote browser this way). `engineLayer` is this over local Chromium.
 *
 * @example
 * engineOver(myRuntimeLayer, { settings: defaultSettings({ dataDir }) })
 */
export const engineOver = <ROut, E, RIn>(
  runtime: Layer.Layer<ROut | Runtime, E, RIn>,
  options: Omit<EngineOptions, 'chromium'>,
) => {
  const { settings } = options
  const store =
    options.store ??
    SealedStore.layer(
      { dir: path.join(settings.dataDir, 'store'), key: options.storeKey, ...settings.retention },
      options.storeFs,
    )
  const base = Layer.mergeAll(runtime, store, options.personSettings ?? Settings.layer(settings.dataDir))
  const supervisor = Lending.supervisorLayer({ ...options.supervisor, settings }).pipe(Layer.provideMerge(base))
  // The one session boundary every face and lending go through (ADR 0044), over this engine's supervisor:
  // fresh, so two engines built in one process never share one.
  return Lending.layer.pipe(Layer.provideMerge(Layer.fresh(sessionsLayer)), Layer.provideMerge(supervisor))
}

/**
 * The engine with settings decoded from `ERRANDS_*` variables (an invalid value fails start-up).
 * `ERRANDS_DATABASE_URL` set (and no `store` given) → the sealed store is the Postgres one
 * (`pgStore`); unset → the file store under `<dataDir>/store`.
 *
 * @example
 * Effect.provide(program, engineLayerConfig({ chromium: { log: console.log } }))
 */
export const engineLayerConfig = (
  options: Omit<EngineOptions, 'settings'> = {},
): Layer.Layer<EngineServices, EngineError | ConfigError.ConfigError> =>
  Layer.unwrapEffect(
    Effect.map(Config.all([supervisorConfig, databaseUrlConfig]), ([settings, url]) =>
      engineLayer({
        ...options,
        settings,
        store: options.store ?? Option.getOrUndefined(Option.map(url, (u) => pgStore(u, settings, options.storeKey))),
      }),
    ),
  )

/**
 * The Postgres sealed store chosen by `ERRANDS_DATABASE_URL` (K2): sealed under the embedder's
 * key, or else under this machine's `<dataDir>/store/device.key` (the file store's, so both
 * stores read what the other sealed). Several hosts sharing one database pass one key.
 *
 * @example
 * engineLayer({ settings, store: pgStore(Redacted.make(url), settings) })
 */
export const pgStore = (
  url: Redacted.Redacted<string>,
  settings: SupervisorSettings,
  key?: Redacted.Redacted<Uint8Array> | undefined,
): Layer.Layer<SealedStore, StoreError | StoreConfigError> =>
  key === undefined
    ? PgSealedStore.layerKeyDir({ url, keyDir: path.join(settings.dataDir, 'store'), ...settings.retention })
    : PgSealedStore.layer({ url, key, ...settings.retention })
