import { Effect, Fiber, TestClock, TestContext } from 'effect'
import { describe, expect, it } from 'vitest'
import { makeQuestions } from './questions.ts'

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.provide(effect, TestContext.TestContext))
const about = { conversationId: 'session:k1', site: 'shop.example' }

describe('questions for the person (P4, issue #26)', () => {
  it('the asker gets the answer, the question is gone, and the journal holds both lines', () =>
    run(
      Effect.gen(function* () {
        const q = yield* makeQuestions()
        let changes = 0
        q.onChange(() => void changes++)
        const asking = yield* Effect.fork(q.ask(about, 60_000))
        yield* TestClock.adjust(10)
        const [pending] = yield* q.pending
        expect(pending).toMatchObject({ kind: 'sign-in', ...about, expiresAt: pending!.askedAt + 60_000 })
        expect((yield* q.answer(pending!.id, 'allow')).id).toBe(pending!.id)
        expect(yield* Fiber.join(asking)).toBe('allow')
        expect(yield* q.pending).toEqual([])
        expect(changes).toBe(2)
        expect((yield* q.journal).map((l) => [l.op, 'outcome' in l ? l.outcome : l.site])).toEqual([
          ['question.asked', 'shop.example'],
          ['question.answered', 'allow'],
        ])
        // Answered once: a second answer finds nothing waiting.
        expect((yield* Effect.flip(q.answer(pending!.id, 'deny')))._tag).toBe('QuestionNotFound')
      }),
    ))

  it('times out on the clock, and a late answer is refused', () =>
    run(
      Effect.gen(function* () {
        const q = yield* makeQuestions()
        const asking = yield* Effect.fork(q.ask(about, 1_000))
        yield* TestClock.adjust(10)
        const [pending] = yield* q.pending
        yield* TestClock.adjust(999)
        expect(yield* Fiber.join(asking)).toBe('timeout')
        expect(yield* q.pending).toEqual([])
        expect((yield* Effect.flip(q.answer(pending!.id, 'allow')))._tag).toBe('QuestionNotFound')
        expect((yield* q.journal).at(-1)).toMatchObject({ op: 'question.answered', outcome: 'timeout' })
      }),
    ))

  it('an asker that stops waiting withdraws its question: the person cannot answer it', () =>
    run(
      Effect.gen(function* () {
        const q = yield* makeQuestions()
        const asking = yield* Effect.fork(q.ask(about, 60_000))
        yield* TestClock.adjust(10)
        const [pending] = yield* q.pending
        yield* Fiber.interrupt(asking)
        expect(yield* q.pending).toEqual([])
        expect((yield* Effect.flip(q.answer(pending!.id, 'allow')))._tag).toBe('QuestionNotFound')
        expect((yield* q.journal).at(-1)).toMatchObject({ op: 'question.answered', outcome: 'withdrawn' })
      }),
    ))
})
