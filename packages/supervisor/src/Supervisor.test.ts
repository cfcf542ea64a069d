import { it } from '@effect/vitest'
import { MAIN_CONTEXT } from '@errands/runtime'
import { SealedStore } from '@errands/store'
import { Effect, Either, Exit, Layer, TestClock } from 'effect'
import { describe, expect } from 'vitest'
import { AllBusy } from '@errands/sessions'
import { words } from './health.ts'
import { services, testSupervisor, visitAs } from './testing.ts'

const task = (id: string) => ({ id, kind: 'task' as const })
const chat = (id: string) => ({ id, kind: 'chat' as const })

describe('Supervisor', () => {
  it.scoped('gives every task and helper a context of its own, and chats the main one (E1, E2)', () =>
    Effect.gen(function* () {
      const { supervisor } = yield* services
      const a = yield* supervisor.open(task('a'))
      const h = yield* supervisor.open({ id: 'a/h1', kind: 'task', helper: true })
      const c = yield* supervisor.open(chat('c'))
      expect(a.isolated && h.isolated).toBe(true)
      expect(a.contextId).not.toBe(h.contextId)
      expect(c).toEqual({ conversationId: 'c', contextId: MAIN_CONTEXT, isolated: false })
      expect((yield* supervisor.view('a/h1')).reason).toBe('helper')
      expect((yield* supervisor.view('c')).state).toBe('main')
    }).pipe(Effect.provide(testSupervisor({ maxErrands: 4 }))),
  )

  it.scoped('toggles a chat onto a context of its own and back (E2); tasks cannot be toggled', () =>
    Effect.gen(function* () {
      const { supervisor } = yield* services
      yield* supervisor.open(chat('c'))
      const on = yield* supervisor.setOwnBrowser('c', true)
      expect(on).toMatchObject({ state: 'active', reason: 'own-browser' })
      const inside = yield* supervisor.use('c', (b) => Effect.succeed(b))
      expect(inside.isolated).toBe(true)
      expect((yield* supervisor.setOwnBrowser('c', false)).state).toBe('main')
      expect((yield* supervisor.use('c', (b) => Effect.succeed(b))).contextId).toBe(MAIN_CONTEXT)
      yield* supervisor.open(task('t'))
      const refused = yield* Effect.either(supervisor.setOwnBrowser('t', false))
      expect(Either.isLeft(refused) && refused.left._tag).toBe('InvalidRequest')
    }).pipe(Effect.provide(testSupervisor())),
  )

  it.scoped('when full, parks the least recently used errand nobody drives or watches (C2)', () =>
    Effect.gen(function* () {
      const { supervisor } = yield* services
      yield* supervisor.open(task('a'))
      yield* TestClock.adjust(10)
      yield* supervisor.open(task('b'))
      yield* TestClock.adjust(10)
      yield* supervisor.use('a', () => Effect.void) // a is now more recent than b
      yield* TestClock.adjust(10)
      yield* supervisor.open(task('c'))
      expect((yield* supervisor.view('b')).state).toBe('parked')
      expect((yield* supervisor.view('a')).state).toBe('active')
      expect(yield* supervisor.capacity).toEqual({
        open: 2,
        parked: 1,
        frozen: 0,
        limit: 2,
        personDriving: 0,
        waitingForPerson: 0,
      })
    }).pipe(Effect.provide(testSupervisor({ maxErrands: 2 }))),
  )

  it.scoped('never parks a driven or watched errand to make room', () =>
    Effect.gen(function* () {
      const { supervisor } = yield* services
      yield* supervisor.open(task('a'))
      yield* TestClock.adjust(10)
      yield* supervisor.open(task('b'))
      yield* supervisor.drive('a') // the oldest, but driven
      yield* TestClock.adjust(10)
      yield* supervisor.open(task('c'))
      expect((yield* supervisor.view('a')).state).toBe('active')
      expect((yield* supervisor.view('b')).state).toBe('parked')
      yield* supervisor.watch('c')
      const refused = yield* Effect.either(supervisor.open(task('d')))
      expect(Either.isLeft(refused)).toBe(true)
    }).pipe(Effect.provide(testSupervisor({ maxErrands: 2 }))),
  )

  it.scoped('refuses in words a model can act on when every slot is busy (C3)', () =>
    Effect.gen(function* () {
      const { supervisor } = yield* services
      yield* supervisor.open(task('a'))
      yield* supervisor.drive('a')
      const exit = yield* Effect.exit(supervisor.open(task('b')))
      expect(exit).toStrictEqual(Exit.fail(AllBusy.of(1)))
      const error = Exit.isFailure(exit) ? (exit.cause as { error?: AllBusy }).error : undefined
      expect(error?.message).toMatch(/All 1 browser slots are busy.*wait a minute and try again/)
      expect(error?.status).toBe(503)
      // b was registered but holds nothing; once a is free, b gets its slot.
      yield* supervisor.undrive('a')
      expect((yield* supervisor.use('b', (x) => Effect.succeed(x))).isolated).toBe(true)
      expect((yield* supervisor.view('a')).state).toBe('parked')
    }).pipe(Effect.provide(testSupervisor({ maxErrands: 1 }))),
  )

  it.scoped(
    'the idle sweep freezes errands idle past the limit, then parks them past the second, on the clock (C4)',
    () =>
      Effect.gen(function* () {
        const { supervisor, memory } = yield* services
        const { contextId } = yield* supervisor.open(task('idle'))
        yield* supervisor.open(task('busy'))
        yield* supervisor.drive('busy')
        yield* TestClock.adjust(59_999)
        expect((yield* supervisor.view('idle')).state).toBe('active')
        yield* TestClock.adjust(15_001) // the next sweep after the limit
        yield* supervisor.settle
        expect((yield* supervisor.view('idle')).state).toBe('frozen')
        expect(memory.frozen.has(contextId)).toBe(true)
        yield* TestClock.adjust(45_000) // 120 s idle: the next sweep after the second limit
        yield* supervisor.settle
        expect((yield* supervisor.view('idle')).state).toBe('parked')
        expect(yield* memory.isOpen(contextId)).toBe(false)
        expect((yield* supervisor.view('busy')).state).toBe('active')
        expect((yield* supervisor.health).map((m) => m.text)).toContain(words.parked('idle'))
      }).pipe(
        Effect.provide(testSupervisor({ maxErrands: 4, idleMs: 60_000, parkIdleMs: 120_000, sweepEveryMs: 15_000 })),
      ),
  )

  it.scoped('park then resume gives back exactly what was parked (E4)', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const { contextId } = yield* supervisor.open(task('a'))
      visitAs(memory, contextId, 'a')
      yield* Effect.orDie(memory.openTab(contextId, 'https://other.test/page'))
      const before = yield* Effect.orDie(memory.snapshot(contextId))
      yield* supervisor.taskChanged('a', 'interrupted')
      expect(yield* memory.isOpen(contextId)).toBe(false)
      const back = yield* supervisor.resume('a')
      expect(back.contextId).not.toBe(contextId)
      expect(yield* Effect.orDie(memory.snapshot(back.contextId))).toEqual(before)
    }).pipe(Effect.provide(testSupervisor())),
  )

  it.scoped(
    "park then resume gives back the errand's own IndexedDB; a database left out of it is said in health once, " +
      'by origin (E7)',
    () =>
      Effect.gen(function* () {
        const { supervisor, memory } = yield* services
        const { contextId } = yield* supervisor.open(task('a'))
        const databases = [{ name: 'mail', version: 2, data: '{"stores":[],"blobs":[]}' }]
        memory.visit(contextId, 'https://shop.test/', { indexedDB: databases })
        memory.visit(contextId, 'https://flood.test/', { indexedDB: databases, indexedDbLeftOut: 'over-cap' })
        yield* TestClock.adjust(3_000)
        yield* supervisor.settle
        memory.visit(contextId, 'https://shop.test/again') // a second snapshot: health is not said again
        yield* TestClock.adjust(3_000)
        yield* supervisor.settle
        yield* supervisor.taskChanged('a', 'interrupted')
        const back = yield* supervisor.resume('a')
        expect((yield* Effect.orDie(memory.snapshot(back.contextId))).indexedDB).toEqual([
          { origin: 'https://shop.test', databases },
        ])
        const said = (yield* supervisor.health).filter((m) => m.text.includes('IndexedDB'))
        expect(said.map((m) => m.text)).toEqual([words.indexedDbLeftOut('https://flood.test', 'over-cap')])
        expect(said[0]!.text).toContain('ERRANDS_INDEXEDDB_MAX_ERRAND_BYTES')
      }).pipe(Effect.provide(testSupervisor())),
  )

  it.scoped('a crash heals from the last snapshot, on next use, and health says so (H1–H3)', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const { contextId } = yield* supervisor.open(task('a'))
      visitAs(memory, contextId, 'a')
      yield* TestClock.adjust(3_000)
      yield* supervisor.settle
      const snapshot = supervisor.lastSnapshot('a')
      expect(snapshot?.storage.cookies.map((c) => c.name)).toEqual(['basket-a'])
      visitAs(memory, contextId, 'later') // after the snapshot: lost in the crash, by design
      memory.crashBrowser()
      expect((yield* supervisor.view('a')).detail).toBe('healing.waiting')
      const healed = yield* supervisor.use('a', (b) => Effect.succeed(b))
      const state = yield* Effect.orDie(memory.storageState(healed.contextId))
      expect(state.cookies.map((c) => c.name)).toEqual(['basket-a'])
      expect((yield* supervisor.health).map((m) => m.text)).toContain(words.healed)
    }).pipe(Effect.provide(testSupervisor())),
  )

  it.scoped('a watched errand heals at once after a crash', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const { contextId } = yield* supervisor.open(task('a'))
      yield* supervisor.watch('a')
      memory.crashContext(contextId)
      yield* supervisor.settle
      expect((yield* supervisor.view('a')).state).toBe('active')
    }).pipe(Effect.provide(testSupervisor())),
  )

  it.scoped('task done closes and forgets: the next errand of the conversation starts empty (E3)', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const first = yield* supervisor.open(task('a'))
      visitAs(memory, first.contextId, 'a')
      yield* supervisor.taskChanged('a', 'done')
      expect((yield* supervisor.view('a')).state).toBe('closed')
      expect(yield* memory.isOpen(first.contextId)).toBe(false)
      const second = yield* supervisor.use('a', (b) => Effect.succeed(b))
      expect((yield* Effect.orDie(memory.storageState(second.contextId))).cookies).toEqual([])
    }).pipe(Effect.provide(testSupervisor())),
  )

  it.scoped('release is idempotent and leaves nothing behind', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const store = yield* SealedStore
      yield* supervisor.open(task('a'))
      yield* supervisor.taskChanged('a', 'failed')
      expect((yield* store.list()).map((e) => e.errandId)).toEqual(['a'])
      yield* supervisor.release('a')
      yield* supervisor.release('a')
      yield* supervisor.release('never-seen')
      expect(yield* store.list()).toEqual([])
      expect(memory.openContexts()).toEqual([MAIN_CONTEXT])
    }).pipe(Effect.provide(testSupervisor())),
  )

  it.scoped('shutdown parks every open errand; the next start finds them parked and resumes them (E5)', () =>
    Effect.gen(function* () {
      const store = yield* Layer.memoize(SealedStore.layerMemory)
      const first = testSupervisor({ maxErrands: 3 }, {}, store)
      const saved = yield* Effect.scoped(
        Effect.gen(function* () {
          const { supervisor, memory } = yield* services
          const a = yield* supervisor.open(task('a'))
          const c = yield* supervisor.open(chat('c'))
          yield* supervisor.setOwnBrowser('c', true)
          visitAs(memory, a.contextId, 'a')
          expect(c.isolated).toBe(false)
          return yield* Effect.orDie(memory.snapshot(a.contextId))
        }).pipe(Effect.provide(first)),
      )
      yield* Effect.scoped(
        Effect.gen(function* () {
          const { supervisor, memory } = yield* services
          const views = yield* supervisor.list
          expect(views.map((v) => [v.conversationId, v.state]).sort()).toEqual([
            ['a', 'parked'],
            ['c', 'parked'],
          ])
          const a = yield* supervisor.resume('a')
          expect(yield* Effect.orDie(memory.snapshot(a.contextId))).toEqual(saved)
          expect((yield* supervisor.resume('c')).isolated).toBe(true)
        }).pipe(Effect.provide(testSupervisor({ maxErrands: 3 }, {}, store))),
      )
    }),
  )

  it.scoped('an unreadable parked record is dropped for that errand only, and health says so (S4)', () =>
    Effect.gen(function* () {
      const { supervisor } = yield* services
      yield* supervisor.open(task('a'))
      yield* supervisor.open(task('b'))
      yield* supervisor.taskChanged('a', 'interrupted')
      yield* supervisor.taskChanged('b', 'interrupted')
      const store = yield* SealedStore
      yield* store.remove('a') // as if retention or damage took it
      const refused = yield* Effect.either(supervisor.resume('a'))
      expect(Either.isLeft(refused) && refused.left._tag).toBe('ErrandUnavailable')
      expect((yield* supervisor.view('a')).state).toBe('closed')
      expect((yield* supervisor.resume('b')).isolated).toBe(true)
      expect((yield* supervisor.health).some((m) => m.text.includes('could not be read'))).toBe(true)
    }).pipe(Effect.provide(testSupervisor({ maxErrands: 3 }))),
  )

  it.scoped('a full disk keeps the errand open with nothing lost', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const { contextId } = yield* supervisor.open(task('a'))
      visitAs(memory, contextId, 'a')
      const view = yield* supervisor.taskChanged('a', 'interrupted')
      expect(view.state).toBe('active')
      expect(view.lastError).toMatch(/disk-full/)
      expect((yield* Effect.orDie(memory.storageState(contextId))).cookies).toHaveLength(1)
    }).pipe(
      Effect.provide(
        testSupervisor(
          {},
          {},
          SealedStore.layerTest({
            put: () =>
              Effect.fail(
                new (class extends Error {
                  readonly _tag = 'StoreError'
                  readonly reason = 'disk-full'
                })('no space left') as never,
              ),
            remove: () => Effect.void,
            list: () => Effect.succeed([]),
            problems: () => Effect.succeed([]),
          }),
        ),
      ),
    ),
  )

  it.scoped('with sealSnapshots, a snapshot that cannot be sealed keeps the errand open and health says so', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const { contextId } = yield* supervisor.open(task('a'))
      visitAs(memory, contextId, 'a')
      yield* supervisor.pageLoaded('a')
      yield* TestClock.adjust(150)
      yield* supervisor.settle
      expect((yield* supervisor.view('a')).state).toBe('active')
      expect((yield* supervisor.health).filter((m) => m.conversationId === 'a').map((m) => m.text)).toContain(
        words.sealFailed('disk-full'),
      )
    }).pipe(
      Effect.provide(
        testSupervisor(
          { snapshotDebounceMs: 100 },
          { sealSnapshots: true },
          SealedStore.layerTest({
            put: () =>
              Effect.fail(
                new (class extends Error {
                  readonly _tag = 'StoreError'
                  readonly reason = 'disk-full'
                })('no space left') as never,
              ),
            remove: () => Effect.void,
            list: () => Effect.succeed([]),
            problems: () => Effect.succeed([]),
          }),
        ),
      ),
    ),
  )

  it.scoped(
    'regression (issue 2, found by the property): a parked task that runs again is admitted, never over the cap',
    () =>
      Effect.gen(function* () {
        const { supervisor, memory } = yield* services
        yield* supervisor.open(task('a'))
        yield* supervisor.taskChanged('a', 'interrupted')
        yield* supervisor.open(task('b'))
        yield* supervisor.drive('b')
        yield* supervisor.taskChanged('a', 'running') // every slot busy: a stays parked
        expect((yield* supervisor.view('a')).state).toBe('parked')
        expect(memory.openContexts().length - 1).toBe(1)
        yield* supervisor.undrive('b')
        yield* supervisor.taskChanged('a', 'running') // b is idle now: it makes room
        expect((yield* supervisor.view('a')).state).toBe('active')
        expect((yield* supervisor.view('b')).state).toBe('parked')
        expect(memory.openContexts().length - 1).toBe(1)
      }).pipe(Effect.provide(testSupervisor({ maxErrands: 1 }))),
  )

  it.scoped(
    'regression (issue 2, found by the property in CI): a watched errand whose heal backoff ends while the cap is ' +
      'full waits instead of exceeding it',
    () =>
      Effect.gen(function* () {
        const { supervisor, memory } = yield* services
        const first = yield* supervisor.open(task('w'))
        memory.crashContext(first.contextId)
        yield* supervisor.use('w', () => Effect.void) // first heal
        memory.crashContext(supervisor.contextOf('w')!) // crashes again: cooling, 500 ms backoff
        yield* supervisor.watch('w')
        expect((yield* supervisor.view('w')).detail).toBe('healing.cooling')
        yield* supervisor.open(task('x'))
        yield* supervisor.drive('x') // the only slot is taken and busy
        yield* TestClock.adjust(500)
        yield* supervisor.settle
        expect((yield* supervisor.view('w')).detail).toBe('healing.waiting')
        expect(memory.openContexts().length - 1).toBe(1)
        yield* supervisor.undrive('x')
        yield* supervisor.unwatch('w')
        yield* supervisor.watch('w') // watching again once a slot can be made: heals at once
        yield* supervisor.settle
        expect((yield* supervisor.view('w')).state).toBe('active')
        expect(memory.openContexts().length - 1).toBe(1)
      }).pipe(Effect.provide(testSupervisor({ maxErrands: 1 }, { healBackoffMs: 500 }))),
  )

  it.scoped('unknown conversations are a typed error', () =>
    Effect.gen(function* () {
      const { supervisor } = yield* services
      const result = yield* Effect.either(supervisor.taskChanged('nobody', 'done'))
      expect(Either.isLeft(result) && result.left._tag).toBe('UnknownConversation')
    }).pipe(Effect.provide(testSupervisor())),
  )
})
