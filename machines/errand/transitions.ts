/**
 * Transition maps and a region of the errand machine that are plain data (named guards, actions
 * and targets only), kept beside it so machine.ts stays one concept: its states.
 */

/**
 * While a context is being opened (seeding, resuming), an ending or a park asked for is remembered
 * and done once the context is open: the opening is never cut in half.
 */
export const requestsWhileOpening = {
  'task.changed': [
    { guard: 'isEnding', actions: 'requestClose' },
    { guard: 'isParkingStatus', actions: 'requestPark' },
  ],
  'chat.deleted': { actions: 'requestClose' },
  'errand.close': { actions: 'requestClose' },
  'system.shutdown': { actions: 'requestPark' },
} as const

/**
 * With a context open or coming back (active, healing), an ending closes at once and a parking
 * status parks; any other status counts as use.
 */
export const endOrParkNow = {
  'task.changed': [
    { guard: 'isEnding', target: 'closing' },
    { guard: 'isParkingStatus', target: 'parking', actions: 'noteParkCause' },
    { actions: 'touch' },
  ],
  'chat.deleted': { target: 'closing' },
  'errand.close': { target: 'closing' },
} as const

/**
 * Who holds the wheel (`active.wheel`): the agents, or a person driving from the live view (P1).
 * Remembered across parking and healing (`deciding` reads it back).
 */
export const wheelRegion = {
  initial: 'deciding',
  states: {
    deciding: { always: [{ guard: 'isPersonDriving', target: 'person' }, { target: 'agents' }] },
    agents: { on: { 'wheel.taken': { target: 'person', actions: ['takeWheel', 'touch'] } } },
    // A person drives from the live view (P1): the agents' acting verbs are refused until
    // the hand-back (P2), and the errand is not parked by the cap or idleness (C2).
    person: { on: { 'wheel.handedBack': { target: 'agents', actions: ['handBack', 'touch'] } } },
  },
} as const
