/**
 * Setting aside in two steps (C4, docs/parking.md): an idle errand is first *frozen* — its context
 * kept, its pages' lifecycle frozen, no CPU — and only sealed and closed (`parking`) when the cap
 * needs its room (C2) or after a second, longer idle. Any use thaws it and it is active again.
 * These are the three states of that step, plain data beside machine.ts (named guards, actions,
 * effects and targets only).
 */
import { effectInput } from './effects.ts'
import { requestsWhileOpening } from './transitions.ts'
import type { ErrandContext } from './types.ts'

/** A crash while the context is kept (frozen, freezing or thawing) heals like one of an active errand (H2). */
const crashes = {
  'context.crashed': { target: 'healing', actions: ['forgetContext', 'noteCrash'] },
  'browser.crashed': { target: 'healing', actions: ['forgetContext', 'noteCrash'] },
} as const

/** What an opening effect's done event does with a close or park asked for meanwhile, first. */
const pendingFirst = [
  { guard: 'closeRequested', target: 'closing', actions: 'clearPending' },
  { guard: 'parkRequested', target: 'parking' },
] as const

/**
 * `freezing`: the pages' lifecycle is being frozen. Someone who came meanwhile (a driver, a
 * watcher, the person's wheel, an ask) thaws it straight back; a freeze that fails sets the
 * errand aside the old way, sealed (its cause is already `idle`).
 */
export const freezingState = {
  tags: ['holds-context', 'busy'],
  invoke: {
    id: 'freezeContext',
    src: 'freezeContext',
    input: ({ context }: { context: ErrandContext }) => effectInput(context),
    onDone: [...pendingFirst, { guard: 'isInUse', target: 'thawing' }, { target: 'frozen' }],
    onError: [
      { guard: 'closeRequested', target: 'closing', actions: ['noteError', 'clearPending'] },
      { target: 'parking', actions: 'noteError' },
    ],
  },
  on: { ...requestsWhileOpening, ...crashes },
} as const

/**
 * `frozen`: the context and its pages are kept, frozen; the errand still counts toward the cap
 * (`holds-context`). Every use thaws it; the cap or the second idle (`errand.evict`), a park
 * request and shutdown seal it; an ending closes it.
 */
export const frozenState = {
  tags: ['holds-context'],
  on: {
    'errand.used': { target: 'thawing', actions: 'touch' },
    'errand.resume': { target: 'thawing', actions: 'touch' },
    'driver.attached': { target: 'thawing', actions: ['addDriver', 'touch'] },
    'watcher.attached': { target: 'thawing', actions: 'addWatcher' },
    'wheel.taken': { target: 'thawing', actions: ['takeWheel', 'touch'] },
    'person.asked': { target: 'thawing', actions: ['noteAsked', 'touch'] },
    'task.changed': [
      { guard: 'isEnding', target: 'closing' },
      { guard: 'isParkingStatus', target: 'parking', actions: 'noteParkCause' },
      { target: 'thawing', actions: 'touch' },
    ],
    'chat.deleted': { target: 'closing' },
    'errand.close': { target: 'closing' },
    'errand.park': { target: 'parking', actions: 'noteParkRequested' },
    'errand.evict': { guard: 'isIdle', target: 'parking', actions: 'noteParkCause' },
    'system.shutdown': { target: 'parking', actions: 'noteShutdown' },
    ...crashes,
  },
} as const

/**
 * `thawing`: the pages' lifecycle is set active again. A thaw that fails leaves the errand active
 * with its error kept: a context that is gone arrives as its own crash event and heals.
 */
export const thawingState = {
  tags: ['holds-context', 'busy'],
  invoke: {
    id: 'thawContext',
    src: 'thawContext',
    input: ({ context }: { context: ErrandContext }) => effectInput(context),
    onDone: [...pendingFirst, { target: 'active' }],
    onError: [...pendingFirst, { target: 'active', actions: 'noteError' }],
  },
  on: { ...requestsWhileOpening, ...crashes },
} as const
