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
import type { Effect } from 'effect'
import type { LiveQuestion } from './protocol.ts'

/** What the host gives the live view. */
export interface LiveQuestions {
  readonly pending: Effect.Effect<ReadonlyArray<LiveQuestion>>
  /** The person's answer; fails (404) when the question is no longer waiting. */
  readonly answer: (id: string, answer: 'allow' | 'deny') => Effect.Effect<unknown, unknown>
  /** Calls `listener` when a question comes or goes; returns the unsubscribe. */
  readonly onChange: (listener: () => void) => () => void
}
