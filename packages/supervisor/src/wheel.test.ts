import { it } from '@effect/vitest'
import { Effect, Fiber, Layer, TestClock } from 'effect'
import { describe, expect } from 'vitest'
import { Sessions } from '@errands/sessions'
import { sessionsLayer } from './SessionsService.ts'
import { services, testSupervisor } from './testing.ts'
import type { JournalEntry } from './types.ts'

const journaled: JournalEntry[] = []
const withSessions = (maxErrands = 1) =>
  sessionsLayer.pipe(
    Layer.provideMerge(testSupervisor({ maxErrands, idleMs: 60_000 }, { journal: (e) => void journaled.push(e) })),
  )

describe('the wheel (P1–P3, issue #26)', () => {
  it.scoped(
    'a person at the wheel keeps the errand open under a cap of 1: another session is refused, not given its slot (C2)',
    () =>
      Effect.gen(function* () {
        const sessions = yield* Sessions
        const { supervisor } = yield* services
        yield* sessions.resolve({ id: 'session:a', kind: 'task' })
        yield* sessions.undrive('session:a')
        const view = yield* sessions.takeWheel('session:a')
        expect(view.personDriving).toBe(true)
        expect(sessions.personDriving('session:a')).toBe(true)
        const other = yield* Effect.flip(sessions.resolve({ id: 'session:b', kind: 'task' }))
        expect(other._tag).toBe('AllBusy')
        expect((yield* sessions.view('session:a')).state).toBe('active')
        // Idleness does not park it either.
        yield* TestClock.adjust('2 minutes')
        expect(yield* supervisor.sweep).toEqual([])
        yield* sessions.handBack('session:a', 'done')
        expect(sessions.personDriving('session:a')).toBe(false)
        yield* sessions.resolve({ id: 'session:b', kind: 'task' })
        expect((yield* sessions.view('session:a')).state).toBe('parked')
      }).pipe(Effect.provide(withSessions(1))),
  )

  it.scoped(
    'askForHelp waits for the hand-back and gets its note; the request shows on the view while it waits; the note is ' +
      'not journaled (P5)',
    () =>
      Effect.gen(function* () {
        journaled.length = 0
        const sessions = yield* Sessions
        yield* sessions.resolve({ id: 'session:a', kind: 'task' })
        const asking = yield* Effect.fork(sessions.askForHelp('session:a', 'a captcha', 60_000))
        yield* TestClock.adjust(10)
        expect((yield* sessions.view('session:a')).help).toMatchObject({ reason: 'a captcha' })
        yield* sessions.takeWheel('session:a')
        yield* sessions.handBack('session:a', 'the secret note')
        expect(yield* Fiber.join(asking)).toEqual({ handedBack: true, note: 'the secret note' })
        expect((yield* sessions.view('session:a')).help).toBeUndefined()
        expect(JSON.stringify(journaled)).not.toContain('secret')
        expect(journaled.map((e) => e.op)).toContain('wheel.handback')
      }).pipe(Effect.provide(withSessions(2))),
  )

  it.scoped('askForHelp times out on the clock, and the request is gone', () =>
    Effect.gen(function* () {
      const sessions = yield* Sessions
      yield* sessions.resolve({ id: 'session:a', kind: 'task' })
      const asking = yield* Effect.fork(sessions.askForHelp('session:a', 'stuck', 1_000))
      yield* TestClock.adjust(1_000)
      expect(yield* Fiber.join(asking)).toEqual({ handedBack: false, reason: 'timeout' })
      expect((yield* sessions.view('session:a')).help).toBeUndefined()
    }).pipe(Effect.provide(withSessions(2))),
  )
})
