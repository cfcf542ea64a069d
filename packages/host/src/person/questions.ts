/**
 * Questions for the person (P4, issue #26): an errand asked for a site's sign-in and waits for
 * the person's Allow or Deny. A question lives only while its asker waits — it is gone when
 * answered, when its time runs out, or when the asker stops waiting (the agent's call was
 * cancelled) — so the person never answers a question nobody is waiting on.
 *
 * The service only asks and answers; what an Allow does (lending, L2) is the asker's
 * (`signIn.ts`). Every question and its outcome is journaled (names, sites and times only; a
 * question never holds a cookie, L7) and written to the host log.
 *
 * @example
 * const questions = yield* Questions
 * const outcome = yield* questions.ask({ conversationId: 'session:k1', site: 'shop.example' }, 60_000)
 * // meanwhile, the live view's Allow button: yield* questions.answer(id, 'allow')
 */
import { Clock, Context, Deferred, Effect, Layer, Schema } from 'effect'
import { randomBytes } from 'node:crypto'
import { QuestionNotFound } from '../errors.ts'

/**
 * A pending question, as the person sees it. @example { id: 'q3fa9c1d2', kind: 'sign-in', conversationId:
 * 'session:k1', site: 'shop.example', askedAt: 0, expiresAt: 60000 }
 */
export const Question = Schema.Struct({
  id: Schema.String,
  /** `sign-in`: "Allow lends your sign-in to this task". */
  kind: Schema.Literal('sign-in'),
  conversationId: Schema.String,
  site: Schema.String,
  /** When it was asked and when it stops waiting (ms since the epoch). */
  askedAt: Schema.Number,
  expiresAt: Schema.Number,
})
/** A pending question. */
export type Question = typeof Question.Type

/** The person's answer. */
export const QuestionAnswer = Schema.Literal('allow', 'deny')
/** The person's answer. */
export type QuestionAnswer = typeof QuestionAnswer.Type

/** How a question ended: the person's answer, its time ran out, or the asker stopped waiting. */
export type QuestionOutcome = QuestionAnswer | 'timeout' | 'withdrawn'

/**
 * One journal line: a question asked, or how it ended. Never a cookie or page content (L7).
 *
 * @example
 * { t: 1700000000000, op: 'question.answered', id: 'q3fa9c1d2', conversationId: 'session:k1', site: 'shop.example',
 * outcome: 'allow' }
 */
export type QuestionJournalLine =
  | {
      readonly t: number
      readonly op: 'question.asked'
      readonly id: string
      readonly conversationId: string
      readonly site: string
    }
  | {
      readonly t: number
      readonly op: 'question.answered'
      readonly id: string
      readonly conversationId: string
      readonly site: string
      readonly outcome: QuestionOutcome
    }

/** What the questions service does. */
export interface QuestionsShape {
  /**
   * Asks the person and waits, at most `timeoutMs`; the question is gone when this ends, however
   * it ends. `id` names the question (default: a fresh {@link newQuestionId}), so the asker can
   * tell the errand machine about it under the same id.
   */
  readonly ask: (
    about: { readonly conversationId: string; readonly site: string; readonly id?: string | undefined },
    timeoutMs: number,
  ) => Effect.Effect<QuestionOutcome>
  /** The questions waiting for an answer, oldest first. */
  readonly pending: Effect.Effect<ReadonlyArray<Question>>
  /** The person answered: the asker gets it. A question no longer waiting is `QuestionNotFound` (404). */
  readonly answer: (id: string, answer: QuestionAnswer) => Effect.Effect<Question, QuestionNotFound>
  /** Calls `listener` whenever a question is asked or ends; returns the unsubscribe. */
  readonly onChange: (listener: () => void) => () => void
  /** The last questions and outcomes (at most {@link JOURNAL_LINES} lines), oldest first. */
  readonly journal: Effect.Effect<ReadonlyArray<QuestionJournalLine>>
}

/** How many journal lines the service keeps. */
export const JOURNAL_LINES = 500

/**
 * A fresh question id: unguessable, so only the person's token can answer it. @example newQuestionId() // 'q3fa9c1d2…'
 */
