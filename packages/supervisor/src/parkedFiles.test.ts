import { it } from '@effect/vitest'
import { SealedStore } from '@errands/store'
import { Effect, Option } from 'effect'
import { describe, expect } from 'vitest'
import { packFiles, unpackFiles } from './parkedFiles.ts'
import { folderOf, services, testSupervisor } from './testing.ts'

const task = (id: string) => ({ id, kind: 'task' as const })
const REPORT = new TextEncoder().encode('%PDF-1.4 a report')
const NOTE = new TextEncoder().encode('a staged note')

/** Task `a` opened, `name` downloaded into its folder, then parked (interrupted): its store and runtime. */
const parkedWith = (name: string) =>
  Effect.gen(function* () {
    const { supervisor, memory } = yield* services
    const store = yield* SealedStore
    const first = yield* supervisor.open(task('a'))
    memory.files.download(first.contextId, name, REPORT, `https://shop.test/${name}`)
    yield* supervisor.taskChanged('a', 'interrupted')
    return { supervisor, memory, store, first }
  })

// F3 (issue #25): the supervisor packs an errand's folder into its sealed record when it parks,
// puts it back when it resumes, and drops it with the record when the task ends (E3).
describe("an errand's files across a park (F3, E3)", () => {
  it.scoped('park seals the folder into the record; resume puts it back the same, under a new context', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const store = yield* SealedStore
      const first = yield* supervisor.open(task('a'))
      memory.files.download(first.contextId, 'report.pdf', REPORT, 'https://shop.test/inv/1.pdf?token=t')
      yield* Effect.orDie(memory.files.stage(first.contextId, 'note.txt', NOTE))
      const before = yield* folderOf(first.contextId)
      yield* supervisor.taskChanged('a', 'interrupted')
      expect((yield* supervisor.view('a')).state).toBe('parked')
      expect(yield* memory.isOpen(first.contextId)).toBe(false)
      const record = Option.getOrThrow(yield* store.get('a'))
      expect(record.files?.map((f) => [f.name, f.origin, f.source])).toEqual([
        ['report.pdf', 'download', 'https://shop.test/inv/1.pdf'],
        ['note.txt', 'staged', null],
      ])
      const second = yield* supervisor.resume('a')
      expect(second.contextId).not.toBe(first.contextId)
      expect(yield* folderOf(second.contextId)).toEqual(before)
    }).pipe(Effect.provide(testSupervisor())),
  )

  it.scoped('an errand with an empty folder parks no files; another errand never gets them', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const store = yield* SealedStore
      const a = yield* supervisor.open(task('a'))
      yield* supervisor.open(task('b'))
      memory.files.download(a.contextId, 'report.pdf', REPORT, 'https://shop.test/r.pdf')
      yield* supervisor.taskChanged('a', 'interrupted')
      yield* supervisor.taskChanged('b', 'interrupted')
      expect(Option.getOrThrow(yield* store.get('b')).files).toBeUndefined()
      const b = yield* supervisor.resume('b')
      expect(yield* folderOf(b.contextId)).toEqual([])
      const back = yield* supervisor.resume('a')
      expect((yield* folderOf(back.contextId)).map((f) => f.name)).toEqual(['report.pdf'])
    }).pipe(Effect.provide(testSupervisor({ maxErrands: 4 }))),
  )

  it.scoped('the record keeps the files after a resume until the next park replaces them', () =>
    Effect.gen(function* () {
      const { supervisor, memory, store } = yield* parkedWith('one.pdf')
      const second = yield* supervisor.resume('a')
      // An engine killed now brings the errand back as last sealed: files included.
      expect(Option.getOrThrow(yield* store.get('a')).files?.map((f) => f.name)).toEqual(['one.pdf'])
      memory.files.download(second.contextId, 'two.pdf', REPORT, 'https://shop.test/2.pdf')
      yield* supervisor.park('a')
      expect(Option.getOrThrow(yield* store.get('a')).files?.map((f) => f.name)).toEqual(['one.pdf', 'two.pdf'])
    }).pipe(Effect.provide(testSupervisor())),
  )

  it.scoped('task done after a resume forgets the folder and the sealed files (E3)', () =>
    Effect.gen(function* () {
      const { supervisor, memory, store } = yield* parkedWith('report.pdf')
      const second = yield* supervisor.resume('a')
      yield* supervisor.taskChanged('a', 'done')
      expect(yield* memory.isOpen(second.contextId)).toBe(false)
      expect(yield* store.get('a')).toEqual(Option.none())
      const third = yield* supervisor.use('a', (b) => Effect.succeed(b))
      expect(yield* folderOf(third.contextId)).toEqual([])
    }).pipe(Effect.provide(testSupervisor())),
  )

  it.scoped('release of a parked errand drops its sealed files (E3)', () =>
    Effect.gen(function* () {
      const { supervisor, store } = yield* parkedWith('report.pdf')
      expect(Option.isSome(yield* store.get('a'))).toBe(true)
      yield* supervisor.release('a')
      expect(yield* store.list()).toEqual([])
    }).pipe(Effect.provide(testSupervisor())),
  )

  it.scoped('a folder over the budget parks its oldest files that fit and names the rest', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const a = yield* supervisor.open(task('a'))
      memory.files.download(a.contextId, 'small.txt', new Uint8Array(10), 'https://shop.test/s')
      memory.files.download(a.contextId, 'big.bin', new Uint8Array(100), 'https://shop.test/b')
      memory.files.download(a.contextId, 'tiny.txt', new Uint8Array(5), 'https://shop.test/t')
      const packed = yield* Effect.orDie(packFiles(memory, a.contextId, 50))
      expect(packed.files?.map((f) => f.name)).toEqual(['small.txt', 'tiny.txt'])
      expect(packed.left).toEqual(['big.bin'])
      const b = yield* supervisor.open(task('b'))
      yield* Effect.orDie(unpackFiles(memory, b.contextId, packed.files))
      expect((yield* folderOf(b.contextId)).map((f) => [f.name, f.bytes.length])).toEqual([
        ['small.txt', 10],
        ['tiny.txt', 5],
      ])
    }).pipe(Effect.provide(testSupervisor())),
  )
})
