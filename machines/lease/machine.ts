import { assign, emit, enqueueActions, setup } from 'xstate'
import type {
  LeaseContext,
  LeaseEmitted,
  LeaseEndCause,
  LeaseEvent,
  LeaseInput,
  ObservationRejectReason,
  PendingObservation,
} from './types.ts'
import { at } from '../timed.ts'

/**
 * The final state a cause ends a lease in.
 *
 * @example
 * endStateOf('lease-limit') // 'expired'
 */
export const endStateOf = (cause: LeaseEndCause): 'returned' | 'revoked' | 'expired' =>
  cause === 'return' ? 'returned' : cause === 'pairing-expired' || cause === 'lease-limit' ? 'expired' : 'revoked'

const idOf = (event: LeaseEvent): string | undefined => ('id' in event ? event.id : undefined)
const isPending = (context: LeaseContext, id: string | undefined) =>
  id !== undefined && context.pending.some((p) => p.id === id)
const without = (pending: ReadonlyArray<PendingObservation>, id: string | undefined) =>
  pending.filter((p) => p.id !== id)

/**
 * When a lease ended: the event's time, or — for a deadline, whose event carries no time — the
 * moment the deadline fell due, so that a replayed journal ends at the same time (T1).
 */
const endTime = (context: LeaseContext, event: LeaseEvent | { type: string }, cause: LeaseEndCause): number => {
  const time = at(event)
  if (time !== undefined) return time
  switch (cause) {
    case 'pairing-expired':
      return context.createdAt + context.pairingExpiryMs
    case 'lease-limit':
      return (context.pairedAt ?? context.createdAt) + context.leaseLimitMs
    case 'poll-timeout':
      return (context.lastPollAt ?? context.pairedAt ?? context.createdAt) + context.pollTimeoutMs
    default:
      return context.endedAt ?? context.createdAt
  }
}

const rejected = (context: LeaseContext, id: string, reason: ObservationRejectReason): LeaseEmitted => ({
  type: 'observation.rejected',
  leaseId: context.leaseId,
  id,
  reason,
  cause: reason === 'lease-ended' ? context.endCause : null,
})

const endTo = (target: '#lease.returned' | '#lease.revoked' | '#lease.expired', cause: LeaseEndCause) =>
  ({ target, actions: { type: 'markEnd', params: { cause } } }) as const
const revokeWith = (cause: LeaseEndCause) => endTo('#lease.revoked', cause)

/**
 * Causes that end a lease wherever it is open. They sit on the open states, not on the root:
 * a pure `transition()` from a final state would otherwise re-enter it and end the lease twice.
 */
const whileOpen = {
  'lease.return': endTo('#lease.returned', 'return'),
  'access.removed': revokeWith('access-removed'),
  'target.changed': revokeWith('target-changed'),
  'host.disposed': revokeWith('host-disposed'),
  'lease.replaced': revokeWith('replaced'),
  // Nothing is shared outside `shared`: asking to observe there is answered at once.
  'observation.requested': { actions: { type: 'rejectObservation', params: { reason: 'not-shared' } } },
} as const

/**
 * The lease machine: one actor per pairing code, for one bot and at most one shared document.
 *
 * `pairing` waits for the extension to redeem the code (at most `pairingExpiry`, 5 min);
 * `leased` is a paired extension, first `awaiting` the person's "Share current tab read-only",
 * then `shared` with one document fenced by an opaque digest of its URL and document id. The
 * whole lease lasts at most `leaseLimit` (30 min) and ends when the extension has not polled for
 * `pollTimeout` (45 s, restarted by each poll). `returned`, `revoked` and `expired` are final:
 * entering one rejects every pending observation and invalidates the approval (D5), and the
 * machine says so by emitting `observation.rejected` and `lease.ended` — the service acts on those.
 *
 * The machine never chooses a tab and never re-shares by itself: a new document needs a new
 * pairing and a new Share (D6).
 *
 * @example
 * const actor = createActor(leaseMachine, { input: { leaseId: 'l1', botId: 'bot-1', now: 0 } })
 * actor.on('observation.rejected', (e) => waiting.get(e.id)?.reject(e.reason))
 * actor.start()
 * actor.send({ type: 'pairing.redeemed', at: 1 })
 * actor.send({ type: 'lease.shared', fence: 'f1', at: 2 })
 * actor.send({ type: 'observation.requested', id: 'o1', at: 3 })
 * actor.send({ type: 'tab.navigated', at: 4 }) // → revoked; emits observation.rejected for o1
 */