export const newQuestionId = (): string => `q${randomBytes(9).toString('base64url')}`

const unknownQuestion = () =>
  new QuestionNotFound({
    reason: 'not-waiting',
    message: 'No question with that id is waiting: it was answered, its time ran out, or the errand stopped waiting.',
  })

/**
 * Builds the service. `journal` also receives every line as it is written.
 *
 * @example
 * const questions = yield* makeQuestions()
 */
export const makeQuestions = (
  options: { readonly journal?: ((line: QuestionJournalLine) => void) | undefined } = {},
): Effect.Effect<QuestionsShape> =>
  Effect.sync(() => {
    const waiting = new Map<
      string,
      { readonly question: Question; readonly answered: Deferred.Deferred<QuestionAnswer> }
    >()
    const listeners = new Set<() => void>()
    const lines: QuestionJournalLine[] = []
    const changed = () => {
      for (const l of listeners) l()
    }
    const record = (line: QuestionJournalLine) =>
      Effect.gen(function* () {
        lines.push(line)
        if (lines.length > JOURNAL_LINES) lines.splice(0, lines.length - JOURNAL_LINES)
        options.journal?.(line)
        yield* Effect.logInfo(
          line.op === 'question.asked'
            ? `question ${line.id}: ${line.conversationId} asks for the sign-in of ${line.site}`
            : `question ${line.id}: ${line.outcome} (${line.conversationId}, ${line.site})`,
        )
      })

    /** Ends a question once: the first of answer, timeout and withdrawal is the one journaled. */
    const end = (id: string, outcome: QuestionOutcome) =>
      Effect.gen(function* () {
        const entry = waiting.get(id)
        if (entry === undefined) return undefined
        waiting.delete(id)
        const { question } = entry
        yield* record({
          t: yield* Clock.currentTimeMillis,
          op: 'question.answered',
          id,
          conversationId: question.conversationId,
          site: question.site,
          outcome,
        })
        changed()
        return entry
      })

    const ask: QuestionsShape['ask'] = (about, timeoutMs) =>
      Effect.acquireUseRelease(
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const { conversationId, site } = about
          const question: Question = {
            id: about.id ?? newQuestionId(),
            kind: 'sign-in',
            conversationId,
            site,
            askedAt: now,
            expiresAt: now + timeoutMs,
          }
          const answered = yield* Deferred.make<QuestionAnswer>()
          waiting.set(question.id, { question, answered })
          yield* record({ t: now, op: 'question.asked', id: question.id, conversationId, site })
          changed()
          return { question, answered }
        }),
        ({ answered }) =>
          Effect.timeoutTo(Deferred.await(answered), {
            duration: timeoutMs,
            onSuccess: (a): QuestionOutcome => a,
            onTimeout: (): QuestionOutcome => 'timeout',
          }),
        // Answered: already ended by `answer`. Otherwise the time ran out or the asker went away.
        ({ question }, exit) =>
          Effect.asVoid(
            end(question.id, exit._tag === 'Success' && exit.value === 'timeout' ? 'timeout' : 'withdrawn'),
          ),
      )

    return {
      ask,
      pending: Effect.sync(() => [...waiting.values()].map((w) => w.question).sort((a, b) => a.askedAt - b.askedAt)),
      answer: (id, answer) =>
        Effect.flatMap(end(id, answer), (entry) =>
          entry === undefined
            ? Effect.fail(unknownQuestion())
            : Effect.as(Deferred.succeed(entry.answered, answer), entry.question),
        ),
      onChange: (listener) => {
        listeners.add(listener)
        return () => void listeners.delete(listener)
      },
      journal: Effect.sync(() => [...lines]),
    } satisfies QuestionsShape
  })

/**
 * The questions service (`@errands/host/Questions`).
 *
 * @example
 * Effect.flatMap(Questions, (q) => q.pending)
 */
export class Questions extends Context.Tag('@errands/host/Questions')<Questions, QuestionsShape>() {
  /** One service for the host's lifetime. @example Layer.provide(app, Questions.layer) */
  static readonly layer: Layer.Layer<Questions> = Layer.effect(Questions, makeQuestions())
}
