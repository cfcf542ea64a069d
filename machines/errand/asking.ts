/**
 * Waiting for the person (P3, P4; issue #26): an agent of the errand asked a person for help or
 * for a site's sign-in and is blocked until the person answers, the asker's time runs out or the
 * asker stops waiting. The machine keeps the open asks (ids and kinds only — never the reason, a
 * note or typed text, L7) and shows them as the `active.asking` region: `none` or `waiting`.
 *
 * The asks outlive parking and healing (like the wheel): the asker's call is still waiting in the
 * supervisor, and every ask ends with exactly one `person.answered` from the supervisor, whatever
 * the errand's state then. Across a restart they are gone with the calls that made them.
 */
import type { AskKind, ErrandContext, ErrandEvent, PendingAsk } from './types.ts'

/**
 * The asks with the one an event opens added; an id already open is not added twice.
 *
 * @example
 * withAsk([], { type: 'person.asked', id: 'h1', ask: 'help', at: 0 }) // [{ id: 'h1', ask: 'help' }]
 */
export const withAsk = (asks: ReadonlyArray<PendingAsk>, event: ErrandEvent): ReadonlyArray<PendingAsk> =>
  event.type !== 'person.asked' || asks.some((a) => a.id === event.id)
    ? asks
    : [...asks, { id: event.id, ask: event.ask }]

/**
 * The asks without the one an event answers; an unknown id changes nothing.
 *
 * @example
 * withoutAsk([{ id: 'h1', ask: 'help' }], { type: 'person.answered', id: 'h1', outcome: 'timeout', at: 9 }) // []
 */
export const withoutAsk = (asks: ReadonlyArray<PendingAsk>, event: ErrandEvent): ReadonlyArray<PendingAsk> =>
  event.type === 'person.answered' ? asks.filter((a) => a.id !== event.id) : asks

/** Whether an agent waits for the person now. @example isWaiting(ctx) */
export const isWaiting = (context: ErrandContext): boolean => context.asks.length > 0

/** Whether the event answers the last open ask. */
export const answersLastAsk = (context: ErrandContext, event: ErrandEvent): boolean =>
  withoutAsk(context.asks, event).length === 0

/**
 * Whether an eviction may park the errand. Nobody may drive, watch or hold the wheel (C2); and an
 * errand waiting for the person is not idle — its agent is blocked on the person, not gone — so
 * idleness does not park it. The cap may: like any unwatched errand it is set aside for room, the
 * ask still waits, and an Allow lends to the parked errand while taking the wheel resumes it.
 *
 * @example
 * mayEvict(ctx, { type: 'errand.evict', cause: 'idle', at: 0 })
 */
export const mayEvict = (context: ErrandContext, event: ErrandEvent): boolean =>
  context.drivers === 0 &&
  context.watchers === 0 &&
  context.wheel === 'agents' &&
  !(event.type === 'errand.evict' && event.cause === 'idle' && isWaiting(context))

/** The kinds of the open asks, in the order they were asked. @example askKinds(ctx) // ['sign-in'] */
export const askKinds = (context: ErrandContext): ReadonlyArray<AskKind> => context.asks.map((a) => a.ask)

/**
 * Whether an agent waits for the person (`active.asking`): `none` or `waiting`. Remembered across
 * parking and healing (`deciding` reads the asks back); every ask's end, however it ends, is one
 * `person.answered`.
 */
export const askingRegion = {
  initial: 'deciding',
  states: {
    deciding: { always: [{ guard: 'isWaitingForPerson', target: 'waiting' }, { target: 'none' }] },
    none: { on: { 'person.asked': { target: 'waiting', actions: ['noteAsked', 'touch'] } } },
    // An agent is blocked on the person: idleness does not park the errand (C2, see mayEvict).
    waiting: {
      on: {
        'person.asked': { actions: ['noteAsked', 'touch'] },
        'person.answered': [
          { guard: 'answersLastAsk', target: 'none', actions: ['noteAnswered', 'touch'] },
          { actions: ['noteAnswered', 'touch'] },
        ],
      },
    },
  },
} as const
