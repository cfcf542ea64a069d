/**
 * Waiting for the person (P3, P4; issue #26): the bookkeeping every ask of a person goes through —
 * an agent's request for help (wheel.ts) and a sign-in question (the host's questions). `asked`
 * and `answered` journal the ask and its end and send `person.asked` / `person.answered` to the
 * errand machine, whose `active.asking` region then shows `waiting` (asking.ts in the machines).
 *
 * The journal holds the ask's id and kind, the site for a sign-in and how it ended — never the
 * agent's reason, the person's note, a cookie or anything typed (P5, L7).
 *
 * @example
 * const { asked, answered } = makeAsking(core, sessions)
 * yield* asked('session:k1', { id: 'q1', ask: 'sign-in', site: 'shop.example' })
 * yield* answered('session:k1', 'q1', 'allow')
 */
import type { AskKind, AskOutcome } from '@errands/machines'
import { Effect } from 'effect'
import type { SupervisorCore } from './core.ts'
import type { UnknownConversation } from './errors.ts'
import type { Sessions } from './sessions.ts'

export type { AskKind, AskOutcome }

/** One ask of a person: its id (unique while it waits), its kind and, for a sign-in, the site. */
export interface Ask {
  readonly id: string
  readonly ask: AskKind
  readonly site?: string | undefined
}

/** The asking operations of one supervisor. */
export interface AskingShape {
  /**
   * An agent of the conversation asked a person (`ask`) and waits: the errand shows waiting for
   * the person, and idleness does not park it, until `answered` with the same id.
   */
  readonly asked: (conversationId: string, ask: Ask) => Effect.Effect<void, UnknownConversation>
  /**
   * How an ask ended (`allow`, `deny`, `handed-back`, `timeout`, `withdrawn`); call it once for every
   * `asked`, whatever happened to the errand meanwhile. An errand gone by then changes nothing.
   */
  readonly answered: (conversationId: string, id: string, outcome: AskOutcome) => Effect.Effect<void>
}

/**
 * The asking operations over one supervisor's sessions.
 *
 * @example
 * const asking = makeAsking(core, sessions)
 */
export const makeAsking = (core: SupervisorCore, sessions: Sessions): AskingShape => {
  const { entries, now, journal } = core
  return {
    asked: (conversationId, ask) =>
      Effect.map(sessions.entryOf(conversationId), (entry) => {
        const t = now()
        journal({
          t,
          op: 'question.asked',
          conversationId,
          id: ask.id,
          ask: ask.ask,
          ...(ask.site === undefined ? {} : { site: ask.site }),
        })
        sessions.send(entry, { type: 'person.asked', id: ask.id, ask: ask.ask, at: t })
      }),
    answered: (conversationId, id, outcome) =>
      Effect.sync(() => {
        const t = now()
        journal({ t, op: 'question.answered', conversationId, id, outcome })
        const entry = entries.get(conversationId)
        if (entry !== undefined) sessions.send(entry, { type: 'person.answered', id, outcome, at: t })
      }),
  }
}
