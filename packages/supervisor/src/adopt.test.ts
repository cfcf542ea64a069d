import { it } from '@effect/vitest'
import { SealedStore } from '@errands/store'
import { type Context, Effect, Either, Layer, Option, TestClock } from 'effect'
import { describe, expect } from 'vitest'
import { services, testSupervisor, visitAs } from './testing.ts'

const task = (id: string) => ({ id, kind: 'task' as const })

/**
 * Two supervisors with runtimes of their own on one store: two cluster peers (issue #16); `holdsOnB` is what the
 * second may hold (its shards, in a cluster).
 */
const peers = (options: { sealSnapshots?: boolean } = {}, holdsOnB?: (conversationId: string) => boolean) =>
  Effect.gen(function* () {
    const store = yield* Layer.memoize(SealedStore.layerMemory)
    const a = yield* Layer.build(testSupervisor({ maxErrands: 3, snapshotDebounceMs: 100 }, options, store))
    const b = yield* Layer.build(
      testSupervisor({ maxErrands: 3, snapshotDebounceMs: 100 }, { ...options, holds: holdsOnB }, store),
    )
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

  it.scoped(
    'a peer that may not hold an errand (its owner is another runner, K1) opens, resumes and lists nothing for it, ' +
      'and still opens what it may hold',
    () =>
      Effect.gen(function* () {
        const { onA, onB } = yield* peers({ sealSnapshots: true }, (id) => id !== 't')
        yield* onA(openAndSnapshot('t'))
        yield* onB(
          Effect.gen(function* () {
            const { supervisor, memory } = yield* services
            const opened = yield* Effect.either(supervisor.open(task('t')))
            expect(Either.isLeft(opened) && opened.left).toMatchObject({
              _tag: 'ErrandUnavailable',
              reason: 'held-elsewhere',
            })
            // Nothing half-done: no context, and a conversation first seen here is not listed.
            expect(memory.openContexts()).toHaveLength(1)
            expect((yield* supervisor.list).map((v) => v.conversationId)).toEqual([])
            // What the owner sealed is adopted as parked, and is not resumed here either.
            expect(yield* supervisor.adopt('t')).toBe('adopted')
            const resumed = yield* Effect.either(supervisor.resume('t'))
            expect(Either.isLeft(resumed) && resumed.left.reason).toBe('held-elsewhere')
            expect((yield* supervisor.view('t')).state).toBe('parked')
            expect(memory.openContexts()).toHaveLength(1)
            // Its own errands open as ever.
            expect((yield* supervisor.open(task('u'))).isolated).toBe(true)
            expect(memory.openContexts()).toHaveLength(2)
          }),
        )
      }),
  )

  it.scoped(
    'sealNow seals an open errand as it is now, so a peer resumes it with what was put in since its last snapshot ' +
      '(a lent sign-in, L2, K3); without sealSnapshots it writes nothing',
    () =>
      Effect.gen(function* () {
        const { onA, onB } = yield* peers({ sealSnapshots: true })
        const before = yield* onA(
          Effect.gen(function* () {
            const { supervisor, memory } = yield* services
            const contextId = yield* openAndSnapshot('t')
            const sealed = yield* Effect.flatMap(SealedStore, (store) => store.get('t'))
            // Put in after the debounced snapshot, as an Allow lends a sign-in; no page loads afterwards.
            visitAs(memory, contextId, 'lent', 'bank.test')
            yield* supervisor.sealNow('t')
            return sealed
          }),
        )
        const cookies = yield* onB(
          Effect.gen(function* () {
            const { supervisor, memory } = yield* services
            expect(yield* supervisor.adopt('t')).toBe('adopted')
            const binding = yield* supervisor.resume('t')
            return (yield* Effect.orDie(memory.snapshot(binding.contextId))).storage.cookies.map((c) => c.name).sort()
          }),
        )
        // The control: the last debounced seal did not hold it.
        expect(Option.getOrThrow(before).snapshot.storage.cookies.map((c) => c.name)).toEqual(['basket-t'])
        expect(cookies).toEqual(['basket-lent', 'basket-t'])

        const { onA: single } = yield* peers()
        const listed = yield* single(
          Effect.gen(function* () {
            yield* openAndSnapshot('s')
            yield* (yield* services).supervisor.sealNow('s')
            return yield* Effect.flatMap(SealedStore, (store) => store.list())
          }),
        )
        expect(listed).toEqual([])
      }),
  )
})