export const leaseMachine = setup({
  types: {
    context: {} as LeaseContext,
    events: {} as LeaseEvent,
    input: {} as LeaseInput,
    emitted: {} as LeaseEmitted,
    tags: {} as 'redeemable' | 'leased' | 'shared' | 'ended',
  },
  delays: {
    pairingExpiry: ({ context }) => context.pairingExpiryMs,
    leaseLimit: ({ context }) => context.leaseLimitMs,
    pollTimeout: ({ context }) => context.pollTimeoutMs,
  },
  guards: {
    isKnownObservation: ({ context, event }) => isPending(context, idOf(event)),
    isDuplicateRequest: ({ context, event }) => isPending(context, idOf(event)),
    isFull: ({ context }) => context.pending.length >= context.maxPending,
    isFenced: ({ context, event }) =>
      event.type === 'observation.answered' && context.fence !== null && event.fence === context.fence,
  },
  actions: {
    markEnd: assign(({ context, event }, params: { cause: LeaseEndCause }) => ({
      endCause: params.cause,
      endedAt: endTime(context, event, params.cause),
    })),
    markPaired: assign(({ event }) => ({
      pairedAt: 'at' in event ? event.at : null,
      lastPollAt: 'at' in event ? event.at : null,
    })),
    markShared: assign(({ event }) =>
      event.type === 'lease.shared' ? { fence: event.fence, sharedAt: event.at } : {},
    ),
    markPolled: assign({ lastPollAt: ({ context, event }) => ('at' in event ? event.at : context.lastPollAt) }),
    addPending: assign({
      pending: ({ context, event }) =>
        event.type === 'observation.requested'
          ? [...context.pending, { id: event.id, requestedAt: event.at }]
          : context.pending,
    }),
    approve: assign({ approved: true }),
    resolveObservation: enqueueActions(({ context, event, enqueue }) => {
      const id = idOf(event)!
      enqueue.assign({ pending: without(context.pending, id) })
      enqueue.emit({ type: 'observation.resolved', leaseId: context.leaseId, id })
    }),
    rejectObservation: enqueueActions(({ context, event, enqueue }, params: { reason: ObservationRejectReason }) => {
      const id = idOf(event)!
      enqueue.assign({ pending: without(context.pending, id) })
      enqueue.emit(rejected(context, id, params.reason))
    }),
    /** Ending: every pending observation is rejected, the approval goes, and the service hears why. */
    settleEnd: enqueueActions(({ context, enqueue }) => {
      const cause = context.endCause ?? 'host-disposed'
      for (const p of context.pending) enqueue.emit(rejected({ ...context, endCause: cause }, p.id, 'lease-ended'))
      enqueue(
        emit({
          type: 'lease.ended',
          leaseId: context.leaseId,
          botId: context.botId,
          state: endStateOf(cause),
          cause,
          at: context.endedAt ?? context.createdAt,
          rejected: context.pending.map((p) => p.id),
          approvalInvalidated: context.approved,
        }),
      )
      enqueue.assign({ pending: [], approved: false, endCause: cause })
    }),
  },
}).createMachine({
  id: 'lease',
  context: ({ input }) => ({
    leaseId: input.leaseId,
    botId: input.botId,
    createdAt: input.now,
    pairedAt: null,
    sharedAt: null,
    lastPollAt: null,
    fence: null,
    pending: [],
    approved: false,
    endCause: null,
    endedAt: null,
    pairingExpiryMs: input.pairingExpiryMs ?? 5 * 60_000,
    leaseLimitMs: input.leaseLimitMs ?? 30 * 60_000,
    pollTimeoutMs: input.pollTimeoutMs ?? 45_000,
    maxPending: input.maxPending ?? 4,
  }),
  initial: 'pairing',
  states: {
    pairing: {
      tags: ['redeemable'],
      after: { pairingExpiry: endTo('#lease.expired', 'pairing-expired') },
      on: { ...whileOpen, 'pairing.redeemed': { target: 'leased', actions: 'markPaired' } },
    },

    leased: {
      type: 'parallel',
      tags: ['leased'],
      after: { leaseLimit: endTo('#lease.expired', 'lease-limit') },
      on: whileOpen,
      states: {
        share: {
          initial: 'awaiting',
          states: {
            awaiting: {
              on: { 'lease.shared': { target: 'shared', actions: 'markShared' } },
            },
            shared: {
              tags: ['shared'],
              on: {
                'observation.requested': [
                  { guard: 'isDuplicateRequest' },
                  { guard: 'isFull', actions: { type: 'rejectObservation', params: { reason: 'too-many' } } },
                  { actions: 'addPending' },
                ],
                'observation.answered': [
                  // A late or repeated answer to something already settled changes nothing.
                  { guard: ({ context, event }) => !isPending(context, idOf(event)) },
                  { guard: 'isFenced', actions: 'resolveObservation' },
                  // Another URL or document answered: the shared document is gone, so is the lease.
                  {
                    target: '#lease.revoked',
                    actions: [
                      { type: 'rejectObservation', params: { reason: 'fence-mismatch' } },
                      { type: 'markEnd', params: { cause: 'navigation' } },
                    ],
                  },
                ],
                'observation.failed': {
                  guard: 'isKnownObservation',
                  actions: { type: 'rejectObservation', params: { reason: 'extension-error' } },
                },
                'observation.abandoned': {
                  guard: 'isKnownObservation',
                  actions: { type: 'rejectObservation', params: { reason: 'abandoned' } },
                },
                'approval.granted': { actions: 'approve' },
                'tab.navigated': revokeWith('navigation'),
                'tab.closed': revokeWith('tab-closed'),
              },
            },
          },
        },
        liveness: {
          initial: 'watching',
          states: {
            // Each poll re-enters the state, which restarts the `pollTimeout` timer.
            watching: {
              after: { pollTimeout: revokeWith('poll-timeout') },
              on: { 'extension.polled': { target: 'watching', reenter: true, actions: 'markPolled' } },
            },
          },
        },
      },
    },

    returned: { type: 'final', tags: ['ended'], entry: 'settleEnd' },
    revoked: { type: 'final', tags: ['ended'], entry: 'settleEnd' },
    expired: { type: 'final', tags: ['ended'], entry: 'settleEnd' },
  },
})

/**
 * The lease machine's type, for `ActorRefFrom<LeaseMachine>` and friends.
 *
 * @example
 * type LeaseActor = ActorRefFrom<LeaseMachine>
 */
export type LeaseMachine = typeof leaseMachine
