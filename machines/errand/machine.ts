/**
 * The errand machine: its states, guards, delays and named actions. The effects it invokes are
 * named here and provided from outside (`effects.ts`); what it reads from events is `events.ts`.
 */
import { assign, setup } from 'xstate'
import { initialContext } from './context.ts'
import { effectInput, errorOf, notProvided, outputOf, toFailure } from './effects.ts'
import { parkCauseOf } from './events.ts'
import { endOrParkNow, requestsWhileOpening, wheelRegion } from './transitions.ts'
import { answersLastAsk, askingRegion, isWaiting, mayEvict, withAsk, withoutAsk } from './asking.ts'
import { at } from '../timed.ts'
import { freezingState, frozenState, thawingState } from './frozen.ts'
import {
  endingStatuses,
  parkingStatuses,
  type EffectInput,
  type ErrandContext,
  type ErrandEvent,
  type ErrandInput,
  type OpenedContext,
  type ParkInput,
  type Parked,
  type RestoreInput,
  type SnapshotTaken,
} from './types.ts'

export { toFailure } from './effects.ts'

/**
 * The errand machine: one actor per conversation that browses in a context of its own.
 *
 * `seeding` opens a fresh context (seeded with the always-allowed sites by the supervisor);
 * `active` tracks, in parallel regions, who drives it, who watches it, whether a person has the
 * wheel, whether an agent waits for the person and whether a snapshot is due; idleness first makes it `frozen`
 * (its context kept, its pages frozen: frozen.ts); `parked` holds no context (its state is
 * sealed at rest); `healing` brings a crashed
 * context back from its last snapshot; `closed` is final and means forgotten.
 *
 * @example
 * const actor = createActor(errandMachine.provide({ actors: { openContext, restoreSnapshot, takeSnapshot, sealAndPark,
 * closeContext } }), {
 *   input: { errandId: 'e1', conversationId: 'c1', kind: 'task', reason: 'task', now: 0 },
 * }).start()
 * actor.send({ type: 'task.changed', status: 'interrupted', at: 10 }) // → parking → parked
 */
