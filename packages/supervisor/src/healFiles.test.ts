import { it } from '@effect/vitest'
import { SealedStore } from '@errands/store'
import { Effect, Option, TestClock } from 'effect'
import { describe, expect } from 'vitest'
import { folderOf, services, testSupervisor } from './testing.ts'

// K3 with F3 (issue #25): a crashed context's files folder is set aside by the runtime, claimed by
// the errand's heal (its files move into the new context's folder), sealed in its record when it
// parks instead (healing gives up, a shutdown), or dropped when the task ends. The real-Chromium side is
// test/files/heal.test.ts.
const task = (id: string) => ({ id, kind: 'task' as const })
const REPORT = new TextEncoder().encode('%PDF-1.4 a report')
const NOTE = new TextEncoder().encode('a staged note')
const options = { maxHeals: 3, healBackoffMs: 1_000, healWindowMs: 60_000 }

/** Task `id` opened with a download and a staged file in its folder: its context and folder. */
const withFiles = (id: string) =>
  Effect.gen(function* () {
    const { supervisor, memory } = yield* services
    const { contextId } = yield* supervisor.open(task(id))
    memory.files.download(contextId, `${id}.pdf`, REPORT, `https://shop.test/${id}.pdf?token=t`)
    yield* Effect.orDie(memory.files.stage(contextId, 'note.txt', NOTE))
    return { contextId, before: yield* folderOf(contextId) }
  })

describe("a crashed errand's files (K3, F3)", () => {
  it.scoped(
    'a renderer crash sets the folder aside; the heal claims it: the same files in the new context, nothing left aside',
    () =>
      Effect.gen(function* () {
        const { supervisor, memory } = yield* services
        const { contextId, before } = yield* withFiles('a')
        memory.crashContext(contextId, true)
        expect((yield* supervisor.view('a')).detail).toBe('healing.waiting')
        expect(memory.files.asideCount('a')).toBe(1)
        yield* supervisor.use('a', () => Effect.void)
        const healed = supervisor.contextOf('a')!
        expect(healed).not.toBe(contextId)
        expect(yield* folderOf(healed)).toEqual(before)
        expect(memory.files.asideCount()).toBe(0)
      }).pipe(Effect.provide(testSupervisor({ maxErrands: 2 }, options))),
  )

  it.scoped("a whole-browser crash: every errand heals with its own files, none with another's", () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const a = yield* withFiles('a')
      const b = yield* withFiles('b')
      memory.crashBrowser()
      expect(memory.files.asideCount()).toBe(2)
      yield* supervisor.use('a', () => Effect.void)
      yield* supervisor.use('b', () => Effect.void)
      expect(yield* folderOf(supervisor.contextOf('a')!)).toEqual(a.before)
      expect(yield* folderOf(supervisor.contextOf('b')!)).toEqual(b.before)
      expect(memory.files.asideCount()).toBe(0)
    }).pipe(Effect.provide(testSupervisor({ maxErrands: 2 }, options))),
  )

  it.scoped('a healed context that crashes again is healed with the files once more', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const { contextId, before } = yield* withFiles('a')
      memory.crashContext(contextId, true)
      yield* supervisor.use('a', () => Effect.void)
      memory.crashContext(supervisor.contextOf('a')!, true)
      expect(memory.files.asideCount('a')).toBe(1)
      expect((yield* supervisor.view('a')).detail).toBe('healing.cooling') // the second heal waits its backoff
      yield* TestClock.adjust(1_000)
      yield* supervisor.use('a', () => Effect.void)
      expect(yield* folderOf(supervisor.contextOf('a')!)).toEqual(before)
      expect(memory.files.asideCount()).toBe(0)
    }).pipe(Effect.provide(testSupervisor({ maxErrands: 2 }, options))),
  )

  it.scoped('the task ends before the heal: the folder aside is dropped with the errand', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const { contextId } = yield* withFiles('a')
      memory.crashContext(contextId, true)
      expect(memory.files.asideCount('a')).toBe(1)
      yield* supervisor.taskChanged('a', 'done')
      yield* supervisor.settle
      expect(memory.files.asideCount()).toBe(0)
    }).pipe(Effect.provide(testSupervisor({ maxErrands: 2 }, options))),
  )

  it.scoped(
    'healing gives up (no heals left): the errand parks with the files aside sealed in its record, the folder is ' +
      'dropped, and a resume brings them back',
    () =>
      Effect.gen(function* () {
        const { supervisor, memory } = yield* services
        const { contextId, before } = yield* withFiles('a')
        memory.crashContext(contextId, true)
        yield* supervisor.settle
        expect(yield* supervisor.view('a')).toMatchObject({ state: 'parked' })
        expect(memory.files.asideCount()).toBe(0)
        expect(Option.map(yield* (yield* SealedStore).get('a'), (r) => r.files?.map((f) => f.name))).toEqual(
          Option.some(['a.pdf', 'note.txt']),
        )
        const back = yield* supervisor.resume('a')
        expect(yield* folderOf(back.contextId)).toEqual(before)
      }).pipe(Effect.provide(testSupervisor({ maxErrands: 2 }, { ...options, maxHeals: 0 }))),
  )

  it.scoped('a shutdown while an errand waits for its heal seals its files aside too', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      yield* withFiles('a')
      memory.crashBrowser()
      expect((yield* supervisor.view('a')).detail).toBe('healing.waiting')
      yield* supervisor.shutdown
      expect(memory.files.asideCount()).toBe(0)
      expect(Option.map(yield* (yield* SealedStore).get('a'), (r) => r.files?.map((f) => f.name))).toEqual(
        Option.some(['a.pdf', 'note.txt']),
      )
    }).pipe(Effect.provide(testSupervisor({ maxErrands: 2 }, options))),
  )
})
