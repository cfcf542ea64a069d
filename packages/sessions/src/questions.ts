/**
 * Questions for the person (P4): an errand asked for a site's sign-in and waits for the person's Allow or Deny.
 * A question lives only while its asker waits — it is gone when answered, when its time runs out, or when the
 * asker stops waiting (the agent's call was cancelled) — so the person never answers a question nobody is
 * waiting on.
 *
 * How long an agent may wait for the answer is written here once, for every face that asks (`/v1/session/permission`,
 * MCP's `browser_request_sign_in`), as help's is in `help.ts`.
 *
 * One book of them per engine, held by the supervisor and reached through the boundary's verbs (`question`,
 * `questions`, `answerQuestion`, `onQuestions`): the live view, `/v1/person/questions` and MCP read and answer
 * the same questions. The book keeps no journal: the ask and its end are the supervisor's journal lines
 * (`asked` / `answered`, with the question's id), which the asker brackets the question with. What an Allow
 * does (lending, L2) is the asker's.
 *
 * @example
 * const book = new QuestionBook()
 * const outcome = yield* book.ask('session:k1', { id: newQuestionId(), site: 'shop.example' }, 60_000)
 * // meanwhile, the live view's Allow button: yield* book.answer(id, 'allow')
 */
import { Clock, Deferred, Effect, Schema } from 'effect'
import { randomBytes } from 'node:crypto'
import { QuestionNotFound } from './errors.ts'

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
}).annotations({ identifier: 'Question' })
/** A pending question. */
export type Question = typeof Question.Type

/** The person's answer. */
export const QuestionAnswer = Schema.Literal('allow', 'deny')
/** The person's answer. */
export type QuestionAnswer = typeof QuestionAnswer.Type

/** How a question ended: the person's answer, its time ran out, or the asker stopped waiting. */
export type QuestionOutcome = QuestionAnswer | 'timeout' | 'withdrawn'

/** The shortest wait for the person's answer to a sign-in question (ms). */
export const SIGN_IN_MIN_TIMEOUT_MS = 100
/** The longest (ms): under the host's 300 s request timeout. */
export const SIGN_IN_MAX_TIMEOUT_MS = 240_000
/** The wait when the agent does not say (ms). */
export const SIGN_IN_DEFAULT_TIMEOUT_MS = 120_000
/** The longest site an agent may name (a host name's 253 characters). */
export const SIGN_IN_SITE_MAX = 253

/** What a question asks about: its id (shared with the errand's `asked`) and the site. */
export interface QuestionAbout {
  readonly id: string
  readonly site: string
}

/**
 * A fresh question id: unguessable, so only the person can answer it. @example newQuestionId() // 'q3fa9c1d2…'
 */
export const newQuestionId = (): string => `q${randomBytes(9).toString('base64url')}`

const unknownQuestion = () =>
  new QuestionNotFound({
    reason: 'not-waiting',
    message: 'No question with that id is waiting: it was answered, its time ran out, or the errand stopped waiting.',
  })

/**
 * The questions waiting for the person, and their askers' answers to come.
 *
 * @example
 * const book = new QuestionBook()
 * book.onChange(() => push())
 */
export class QuestionBook {
  private readonly waiting = new Map<
    string,
    { readonly question: Question; readonly answered: Deferred.Deferred<QuestionAnswer> }
  >()
  private readonly listeners = new Set<() => void>()

  private changed(): void {
    for (const l of this.listeners) l()
  }

  /** Ends a question once: the first of answer, timeout and withdrawal is the one that counts. */
  private end(id: string) {
    const entry = this.waiting.get(id)
    if (entry === undefined) return undefined
    this.waiting.delete(id)
    this.changed()
    return entry
  }

  /**
   * Puts the question before the person and waits, at most `timeoutMs`; the question is gone when this ends,
   * however it ends.
   *
   * @example
   * yield* book.ask('session:k1', { id, site: 'shop.example' }, 60_000) // 'allow' | 'deny' | 'timeout' | …
   */
  ask(conversationId: string, about: QuestionAbout, timeoutMs: number): Effect.Effect<QuestionOutcome> {
    return Effect.acquireUseRelease(
      Effect.gen(this, function* () {
        const now = yield* Clock.currentTimeMillis
        const question: Question = {
          id: about.id,
          kind: 'sign-in',
          conversationId,
          site: about.site,
          askedAt: now,
          expiresAt: now + timeoutMs,
        }
        const answered = yield* Deferred.make<QuestionAnswer>()
        this.waiting.set(question.id, { question, answered })
        yield* Effect.logInfo(`question ${question.id}: ${conversationId} asks for the sign-in of ${question.site}`)
        this.changed()
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
        Effect.suspend(() => {
          if (this.end(question.id) === undefined) return Effect.void
          const outcome = exit._tag === 'Success' && exit.value === 'timeout' ? 'timeout' : 'withdrawn'
          return Effect.logInfo(`question ${question.id}: ${outcome} (${question.conversationId}, ${question.site})`)
        }),
    )
  }

  /** The questions waiting for an answer, oldest first. @example yield* book.pending */
  get pending(): Effect.Effect<ReadonlyArray<Question>> {
    return Effect.sync(() => [...this.waiting.values()].map((w) => w.question).sort((a, b) => a.askedAt - b.askedAt))
  }

  /**
   * The person answered: the asker gets it. A question no longer waiting is `QuestionNotFound` (404).
   *
   * @example
   * yield* book.answer('q3fa9c1d2', 'deny')
   */
  answer(id: string, answer: QuestionAnswer): Effect.Effect<Question, QuestionNotFound> {
    return Effect.suspend(() => {
      const entry = this.end(id)
      if (entry === undefined) return Effect.fail(unknownQuestion())
      return Effect.as(
        Effect.zipRight(
          Deferred.succeed(entry.answered, answer),
          Effect.logInfo(`question ${id}: ${answer} (${entry.question.conversationId}, ${entry.question.site})`),
        ),
        entry.question,
      )
    })
  }

  /** Calls `listener` whenever a question is put or ends; returns the unsubscribe. @example book.onChange(push) */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }
}
