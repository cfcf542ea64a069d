import { describe, expect, it } from '@effect/vitest'
import { Effect, Either } from 'effect'
import { storeContract } from './contract.ts'
import { makeMemory } from './memory.ts'
import { SealedStore } from './SealedStore.ts'

storeContract('memory', (retention) =>
  retention === undefined ? SealedStore.layerMemory : SealedStore.layerMemoryWith(retention),
)

describe('memory store', () => {
  it.effect('reports no problems and protects no path', () =>
    Effect.gen(function* () {
      const store = yield* SealedStore
      expect(yield* store.problems()).toEqual([])
      expect(store.isProtectedPath('/anything')).toBe(false)
      expect(store.dir).toBeUndefined()
    }).pipe(Effect.provide(SealedStore.layerMemory)),
  )

  it.effect('checks its retention options like the disk store', () =>
    Effect.gen(function* () {
      const result = yield* Effect.either(makeMemory({ maxRecords: 0 }))
      expect(Either.isLeft(result) && result.left.reason).toBe('invalid-options')
      expect(Either.isLeft(result) && result.left.message).toContain('maxRecords must be an integer in 1..100000')
    }),
  )
})
