import { describe, expect, it } from 'vitest'
import { createActor, fromPromise, initialTransition, SimulatedClock, transition, type SnapshotFrom } from 'xstate'
import { errandMachine } from './machine.ts'
import type { AskOutcome, EffectInput, ErrandEvent, ErrandInput } from './types.ts'

type Snap = SnapshotFrom<typeof errandMachine>
type AnyEvent = ErrandEvent | { type: string; [k: string]: unknown }

const input: ErrandInput = { errandId: 'e1', conversationId: 'c1', kind: 'task', reason: 'task', now: 0 }
const step = (s: Snap, ...events: AnyEvent[]) =>
  events.reduce((acc, e) => transition(errandMachine, acc, e as ErrandEvent)[0], s)
const done = (id: string, output: unknown = undefined) => ({ type: `xstate.done.actor.${id}`, output })
const active = () => step(initialTransition(errandMachine, input)[0], done('openContext', { contextId: 'ctx-1' }))
const asked = (id: string, at = 1, ask: 'help' | 'sign-in' = 'help'): ErrandEvent => ({
  type: 'person.asked',
  id,
  ask,
  at,
})
const answered = (id: string, at = 2, outcome: AskOutcome = 'handed-back'): ErrandEvent => ({
  type: 'person.answered',
  id,
  outcome,
  at,
})
const waiting = (s: Snap) => s.matches({ active: { asking: 'waiting' } })

describe('errand machine — waiting for the person (P3, P4)', () => {
  it('waits while an ask is open and not after its answer; each ask is counted once', () => {
    const s = step(active(), asked('h1', 5))
    expect(waiting(s)).toBe(true)
    expect(s.context.asks).toEqual([{ id: 'h1', ask: 'help' }])
    expect(s.context.lastUsedAt).toBe(5)
    expect(step(s, asked('h1', 6)).context.asks).toHaveLength(1)
    const back = step(s, answered('h1', 9))
    expect(back.matches({ active: { asking: 'none' } })).toBe(true)
    expect(back.context.asks).toEqual([])
    // Asking and answering are use: the idle clock starts again from the answer.
    expect(back.context.lastUsedAt).toBe(9)
  })

  it('keeps waiting until the last of several asks ends, however each ends', () => {
    const s = step(active(), asked('h1'), asked('q1', 1, 'sign-in'))
    expect(s.context.asks.map((a) => a.ask)).toEqual(['help', 'sign-in'])
    const one = step(s, answered('q1', 2, 'deny'))
    expect(waiting(one)).toBe(true)
    expect(step(one, answered('unknown', 3, 'allow')).context.asks).toHaveLength(1)
    expect(waiting(step(one, answered('h1', 3, 'timeout')))).toBe(false)
  })

  it('idleness does not park an errand whose agent waits for the person; the cap and a park request may (C2)', () => {
    const s = step(active(), asked('q1', 1, 'sign-in'))
    expect(step(s, { type: 'errand.evict', cause: 'idle', at: 2 }).matches('active')).toBe(true)
    expect(step(s, { type: 'errand.evict', cause: 'capacity', at: 2 }).value).toBe('parking')
    expect(step(s, { type: 'errand.park', at: 2 }).value).toBe('parking')
    // Once answered, idleness sets it aside again like any unwatched errand: frozen first (frozen.ts).
    expect(step(s, answered('q1', 3, 'allow'), { type: 'errand.evict', cause: 'idle', at: 4 }).value).toBe('freezing')
  })

  it('a person at the wheel while an agent waits: both regions show it, and nothing parks it', () => {
    const s = step(active(), asked('h1'), { type: 'wheel.taken', at: 2 })
    expect(s.matches({ active: { wheel: 'person', asking: 'waiting' } })).toBe(true)
    for (const e of [
      { type: 'errand.evict', cause: 'capacity', at: 3 },
      { type: 'errand.evict', cause: 'idle', at: 3 },
      { type: 'errand.park', at: 3 },
    ] as const) {
      expect(step(s, e).matches('active')).toBe(true)
    }
    // The hand-back answers the help (the supervisor sends both).
    const back = step(s, { type: 'wheel.handedBack', at: 4 }, answered('h1', 4))
    expect(back.matches({ active: { wheel: 'agents', asking: 'none' } })).toBe(true)
  })
})

describe('errand machine — asks across parking and healing', () => {
  it('an ask open when the errand parks for room still waits after the resume', () => {
    const parked = step(
      active(),
      asked('q1', 1, 'sign-in'),
      { type: 'errand.evict', cause: 'capacity', at: 2 },
      done('sealAndPark', { parkedAt: 2 }),
    )
    expect(parked.value).toBe('parked')
    expect(parked.context.asks).toHaveLength(1)
    const resumed = step(parked, { type: 'errand.resume', at: 3 }, done('restoreParked', { contextId: 'ctx-2' }))
    expect(waiting(resumed)).toBe(true)
  })

  it('an answer while parked is kept: the errand resumes not waiting', () => {
    const parked = step(
      active(),
      asked('q1', 1, 'sign-in'),
      { type: 'errand.park', at: 2 },
      done('sealAndPark', { parkedAt: 2 }),
    )
    const answeredParked = step(parked, answered('q1', 3, 'allow'))
    expect(answeredParked.value).toBe('parked')
    expect(answeredParked.context.asks).toEqual([])
    expect(
      step(answeredParked, { type: 'errand.resume', at: 4 }, done('restoreParked', { contextId: 'ctx-2' })).matches({
        active: { asking: 'none' },
      }),
    ).toBe(true)
  })

  it(
    'a heal brings the waiting back (the asker still waits in the supervisor); an ask made while healing shows ' +
      'after it',
    () => {
      const healed = step(
        active(),
        asked('h1'),
        { type: 'browser.crashed', at: 2 },
        asked('q2', 3, 'sign-in'),
        { type: 'errand.used', at: 4 },
        done('restoreSnapshot', { contextId: 'ctx-3' }),
      )
      expect(waiting(healed)).toBe(true)
      expect(healed.context.asks.map((a) => a.id)).toEqual(['h1', 'q2'])
    },
  )

  it('a restart forgets the asks: the calls that made them ended with the process', () => {
    const restarted = initialTransition(errandMachine, { ...input, parkedAt: 5 })[0]
    expect(restarted.context.asks).toEqual([])
  })
})

describe('errand machine — waiting on a simulated clock', () => {
  it('the idle sweep on the clock leaves a waiting errand open until the answer, then parks it', async () => {
    const clock = new SimulatedClock()
    const machine = errandMachine.provide({
      actors: {
        openContext: fromPromise<{ contextId: string }, EffectInput>(async () => ({ contextId: 'ctx-1' })),
        sealAndPark: fromPromise(async () => ({ parkedAt: clock.now() })),
      },
    })
    const actor = createActor(machine, { input, clock }).start()
    await new Promise<void>((resolve) => actor.subscribe((s) => s.matches('active') && resolve()))
    actor.send(asked('q1', clock.now(), 'sign-in'))
    clock.increment(60_000)
    actor.send({ type: 'errand.evict', cause: 'idle', at: clock.now() })
    expect(actor.getSnapshot().matches({ active: { asking: 'waiting' } })).toBe(true)
    actor.send(answered('q1', clock.now(), 'timeout'))
    actor.send({ type: 'errand.evict', cause: 'idle', at: clock.now() })
    await new Promise<void>((resolve) => actor.subscribe((s) => s.matches('parked') && resolve()))
    expect(actor.getSnapshot().context.parkCause).toBe('idle')
    actor.stop()
  })
})
