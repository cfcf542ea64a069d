/**
 * The question card (P4, L2, issue #26): an errand waits for the person's answer — "Allow lends
 * your sign-in to this task" — with Allow and Deny. Allow lends the site's sign-in to that errand
 * only; Deny lends nothing. The card goes away when the question is answered, when the errand
 * stops waiting, or when its time runs out (the state push no longer lists it).
 *
 * @example
 * <Questions questions={state.questions ?? []} conversations={state.conversations} answer={(id, a) =>
 * act(paths.question(id), { answer: a })} busy={busy} />
 */
import type { LiveConversation, LiveQuestion } from '../src/protocol.ts'

const REASON: Record<string, string> = {
  task: 'a background task',
  helper: 'a helper',
  'own-browser': 'a chat with a browser of its own',
}

/** One card. */
export const QuestionCard = ({
  q,
  c,
  answer,
  busy,
  now,
}: {
  q: LiveQuestion
  c: LiveConversation | undefined
  answer: (id: string, a: 'allow' | 'deny') => void
  busy: boolean
  now: number
}) => (
  <section
    class="question"
    role="alertdialog"
    aria-label={`Sign-in for ${q.site}`}
    data-question={q.id}
    data-site={q.site}
    data-conversation={q.conversationId}
  >
    <h2>
      Sign in to <strong>{q.site}</strong>?
    </h2>
    <p>
      <strong>{q.conversationId}</strong>
      {c ? ` (${REASON[c.reason] ?? c.reason})` : ''} asks to use your sign-in for <strong>{q.site}</strong>.
    </p>
    <p class="lends">
      Allow lends your sign-in to this task: its browser gets your cookies for {q.site} and no other site. Deny lends
      nothing.
    </p>
    <div class="actions">
      <button type="button" class="allow" name="allow" disabled={busy} onClick={() => answer(q.id, 'allow')}>
        Allow
      </button>
      <button type="button" class="deny" name="deny" disabled={busy} onClick={() => answer(q.id, 'deny')}>
        Deny
      </button>
      <span class="muted">waits {Math.max(0, Math.round((q.expiresAt - now) / 1000))} s more</span>
    </div>
  </section>
)

/** Every waiting question, oldest first; nothing when none waits. */
export const Questions = ({
  questions,
  conversations,
  answer,
  busy,
  now,
}: {
  questions: ReadonlyArray<LiveQuestion>
  conversations: ReadonlyArray<LiveConversation>
  answer: (id: string, a: 'allow' | 'deny') => void
  busy: boolean
  now: number
}) =>
  questions.length === 0 ? null : (
    <section class="questions" aria-label="Questions">
      {questions.map((q) => (
        <QuestionCard
          key={q.id}
          q={q}
          c={conversations.find((c) => c.conversationId === q.conversationId)}
          answer={answer}
          busy={busy}
          now={now}
        />
      ))}
    </section>
  )
