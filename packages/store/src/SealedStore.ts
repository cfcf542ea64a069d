import { Context, Effect, Layer } from 'effect'
import { makeDisk } from './disk.ts'
import type { StoreConfigError, StoreError } from './errors.ts'
import { nodeFs, type StoreFs } from './fs.ts'
import { makeMemory } from './memory.ts'
import type { Retention } from './retention.ts'
import type { SealedStoreOptions, SealedStoreShape } from './shape.ts'

const missing = (name: string) => () => Effect.dieMessage(`SealedStore.layerTest: ${name} was not provided`)

/**
 * The sealed store of parked errands (S1–S4): one AES-256-GCM sealed file per errand, written
 * crash-safely, bounded by retention, excluded from backups.
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const store = yield* SealedStore
 *   yield* store.put(record)
 *   return yield* store.get(record.errandId)
 * }).pipe(Effect.provide(SealedStore.layer({ dir: '/home/me/.errands/store' })))
 */
export class SealedStore extends Context.Tag('@errands/store/SealedStore')<SealedStore, SealedStoreShape>() {
  /**
   * Opens a store on disk: creates `dir` (0700), its backup markers and, unless `key` is given,
   * `dir/device.key` (0600); cleans temp files a killed write left; applies retention once.
   * Scoped because of the optional retention fiber (`pruneIntervalMs`). `fs` replaces the few
   * file-system calls it makes (fault tests inject a slow or failing disk); the real one by default.
   *
   * @example
   * Effect.provide(program, SealedStore.layer({ dir, key: Redacted.make(myKey), maxRecords: 40 }))
   */
  static readonly layer = (
    options: SealedStoreOptions,
    fs: StoreFs = nodeFs,
  ): Layer.Layer<SealedStore, StoreError | StoreConfigError> => Layer.scoped(SealedStore, makeDisk(options, fs))

  /**
   * An in-memory store with the same semantics (including retention by the Effect `Clock`) and
   * the default retention of 40 records / 14 days. Records are kept serialised, so callers never
   * share objects with it.
   *
   * @example
   * it.effect('parks', () => program.pipe(Effect.provide(SealedStore.layerMemory)))
   */
  static readonly layerMemory: Layer.Layer<SealedStore> = Layer.effect(SealedStore, Effect.orDie(makeMemory()))

  /**
   * The in-memory store with other retention limits (checked like the disk store's options).
   *
   * @example
   * Effect.provide(program, SealedStore.layerMemoryWith({ maxRecords: 2 }))
   */
  static readonly layerMemoryWith = (options: Partial<Retention>): Layer.Layer<SealedStore, StoreConfigError> =>
    Layer.effect(SealedStore, makeMemory(options))

  /**
   * A fake whose missing methods die loudly naming the method, for tests that need one or two.
   *
   * @example
   * SealedStore.layerTest({ get: () => Effect.succeed(Option.none()) })
   */
  static readonly layerTest = (impl: Partial<SealedStoreShape>): Layer.Layer<SealedStore> =>
    Layer.succeed(SealedStore, {
      dir: undefined,
      isProtectedPath: () => {
        throw new Error('SealedStore.layerTest: isProtectedPath was not provided')
      },
      put: missing('put'),
      get: missing('get'),
      remove: missing('remove'),
      list: missing('list'),
      problems: missing('problems'),
      discard: missing('discard'),
      update: missing('update'),
      clear: missing('clear'),
      prune: missing('prune'),
      ...impl,
    })
}
