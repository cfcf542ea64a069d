import { cookie, memoryRuntimeLayer, MemoryRuntimeTag, type MemoryRuntime, type Runtime } from '@errands/runtime'
import { SealedStore } from '@errands/store'
import { Effect, Layer } from 'effect'
import { defaultSettings, type SupervisorSettings } from './config.ts'
import { Supervisor } from './Supervisor.ts'
import type { SupervisorOptions } from './types.ts'

/**
 * The supervisor on the deterministic runtime and an in-memory sealed store — the set-up of the
 * supervisor's unit tests and property tests. The store layer can be shared across two
 * supervisors to simulate a restart.
 *
 * @example
 * it.scoped('parks', () => Effect.gen(function* () { ... }).pipe(Effect.provide(testSupervisor({ maxErrands: 2 }))))
 */
export const testSupervisor = (
  settings: Partial<SupervisorSettings> = {},
  options: Omit<SupervisorOptions, 'settings'> = {},
  store: Layer.Layer<SealedStore> = SealedStore.layerMemory,
): Layer.Layer<Supervisor | Runtime | MemoryRuntimeTag | SealedStore> =>
  Supervisor.layer({
    ...options,
    settings: defaultSettings({ maxErrands: 2, dataDir: '/nonexistent', ...settings }),
  }).pipe(Layer.provideMerge(Layer.merge(memoryRuntimeLayer, store)), Layer.orDie)

/** A site visit in the memory runtime that leaves a cookie and a localStorage item named after `owner`. */
export const visitAs = (memory: MemoryRuntime, contextId: string, owner: string, site = 'shop.test') =>
  memory.visit(contextId, `https://${site}/${owner}`, {
    setCookies: [cookie(`basket-${owner}`, `secret-${owner}`, site)],
    localStorage: { [`basket-${owner}`]: `item-${owner}` },
  })

/** The supervisor and the memory runtime, together. */
export const services = Effect.all({ supervisor: Supervisor, memory: MemoryRuntimeTag })

/**
 * A context's files as a test compares them: every file of its folder with its bytes as an array.
 *
 * @example
 * expect(yield* folderOf(second.contextId)).toEqual(before)
 */
export const folderOf = (contextId: string) =>
  Effect.flatMap(services, ({ memory }) =>
    Effect.orDie(
      Effect.map(memory.files.pack(contextId, Infinity), ({ files }) =>
        files.map((f) => ({ ...f, bytes: [...f.bytes] })),
      ),
    ),
  )
