import { Effect, Fiber, TestClock, TestContext } from 'effect'
import { describe, expect, it } from 'vitest'
import { QuestionBook } from './questions.ts'

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.provide(effect, TestContext.TestContext))
const about = { id: 'q1', site: 'shop.example' }

describe('the book of questions for the person (P4)', () => {
  it('the asker gets the answer, the question is gone, and every change is heard', () =>
    run(
      Effect.gen(function* () {
        const q = new QuestionBook()
        let changes = 0
        q.onChange(() => void changes++)
        const asking = yield* Effect.fork(q.ask('session:k1', about, 60_000))
        yield* TestClock.adjust(10)
        const [pending] = yield* q.pending
        expect(pending).toMatchObject({
          id: 'q1',
          kind: 'sign-in',
          conversationId: 'session:k1',
          site: 'shop.example',
          expiresAt: pending!.askedAt + 60_000,
        })
        expect((yield* q.answer('q1', 'allow')).id).toBe('q1')
        expect(yield* Fiber.join(asking)).toBe('allow')
        expect(yield* q.pending).toEqual([])
        expect(changes).toBe(2)
        // Answered once: a second answer finds nothing waiting.
        expect((yield* Effect.flip(q.answer('q1', 'deny')))._tag).toBe('QuestionNotFound')
      }),
    ))

  it('times out on the clock, and a late answer is refused', () =>
    run(
      Effect.gen(function* () {
        const q = new QuestionBook()
        const asking = yield* Effect.fork(q.ask('session:k1', about, 1_000))
        yield* TestClock.adjust(10)
        expect(yield* q.pending).toHaveLength(1)
        yield* TestClock.adjust(999)
        expect(yield* Fiber.join(asking)).toBe('timeout')
        expect(yield* q.pending).toEqual([])
        expect((yield* Effect.flip(q.answer('q1', 'allow')))._tag).toBe('QuestionNotFound')
      }),
    ))

  it('an asker that stops waiting withdraws its question: the person cannot answer it', () =>
    run(
      Effect.gen(function* () {
        const q = new QuestionBook()
        const asking = yield* Effect.fork(q.ask('session:k1', about, 60_000))
        yield* TestClock.adjust(10)
        expect(yield* q.pending).toHaveLength(1)
        yield* Fiber.interrupt(asking)
        expect(yield* q.pending).toEqual([])
        expect((yield* Effect.flip(q.answer('q1', 'allow')))._tag).toBe('QuestionNotFound')
      }),
    ))

  it('lists the waiting questions oldest first', () =>
    run(
      Effect.gen(function* () {
        const q = new QuestionBook()
        yield* Effect.fork(q.ask('session:a', { id: 'q-a', site: 'a.example' }, 60_000))
        yield* TestClock.adjust(5)
        yield* Effect.fork(q.ask('session:b', { id: 'q-b', site: 'b.example' }, 60_000))
        yield* TestClock.adjust(5)
        expect((yield* q.pending).map((x) => x.id)).toEqual(['q-a', 'q-b'])
      }),
    ))
})
