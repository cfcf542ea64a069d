import { it } from '@effect/vitest'
import { SealedStore } from '@errands/store'
import { type Context, Effect, Layer, TestClock } from 'effect'
import { describe, expect } from 'vitest'
import { services, testSupervisor, visitAs } from './testing.ts'

const task = (id: string) => ({ id, kind: 'task' as const })

/** Two supervisors with runtimes of their own on one store: two cluster peers (issue #16). */
const peers = (options: { sealSnapshots?: boolean } = {}) =>
  Effect.gen(function* () {
    const store = yield* Layer.memoize(SealedStore.layerMemory)
    const a = yield* Layer.build(testSupervisor({ maxErrands: 3, snapshotDebounceMs: 100 }, options, store))
    const b = yield* Layer.build(testSupervisor({ maxErrands: 3, snapshotDebounceMs: 100 }, options, store))
    const on =
      (ctx: Context.Context<never>) =>
      <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.provide(effect, ctx as Context.Context<R>)
    return { onA: on(a as Context.Context<never>), onB: on(b as Context.Context<never>) }
  })

/** Opens a task, visits a site in it and lets the debounced snapshot (H1) be taken. */
const openAndSnapshot = (id: string) =>
  Effect.gen(function* () {
    const { supervisor, memory } = yield* services
    const opened = yield* supervisor.open(task(id))
    visitAs(memory, opened.contextId, id)
    yield* supervisor.pageLoaded(id)
    yield* TestClock.adjust(150)
    yield* supervisor.settle
    return opened.contextId
  })

describe('Supervisor.adopt (an errand sealed by a peer on the same store, issue #16)', () => {
  it.scoped('a peer adopts what another parked and resumes it as it was; a record closed elsewhere is forgotten', () =>
    Effect.gen(function* () {
      const { onA, onB } = yield* peers()
      const saved = yield* onA(
        Effect.gen(function* () {
          const { supervisor, memory } = yield* services
          const opened = yield* supervisor.open(task('a'))
          visitAs(memory, opened.contextId, 'a')
          const snapshot = yield* Effect.orDie(memory.snapshot(opened.contextId))
          yield* supervisor.taskChanged('a', 'interrupted')
          return snapshot
        }),
      )
      const resumed = yield* onB(
        Effect.gen(function* () {
          const { supervisor, memory } = yield* services
          expect(yield* supervisor.adopt('a')).toBe('adopted')
          expect(yield* supervisor.adopt('a')).toBe('known')
          expect(yield* supervisor.adopt('never-sealed')).toBe('absent')
          const binding = yield* supervisor.resume('a')
          const snapshot = yield* Effect.orDie(memory.snapshot(binding.contextId))
          yield* supervisor.taskChanged('a', 'done')
          return snapshot
        }),
      )
      expect(resumed).toEqual(saved)
      yield* onA(
        Effect.gen(function* () {
          const { supervisor } = yield* services
          expect((yield* supervisor.view('a')).state).toBe('parked')
          expect(yield* supervisor.adopt('a')).toBe('forgotten')
          expect((yield* supervisor.list).map((v) => v.conversationId)).toEqual([])
        }),
      )
    }),
  )

  it.scoped(
    'with sealSnapshots, the debounced snapshot of an open errand is sealed, so a peer resumes it when its owner is ' +
      'gone (H1, K3)',
    () =>
      Effect.gen(function* () {
        const { onA, onB } = yield* peers({ sealSnapshots: true })
        const taken = yield* onA(
          Effect.gen(function* () {
            const { supervisor, memory } = yield* services
            const contextId = yield* openAndSnapshot('t')
            expect((yield* supervisor.view('t')).state).toBe('active')
            return yield* Effect.orDie(memory.snapshot(contextId))
          }),
        )
        const { sealed, reopened } = yield* onB(
          Effect.gen(function* () {
            const { supervisor, memory } = yield* services
            const sealed = (yield* SealedStore).list()
            expect(yield* supervisor.adopt('t')).toBe('adopted')
            const binding = yield* supervisor.resume('t')
            return {
              sealed: (yield* sealed).map((e) => e.errandId),
              reopened: yield* Effect.orDie(memory.snapshot(binding.contextId)),
            }
          }),
        )
        expect(sealed).toEqual(['t'])
        expect(reopened).toEqual(taken)
      }),
  )

  it.scoped("without sealSnapshots an open errand leaves no record (today's single-host behaviour)", () =>
    Effect.gen(function* () {
      const { onA } = yield* peers()
      const listed = yield* onA(
        Effect.zipRight(
          openAndSnapshot('t'),
          Effect.flatMap(SealedStore, (store) => store.list()),
        ),
      )
      expect(listed).toEqual([])
    }),
  )
})
