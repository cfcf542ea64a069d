/**
 * Questions errands wait on (P4, issue #26), as the live view shows and answers them: the host
 * gives its questions service, the server pushes the pending ones with the state, and the card's
 * Allow / Deny buttons call `POST /live/api/questions/:id {"answer":"allow"|"deny"}` — the same
 * answer as the person's `POST /v1/person/questions/:id`, with the live view's sign-in instead of
 * the bearer token (X4).
 *
 * @example
 * makeLiveView({ ...options, questions: { pending, answer, onChange } })
 */
import { BadRequest, NotFound, type EdgeError } from '@errands/edge'
import { Either, type Effect } from 'effect'
import type { LiveQuestion } from './protocol.ts'

/** What the host gives the live view. */
export interface LiveQuestions {
  readonly pending: Effect.Effect<ReadonlyArray<LiveQuestion>>
  /** The person's answer; fails (404) when the question is no longer waiting. */
  readonly answer: (id: string, answer: 'allow' | 'deny') => Effect.Effect<unknown, unknown>
  /** Calls `listener` when a question comes or goes; returns the unsubscribe. */
  readonly onChange: (listener: () => void) => () => void
}

const QUESTION_PATH = /^\/live\/api\/questions\/([A-Za-z0-9_-]{1,64})$/

/**
 * The answer a request to `/live/api/questions/:id` asks for, as the action to run, or the
 * refusal; `undefined` when the path is not a question's.
 *
 * @example
 * answerRoute('/live/api/questions/q1', { answer: 'deny' }, questions) // Right(questions.answer('q1', 'deny'))
 */
export const answerRoute = (
  path: string,
  fields: Readonly<Record<string, unknown>>,
  questions: LiveQuestions | undefined,
): Either.Either<Effect.Effect<unknown, unknown>, EdgeError> | undefined => {
  if (!path.startsWith('/live/api/questions/')) return undefined
  const match = QUESTION_PATH.exec(path)
  if (match === null || questions === undefined) {
    return Either.left(
      new NotFound({
        reason: 'no-route',
        message: 'No such question: it was answered, its time ran out, or the errand stopped waiting.',
      }),
    )
  }
  const answer = fields.answer
  if (answer !== 'allow' && answer !== 'deny')
    return Either.left(
      new BadRequest({ reason: 'invalid-body', message: 'Send {"answer": "allow"} or {"answer": "deny"}.' }),
    )
  return Either.right(questions.answer(match[1]!, answer))
}
