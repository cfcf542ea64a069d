/**
 * Waiting for the person (P3, P4; issue #26): the bookkeeping every ask of a person goes through —
 * an agent's request for help (wheel.ts) and a sign-in question (`question`, over the one book of
 * questions this supervisor holds: what the live view, `/v1/person/questions` and MCP list and answer).
 * `asked` and `answered` journal the ask and its end and send `person.asked` / `person.answered` to the
 * errand machine, whose `active.asking` region then shows `waiting` (asking.ts in the machines); the
 * book keeps no journal of its own.
 *
 * The journal holds the ask's id and kind, the site for a sign-in and how it ended — never the
 * agent's reason, the person's note, a cookie or anything typed (P5, L7).
 *
 * @example
 * const { asked, answered } = makeAsking(core, actors)
 * yield* asked('session:k1', { id: 'q1', ask: 'sign-in', site: 'shop.example' })
 * yield* answered('session:k1', 'q1', 'allow')
 */
import { Effect } from 'effect'
import type { SupervisorCore } from './core.ts'
import type { SessionsShape } from '@errands/sessions'
import type { Actors } from './actors.ts'

/** The asking operations of one supervisor (their words: @errands/sessions). */
export type AskingShape = Pick<
  SessionsShape,
  'asked' | 'answered' | 'question' | 'questions' | 'answerQuestion' | 'onQuestions'
>

/**
 * The asking operations over one supervisor's actors.
 *
 * @example
 * const asking = makeAsking(core, actors)
 */
export const makeAsking = (core: SupervisorCore, actors: Actors): AskingShape => {
  const { entries, now, journal, questions } = core
  return {
    question: (conversationId, about, timeoutMs) => questions.ask(conversationId, about, timeoutMs),
    questions: questions.pending,
    answerQuestion: (id, answer) => questions.answer(id, answer),
    onQuestions: (listener) => questions.onChange(listener),
    asked: (conversationId, ask) =>
      Effect.map(actors.entryOf(conversationId), (entry) => {
        const t = now()
        journal({
          t,
          op: 'question.asked',
          conversationId,
          id: ask.id,
          ask: ask.ask,
          ...(ask.site === undefined ? {} : { site: ask.site }),
        })
        actors.send(entry, { type: 'person.asked', id: ask.id, ask: ask.ask, at: t })
      }),
    answered: (conversationId, id, outcome) =>
      Effect.sync(() => {
        const t = now()
        journal({ t, op: 'question.answered', conversationId, id, outcome })
        const entry = entries.get(conversationId)
        if (entry !== undefined) actors.send(entry, { type: 'person.answered', id, outcome, at: t })
      }),
  }
}
