/**
 * Who an errand waits for, at a glance (P1, P3, P4; issue #26): in the list, a badge "Waiting for
 * you: help" (or "sign-in", or both) on each errand whose agent waits for the person — the view's
 * `waiting`, oldest ask first — and "A person is driving" on one whose wheel a person holds; in
 * the header, how many wait, a click picking the one that has waited longest.
 *
 * @example
 * <td><Who c={conversation} /></td>
 */
import type { LiveConversation } from '../src/protocol.ts'

const ASK_WORDS: Record<string, string> = { help: 'help', 'sign-in': 'sign-in' }

/** The list's "Who" cell: the badges, then who else is there (agent driving, watched). */
export const Who = ({ c }: { c: LiveConversation }) => {
  const rest = [c.personDriving ? null : c.driven ? 'agent driving' : null, c.watched ? 'watched' : null]
    .filter(Boolean)
    .join(', ')
  return (
    <>
      {c.waiting && c.waiting.length > 0 && (
        <span
          class="badge waiting"
          data-testid="waiting"
          title="An agent of this errand waits for you: pick it to see why."
        >
          Waiting for you: {c.waiting.map((k) => ASK_WORDS[k] ?? k).join(', ')}
        </span>
      )}
      {c.personDriving && (
        <span
          class="badge driving-badge"
          data-testid="person-driving"
          title="A person has the wheel; the agent waits for the hand-back."
        >
          A person is driving
        </span>
      )}
      {rest !== '' ? <span class="who"> {rest}</span> : !c.waiting && !c.personDriving ? '—' : null}
    </>
  )
}

/** "2 waiting for you" in the header (nothing when none waits); a click picks the longest waiting. */
export const WaitingCount = ({
  conversations,
  pick,
}: {
  conversations: ReadonlyArray<LiveConversation>
  pick: (id: string) => void
}) => {
  const waiting = conversations.filter((c) => c.waiting !== undefined && c.waiting.length > 0)
  if (waiting.length === 0) return null
  // The one asked longest ago: its help request's time, else the list's order (most recent use first).
  const first = [...waiting].sort((a, b) => (a.help?.askedAt ?? Infinity) - (b.help?.askedAt ?? Infinity))[0]!
  return (
    <button
      type="button"
      class="badge waiting"
      name="waiting-count"
      data-testid="waiting-count"
      title={`Waiting: ${waiting.map((c) => c.conversationId).join(', ')}`}
      onClick={() => pick(first.conversationId)}
    >
      {waiting.length} waiting for you
    </button>
  )
}
