import { it } from '@effect/vitest'
import { Effect, TestClock } from 'effect'
import { describe, expect } from 'vitest'
import { services, testSupervisor, visitAs } from './testing.ts'

// Setting aside in two steps (C4, C2; docs/parking.md): the memory runtime records what is frozen,
// the TestClock drives the sweep.
const task = (id: string) => ({ id, kind: 'task' as const })
const settings = { maxErrands: 2, idleMs: 60_000, parkIdleMs: 600_000, sweepEveryMs: 15_000 }

/** Opens `id` and lets it idle into `frozen` on the clock. */
const frozenErrand = (id: string) =>
  Effect.gen(function* () {
    const { supervisor } = yield* services
    const binding = yield* supervisor.open(task(id))
    yield* TestClock.adjust(75_000)
    yield* supervisor.settle
    expect((yield* supervisor.view(id)).state).toBe('frozen')
    return binding
  })

describe('frozen errands in the supervisor', () => {
  it.scoped(
    'the cap seals a frozen errand before it parks an active idle one, even a less recently used one (C2)',
    () =>
      Effect.gen(function* () {
        const { supervisor, memory } = yield* services
        yield* supervisor.open(task('older'))
        // Watched, `older` is not frozen by the sweep; watching does not count as use, so once the
        // watcher leaves it is an active idle errand less recently used than the frozen one.
        yield* supervisor.watch('older')
        yield* TestClock.adjust(1_000)
        const frozen = yield* frozenErrand('frozen')
        yield* supervisor.unwatch('older')
        expect((yield* supervisor.view('older')).state).toBe('active')
        expect((yield* supervisor.view('older')).lastUsedAt).toBeLessThan((yield* supervisor.view('frozen')).lastUsedAt)
        yield* supervisor.open(task('newcomer'))
        expect((yield* supervisor.view('frozen')).state).toBe('parked')
        expect((yield* supervisor.view('older')).state).toBe('active')
        expect(yield* memory.isOpen(frozen.contextId)).toBe(false)
        expect((yield* supervisor.capacity).open).toBe(2)
      }).pipe(Effect.provide(testSupervisor(settings))),
  )

  it.scoped('a frozen errand holds its slot: it counts toward the cap and keeps its context', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const { contextId } = yield* frozenErrand('a')
      expect(yield* memory.isOpen(contextId)).toBe(true)
      expect(memory.frozen.has(contextId)).toBe(true)
      expect(yield* supervisor.capacity).toMatchObject({ open: 1, frozen: 1, parked: 0 })
      expect((yield* supervisor.view('a')).contextId).toBe(contextId)
    }).pipe(Effect.provide(testSupervisor(settings))),
  )

  it.scoped.each(['drive', 'use', 'resume', 'open'] as const)(
    '%s thaws a frozen errand on the same context, exactly as it was, without opening one',
    (verb) =>
      Effect.gen(function* () {
        const { supervisor, memory } = yield* services
        const { contextId } = yield* frozenErrand('a')
        visitAs(memory, contextId, 'a')
        const before = yield* Effect.orDie(memory.snapshot(contextId))
        const opened = memory.opened
        const binding =
          verb === 'drive'
            ? yield* supervisor.drive('a')
            : verb === 'use'
              ? yield* supervisor.use('a', (b) => Effect.succeed(b))
              : verb === 'resume'
                ? yield* supervisor.resume('a')
                : yield* supervisor.open(task('a'))
        expect(binding.contextId).toBe(contextId)
        expect((yield* supervisor.view('a')).state).toBe('active')
        expect(memory.frozen.has(contextId)).toBe(false)
        expect(memory.opened).toBe(opened)
        expect(yield* Effect.orDie(memory.snapshot(contextId))).toEqual(before)
      }).pipe(Effect.provide(testSupervisor(settings))),
  )

  it.scoped('a driven errand is never frozen, nor one a person watches; idleness after them is counted anew', () =>
    Effect.gen(function* () {
      const { supervisor } = yield* services
      yield* supervisor.open(task('a'))
      yield* supervisor.drive('a')
      yield* TestClock.adjust(300_000)
      yield* supervisor.settle
      expect((yield* supervisor.view('a')).state).toBe('active')
      yield* supervisor.undrive('a')
      yield* TestClock.adjust(45_000)
      yield* supervisor.settle
      expect((yield* supervisor.view('a')).state).toBe('active')
      yield* TestClock.adjust(30_000)
      yield* supervisor.settle
      expect((yield* supervisor.view('a')).state).toBe('frozen')
    }).pipe(Effect.provide(testSupervisor(settings))),
  )

  it.scoped('the second idle seals it; the sealed record resumes as it was (C4, E4)', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const { contextId } = yield* supervisor.open(task('a'))
      visitAs(memory, contextId, 'a')
      const before = yield* Effect.orDie(memory.snapshot(contextId))
      yield* TestClock.adjust(75_000)
      yield* supervisor.settle
      expect((yield* supervisor.view('a')).state).toBe('frozen')
      yield* TestClock.adjust(540_000)
      yield* supervisor.settle
      expect((yield* supervisor.view('a')).state).toBe('parked')
      const back = yield* supervisor.resume('a')
      expect(back.contextId).not.toBe(contextId)
      expect(yield* Effect.orDie(memory.snapshot(back.contextId))).toEqual(before)
    }).pipe(Effect.provide(testSupervisor(settings))),
  )

  it.scoped('an errand whose snapshot is due is not frozen until it is taken: freezing would drop it (H1)', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const { contextId } = yield* supervisor.open(task('a'))
      yield* TestClock.adjust(59_000)
      visitAs(memory, contextId, 'a') // a load: the snapshot is due 30 s later
      yield* TestClock.adjust(16_000)
      yield* supervisor.settle
      expect((yield* supervisor.view('a')).detail).toContain('snapshot=due')
      yield* TestClock.adjust(15_000) // 90 s: taken at 89 s, then the sweep freezes it
      yield* supervisor.settle
      expect((yield* supervisor.view('a')).state).toBe('frozen')
      expect(supervisor.lastSnapshot('a')?.takenAt).toBe(89_000)
    }).pipe(Effect.provide(testSupervisor({ ...settings, snapshotDebounceMs: 30_000 }))),
  )
})
