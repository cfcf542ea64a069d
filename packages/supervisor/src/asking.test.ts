import { it } from '@effect/vitest'
import { Effect, Fiber, Layer, TestClock } from 'effect'
import { describe, expect } from 'vitest'
import { Sessions } from '@errands/sessions'
import { sessionsLayer } from './SessionsService.ts'
import { services, testSupervisor } from './testing.ts'
import type { JournalEntry } from './types.ts'

const journaled: JournalEntry[] = []
const withSessions = (maxErrands = 2) =>
  sessionsLayer.pipe(
    Layer.provideMerge(testSupervisor({ maxErrands, idleMs: 60_000 }, { journal: (e) => void journaled.push(e) })),
  )

describe('waiting for the person (P3, P4, issue #26)', () => {
  it.scoped(
    'a sign-in ask shows on the view and in capacity, keeps idleness from parking it, and is journaled without secrets',
    () =>
      Effect.gen(function* () {
        journaled.length = 0
        const sessions = yield* Sessions
        const { supervisor } = yield* services
        yield* sessions.resolve({ id: 'session:a', kind: 'task' })
        yield* sessions.undrive('session:a')
        yield* sessions.asked('session:a', { id: 'q1', ask: 'sign-in', site: 'shop.example' })
        const view = yield* sessions.view('session:a')
        expect(view.waiting).toEqual(['sign-in'])
        expect(view.detail).toContain('asking=waiting')
        expect((yield* supervisor.capacity).waitingForPerson).toBe(1)
        // Two idle limits pass (the sweep runs on the clock too): the agent is blocked on the person, not gone.
        yield* TestClock.adjust('2 minutes')
        expect(yield* supervisor.sweep).toEqual([])
        expect((yield* sessions.view('session:a')).state).toBe('active')
        yield* sessions.answered('session:a', 'q1', 'allow')
        expect((yield* sessions.view('session:a')).waiting).toBeUndefined()
        expect((yield* supervisor.capacity).waitingForPerson).toBe(0)
        // The idle clock starts again from the answer.
        expect(yield* supervisor.sweep).toEqual([])
        yield* TestClock.adjust('61 seconds')
        yield* supervisor.sweep
        yield* supervisor.settle
        // Idle again: frozen, the first step of setting it aside (C4).
        expect((yield* sessions.view('session:a')).state).toBe('frozen')
        expect(journaled.filter((e) => e.op.startsWith('question.'))).toEqual([
          {
            t: expect.any(Number),
            op: 'question.asked',
            conversationId: 'session:a',
            id: 'q1',
            ask: 'sign-in',
            site: 'shop.example',
          },
          { t: expect.any(Number), op: 'question.answered', conversationId: 'session:a', id: 'q1', outcome: 'allow' },
        ])
      }).pipe(Effect.provide(withSessions())),
  )

  it.scoped('the cap may park a waiting errand; the ask still waits while parked and the resumed errand shows it', () =>
    Effect.gen(function* () {
      const sessions = yield* Sessions
      yield* sessions.resolve({ id: 'session:a', kind: 'task' })
      yield* sessions.undrive('session:a')
      yield* sessions.asked('session:a', { id: 'q1', ask: 'sign-in', site: 'shop.example' })
      yield* TestClock.adjust(10)
      yield* sessions.resolve({ id: 'session:b', kind: 'task' })
      const parked = yield* sessions.view('session:a')
      expect(parked.state).toBe('parked')
      expect(parked.waiting).toEqual(['sign-in'])
      yield* sessions.undrive('session:b')
      yield* sessions.resume('session:a')
      expect((yield* sessions.view('session:a')).detail).toContain('asking=waiting')
    }).pipe(Effect.provide(withSessions(1))),
  )

  it.scoped(
    'a help request makes the errand wait; the hand-back ends it as handed-back, a timeout as timeout, a cancelled ' +
      'call as withdrawn',
    () =>
      Effect.gen(function* () {
        journaled.length = 0
        const sessions = yield* Sessions
        const { supervisor } = yield* services
        yield* sessions.resolve({ id: 'session:a', kind: 'task' })
        const helped = yield* Effect.fork(sessions.askForHelp('session:a', 'a secret reason', 60_000))
        yield* TestClock.adjust(10)
        expect((yield* sessions.view('session:a')).waiting).toEqual(['help'])
        yield* sessions.takeWheel('session:a')
        expect(yield* supervisor.capacity).toMatchObject({ personDriving: 1, waitingForPerson: 1 })
        yield* sessions.handBack('session:a', 'a secret note')
        yield* Fiber.join(helped)
        expect(yield* supervisor.capacity).toMatchObject({ personDriving: 0, waitingForPerson: 0 })

        const timedOut = yield* Effect.fork(sessions.askForHelp('session:a', 'stuck', 1_000))
        yield* TestClock.adjust(1_000)
        yield* Fiber.join(timedOut)
        const cancelled = yield* Effect.fork(sessions.askForHelp('session:a', 'stuck', 60_000))
        yield* TestClock.adjust(10)
        yield* Fiber.interrupt(cancelled)
        expect((yield* sessions.view('session:a')).waiting).toBeUndefined()

        const questions = journaled.filter((e) => e.op.startsWith('question.'))
        expect(
          questions.map((e) => (e.op === 'question.answered' ? e.outcome : e.op === 'question.asked' ? e.ask : '')),
        ).toEqual(['help', 'handed-back', 'help', 'timeout', 'help', 'withdrawn'])
        expect(JSON.stringify(journaled)).not.toContain('secret')
      }).pipe(Effect.provide(withSessions())),
  )

  it.scoped('an answer for an errand that is gone changes nothing; an ask for an unknown conversation is refused', () =>
    Effect.gen(function* () {
      const sessions = yield* Sessions
      yield* sessions.answered('session:nobody', 'q9', 'timeout')
      const refused = yield* Effect.flip(sessions.asked('session:nobody', { id: 'q9', ask: 'help' }))
      expect(refused._tag).toBe('UnknownConversation')
    }).pipe(Effect.provide(withSessions())),
  )

  it.scoped(
    "a sign-in question is one state: the boundary's book lists it, the person's answer reaches the asker, and " +
      'the journal holds only the ask and its end',
    () =>
      Effect.gen(function* () {
        journaled.length = 0
        const sessions = yield* Sessions
        yield* sessions.resolve({ id: 'session:q', kind: 'task' })
        yield* sessions.undrive('session:q')
        let heard = 0
        const stop = sessions.onQuestions(() => void heard++)
        // The asker brackets the question with the errand's waiting, under the question's id (signIn.ts).
        const asking = yield* Effect.fork(
          Effect.acquireUseRelease(
            sessions.asked('session:q', { id: 'q7', ask: 'sign-in', site: 'shop.example' }),
            () => sessions.question('session:q', { id: 'q7', site: 'shop.example' }, 60_000),
            (_, exit) => sessions.answered('session:q', 'q7', exit._tag === 'Success' ? exit.value : 'withdrawn'),
          ),
        )
        yield* TestClock.adjust(10)
        expect((yield* sessions.questions).map((q) => [q.id, q.conversationId, q.site])).toEqual([
          ['q7', 'session:q', 'shop.example'],
        ])
        expect((yield* sessions.view('session:q')).waiting).toEqual(['sign-in'])
        expect((yield* sessions.answerQuestion('q7', 'deny')).id).toBe('q7')
        expect(yield* Fiber.join(asking)).toBe('deny')
        expect(yield* sessions.questions).toEqual([])
        expect((yield* sessions.view('session:q')).waiting).toBeUndefined()
        expect((yield* Effect.flip(sessions.answerQuestion('q7', 'allow')))._tag).toBe('QuestionNotFound')
        expect(heard).toBe(2)
        stop()
        expect(
          journaled
            .filter((e) => e.op.startsWith('question.'))
            .map((e) => (e.op === 'question.answered' ? e.outcome : e.op)),
        ).toEqual(['question.asked', 'deny'])
      }).pipe(Effect.provide(withSessions())),
  )
})