export const errandMachine = setup({
  types: {
    context: {} as ErrandContext,
    events: {} as ErrandEvent,
    input: {} as ErrandInput,
    tags: {} as 'holds-context' | 'busy' | 'settling',
  },
  actors: {
    openContext: notProvided<EffectInput, OpenedContext>('openContext'),
    restoreSnapshot: notProvided<RestoreInput, OpenedContext>('restoreSnapshot'),
    takeSnapshot: notProvided<EffectInput, SnapshotTaken>('takeSnapshot'),
    sealAndPark: notProvided<ParkInput, Parked>('sealAndPark'),
    closeContext: notProvided<EffectInput, void>('closeContext'),
    freezeContext: notProvided<EffectInput, void>('freezeContext'),
    thawContext: notProvided<EffectInput, void>('thawContext'),
  },
  delays: {
    snapshotDebounce: ({ context }) => context.snapshotDebounceMs,
    healBackoff: ({ context }) => context.healBackoffMs * 2 ** Math.max(0, context.heals - 1),
  },
  guards: {
    startsParked: ({ context }) => context.parkedAt !== null,
    // The agent's task ending or parking the errand is no hand-back: while a person holds the wheel
    // the change is not taken (the host answers 409 PersonDriving before it gets here) (P1, P2).
    isEnding: ({ context, event }) =>
      event.type === 'task.changed' && endingStatuses.includes(event.status) && context.wheel === 'agents',
    isParkingStatus: ({ context, event }) =>
      event.type === 'task.changed' && parkingStatuses.includes(event.status) && context.wheel === 'agents',
    isRunning: ({ event }) => event.type === 'task.changed' && event.status === 'running',
    isDriven: ({ context }) => context.drivers > 0,
    isWatched: ({ context }) => context.watchers > 0,
    isLastDriver: ({ context }) => context.drivers <= 1,
    isLastWatcher: ({ context }) => context.watchers <= 1,
    // A person at the wheel counts as driving: never parked to make room, for idleness or on request (C2, P1).
    // Nor is one whose agent waits for the person parked for idleness (asking.ts).
    isIdle: ({ context, event }) => mayEvict(context, event),
    // Idleness freezes first; only the cap, or idleness again once frozen, seals (frozen.ts, C2, C4).
    freezesFirst: ({ context, event }) =>
      event.type === 'errand.evict' && event.cause === 'idle' && mayEvict(context, event),
    isInUse: ({ context }) => !mayEvict(context, { type: 'errand.evict', cause: 'idle', at: 0 }),
    isUndriven: ({ context }) => context.drivers === 0 && context.wheel === 'agents',
    isPersonDriving: ({ context }) => context.wheel === 'person',
    isWaitingForPerson: ({ context }) => isWaiting(context),
    answersLastAsk: ({ context, event }) => answersLastAsk(context, event),
    closeRequested: ({ context }) => context.pending?.kind === 'close',
    parkRequested: ({ context }) => context.pending?.kind === 'park',
    needsCooling: ({ context }) => context.heals > 0,
    healsExhausted: ({ context }) => context.heals >= context.maxHeals,
    isRecordLost: ({ event }) => toFailure(errorOf(event)).tag === 'RecordUnreadable',
  },
  actions: {
    touch: assign({
      lastUsedAt: ({ context, event }) => Math.max(context.lastUsedAt, at(event) ?? context.lastUsedAt),
    }),
    addDriver: assign({ drivers: ({ context }) => context.drivers + 1 }),
    dropDriver: assign({ drivers: ({ context }) => Math.max(0, context.drivers - 1) }),
    addWatcher: assign({ watchers: ({ context }) => context.watchers + 1 }),
    dropWatcher: assign({ watchers: ({ context }) => Math.max(0, context.watchers - 1) }),
    takeWheel: assign({ wheel: 'person' as const }),
    handBack: assign({ wheel: 'agents' as const }),
    noteAsked: assign({ asks: ({ context, event }) => withAsk(context.asks, event) }),
    noteAnswered: assign({ asks: ({ context, event }) => withoutAsk(context.asks, event) }),
    setSites: assign({
      lentSites: ({ context, event }) => (event.type === 'sites.changed' ? [...event.lentSites] : context.lentSites),
    }),
    forgetContext: assign({ contextId: null, frozenAt: null }),
    noteFrozen: assign({ frozenAt: ({ context, event }) => at(event) ?? context.lastUsedAt }),
    requestClose: assign({ pending: { kind: 'close' } as const }),
    requestPark: assign({
      pending: ({ context, event }) =>
        context.pending?.kind === 'close' ? context.pending : ({ kind: 'park', cause: parkCauseOf(event) } as const),
    }),
    clearPending: assign({ pending: null }),
    countHeal: assign({ heals: ({ context }) => context.heals + 1 }),
    // A crash continues the streak when it comes within healWindowMs of the previous one;
    // otherwise the errand has been well for a while and gets a fresh budget of heals.
    noteCrash: assign(({ context, event }) => {
      const t = at(event) ?? context.lastCrashAt ?? 0
      const continues = context.lastCrashAt !== null && t - context.lastCrashAt <= context.healWindowMs
      return { heals: continues ? context.heals : 0, lastCrashAt: t }
    }),
    // Named because several transitions share them; each reads the done or error event of the
    // effect invoked where it is used (openContext or restoreSnapshot for the first two).
    keepContextId: assign({ contextId: ({ event }) => outputOf<OpenedContext>(event).contextId }),
    keepOpened: assign({
      contextId: ({ event }) => outputOf<OpenedContext>(event).contextId,
      lentSites: ({ context, event }) => [...(outputOf<OpenedContext>(event).lentSites ?? context.lentSites)],
      lastError: null,
    }),
    noteError: assign({ lastError: ({ event }) => toFailure(errorOf(event)) }),
    noteParkCause: assign({ parkCause: ({ event }) => parkCauseOf(event) }),
    noteShutdown: assign({ parkCause: 'shutdown' }),
    noteParkRequested: assign({ parkCause: 'requested' }),
  },
}).createMachine({
  id: 'errand',
  context: ({ input }) => initialContext(input),
  initial: 'starting',
  // Counting drivers and watchers is the same in every state; states that care re-handle the
  // events (the deepest handler wins in XState, so those repeat the counting action).
  on: {
    'driver.attached': { actions: ['addDriver', 'touch'] },
    'driver.detached': { actions: ['dropDriver', 'touch'] },
    'watcher.attached': { actions: 'addWatcher' },
    'watcher.detached': { actions: 'dropWatcher' },
    'sites.changed': { actions: 'setSites' },
    // Who holds the wheel is remembered across parking and healing; `active.wheel` shows it.
    'wheel.taken': { actions: ['takeWheel', 'touch'] },
    'wheel.handedBack': { actions: ['handBack', 'touch'] },
    // So are an agent's open asks of the person; `active.asking` shows them.
    'person.asked': { actions: ['noteAsked', 'touch'] },
    'person.answered': { actions: ['noteAnswered', 'touch'] },
  },
  states: {
    starting: {
      always: [{ guard: 'startsParked', target: 'parked' }, { target: 'seeding' }],
    },

    seeding: {
      tags: ['holds-context', 'busy'],
      invoke: {
        id: 'openContext',
        src: 'openContext',
        input: ({ context }) => effectInput(context),
        onDone: [
          { guard: 'closeRequested', target: 'closing', actions: ['keepContextId', 'clearPending'] },
          { guard: 'parkRequested', target: 'parking', actions: 'keepContextId' },
          { target: 'active', actions: 'keepOpened' },
        ],
        onError: { target: 'closed', actions: 'noteError' },
      },
      on: requestsWhileOpening,
    },

    active: {
      type: 'parallel',
      tags: ['holds-context'],
      entry: assign({ parkedAt: null, parkCause: null, frozenAt: null }),
      on: {
        ...endOrParkNow,
        'errand.used': { actions: 'touch' },
        'errand.park': { guard: 'isUndriven', target: 'parking', actions: 'noteParkRequested' },
        'errand.evict': [
          { guard: 'freezesFirst', target: 'freezing', actions: ['noteParkCause', 'noteFrozen'] },
          { guard: 'isIdle', target: 'parking', actions: 'noteParkCause' },
        ],
        'system.shutdown': { target: 'parking', actions: 'noteShutdown' },
        'context.crashed': { target: 'healing', actions: ['forgetContext', 'noteCrash'] },
        'browser.crashed': { target: 'healing', actions: ['forgetContext', 'noteCrash'] },
      },
      states: {
        driver: {
          initial: 'deciding',
          states: {
            deciding: { always: [{ guard: 'isDriven', target: 'driven' }, { target: 'free' }] },
            free: { on: { 'driver.attached': { target: 'driven', actions: ['addDriver', 'touch'] } } },
            driven: {
              on: {
                'driver.attached': { actions: ['addDriver', 'touch'] },
                'driver.detached': [
                  { guard: 'isLastDriver', target: 'free', actions: ['dropDriver', 'touch'] },
                  { actions: ['dropDriver', 'touch'] },
                ],
              },
            },
          },
        },
        watcher: {
          initial: 'deciding',
          states: {
            deciding: { always: [{ guard: 'isWatched', target: 'watched' }, { target: 'unwatched' }] },
            unwatched: { on: { 'watcher.attached': { target: 'watched', actions: 'addWatcher' } } },
            watched: {
              on: {
                'watcher.attached': { actions: 'addWatcher' },
                'watcher.detached': [
                  { guard: 'isLastWatcher', target: 'unwatched', actions: 'dropWatcher' },
                  { actions: 'dropWatcher' },
                ],
              },
            },
          },
        },
        wheel: wheelRegion,
        asking: askingRegion,
        snapshot: {
          initial: 'clean',
          states: {
            clean: { on: { 'page.loaded': { target: 'due' } } },
            // Each load restarts the wait: one snapshot a few seconds after the last of a burst (H1).
            due: {
              on: { 'page.loaded': { target: 'due', reenter: true } },
              after: { snapshotDebounce: { target: 'taking' } },
            },
            taking: {
              tags: ['settling'],
              invoke: {
                id: 'takeSnapshot',
                src: 'takeSnapshot',
                input: ({ context }) => effectInput(context),
                // A snapshot does not reset the heal count: only a quiet healWindowMs does (noteCrash).
                onDone: {
                  target: 'clean',
                  actions: assign({ snapshotAt: ({ event }) => event.output.takenAt }),
                },
                // A failed snapshot keeps the previous one; a crash arrives as its own event.
                onError: { target: 'clean', actions: 'noteError' },
              },
              on: { 'page.loaded': { target: 'due' } },
            },
          },
        },
      },
    },

    freezing: freezingState,
    frozen: frozenState,
    thawing: thawingState,

    parking: {
      tags: ['holds-context', 'busy'],
      invoke: {
        id: 'sealAndPark',
        src: 'sealAndPark',
        input: ({ context }): ParkInput => ({
          ...effectInput(context),
          cause: context.pending?.kind === 'park' ? context.pending.cause : (context.parkCause ?? 'requested'),
          frozen: context.frozenAt !== null,
        }),
        onDone: [
          { guard: 'closeRequested', target: 'closing', actions: ['forgetContext', 'clearPending'] },
          {
            target: 'parked',
            actions: [
              'forgetContext',
              assign({
                parkedAt: ({ event }) => event.output.parkedAt,
                frozenAt: null,
                parkCause: ({ context }) =>
                  context.pending?.kind === 'park' ? context.pending.cause : context.parkCause,
                lastError: null,
              }),
              'clearPending',
            ],
          },
        ],
        // Sealing failed (a full disk, say): the context is still open, so nothing is lost.
        onError: [
          // An ending asked for during the park still ends it: closing needs no disk (issue #15:
          // the soak's "done" under a full disk was answered 200 and the errand stayed open).
          { guard: 'closeRequested', target: 'closing', actions: ['noteError', 'clearPending'] },
          {
            guard: ({ context }) => context.contextId === null,
            target: '#errand.healing.waiting',
            actions: ['noteError', 'clearPending'],
          },
          { target: 'active', actions: ['noteError', 'clearPending'] },
        ],
      },
      on: {
        'task.changed': { guard: 'isEnding', actions: 'requestClose' },
        'chat.deleted': { actions: 'requestClose' },
        'errand.close': { actions: 'requestClose' },
      },
    },

    parked: {
      on: {
        'task.changed': [
          { guard: 'isEnding', target: 'closing' },
          { guard: 'isRunning', target: 'resuming', actions: 'touch' },
        ],
        'chat.deleted': { target: 'closing' },
        'errand.close': { target: 'closing' },
        'errand.resume': { target: 'resuming', actions: 'touch' },
        'errand.used': { target: 'resuming', actions: 'touch' },
      },
    },

    resuming: {
      tags: ['holds-context', 'busy'],
      invoke: {
        id: 'restoreParked',
        src: 'restoreSnapshot',
        input: ({ context }): RestoreInput => ({ ...effectInput(context), source: 'parked' }),
        onDone: [
          { guard: 'closeRequested', target: 'closing', actions: ['keepContextId', 'clearPending'] },
          { guard: 'parkRequested', target: 'parking', actions: 'keepContextId' },
          { target: 'active', actions: 'keepOpened' },
        ],
        onError: [
          // The sealed record could not be read: it is dropped (health says so) and the errand ends.
          { guard: 'isRecordLost', target: 'closed', actions: 'noteError' },
          { target: 'parked', actions: ['noteError', 'clearPending'] },
        ],
      },
      on: requestsWhileOpening,
    },

    healing: {
      initial: 'deciding',
      on: {
        ...endOrParkNow,
        'system.shutdown': { target: 'parking', actions: 'noteShutdown' },
      },
      states: {
        deciding: {
          always: [
            // Bounded (issue #9): this streak has had its heals; set it aside rather than retry.
            { guard: 'healsExhausted', target: '#errand.parking', actions: assign({ parkCause: 'heal-exhausted' }) },
            { guard: 'needsCooling', target: 'cooling' },
            { target: 'waiting' },
          ],
        },
        // Crashing again right after a heal: wait before the next try, longer each time.
        cooling: { after: { healBackoff: { target: 'waiting' } } },
        // Relaunch on next use (H2). "At once when someone is watching" is the supervisor's
        // move: reopening takes a slot, so it goes through admission like every other open.
        waiting: {
          on: {
            'errand.used': { target: 'restoring', actions: 'touch' },
            'errand.resume': { target: 'restoring', actions: 'touch' },
          },
        },
        restoring: {
          tags: ['holds-context', 'busy'],
          entry: 'countHeal',
          invoke: {
            id: 'restoreSnapshot',
            src: 'restoreSnapshot',
            input: ({ context }): RestoreInput => ({ ...effectInput(context), source: 'snapshot' }),
            onDone: { target: '#errand.active', actions: 'keepOpened' },
            onError: { target: 'deciding', actions: 'noteError' },
          },
          on: {
            // The browser died again while we were reopening: try again (bounded by maxHeals).
            'browser.crashed': { target: 'deciding', reenter: true, actions: 'noteCrash' },
            'context.crashed': { target: 'deciding', reenter: true, actions: 'noteCrash' },
          },
        },
      },
    },

    closing: {
      tags: ['holds-context', 'busy'],
      invoke: {
        id: 'closeContext',
        src: 'closeContext',
        input: ({ context }) => effectInput(context),
        // Closing is best effort and idempotent: whatever happens, the errand is forgotten.
        onDone: { target: 'closed', actions: 'forgetContext' },
        onError: { target: 'closed', actions: ['forgetContext', 'noteError'] },
      },
    },

    closed: { type: 'final' },
  },
})

/** The errand machine's type, for `ActorRefFrom<ErrandMachine>` and friends. */
export type ErrandMachine = typeof errandMachine
