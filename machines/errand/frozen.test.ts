import { describe, expect, it } from 'vitest'
import { createActor, fromPromise, initialTransition, SimulatedClock, transition, type SnapshotFrom } from 'xstate'
import { errandMachine } from './machine.ts'
import type { EffectInput, ErrandEvent, ErrandInput, ParkInput } from './types.ts'

type Snap = SnapshotFrom<typeof errandMachine>
type AnyEvent = ErrandEvent | { type: string; [k: string]: unknown }

const input: ErrandInput = { errandId: 'e1', conversationId: 'c1', kind: 'task', reason: 'task', now: 0 }
const step = (s: Snap, ...events: AnyEvent[]) =>
  events.reduce((acc, e) => transition(errandMachine, acc, e as ErrandEvent)[0], s)
const done = (id: string, output: unknown = undefined) => ({ type: `xstate.done.actor.${id}`, output })
const fail = (id: string) => ({ type: `xstate.error.actor.${id}`, error: { _tag: 'RuntimeError', reason: 'x' } })
const active = () => step(initialTransition(errandMachine, input)[0], done('openContext', { contextId: 'ctx-1' }))
const idle = (at = 10) => ({ type: 'errand.evict', cause: 'idle', at }) as const
const frozen = () => step(active(), idle(), done('freezeContext'))

describe('errand machine — the frozen step, stepping (C4, C2)', () => {
  it('idleness freezes an open errand first: its context kept, counted toward the cap, not busy', () => {
    const freezing = step(active(), idle())
    expect(freezing.value).toBe('freezing')
    expect(freezing.hasTag('busy')).toBe(true)
    const s = step(freezing, done('freezeContext'))
    expect(s.value).toBe('frozen')
    expect(s.hasTag('holds-context')).toBe(true)
    expect(s.hasTag('busy')).toBe(false)
    expect(s.context).toMatchObject({ contextId: 'ctx-1', frozenAt: 10, parkedAt: null })
  })

  it.each([
    ['errand.used', { type: 'errand.used', at: 20 }],
    ['errand.resume', { type: 'errand.resume', at: 20 }],
    ['driver.attached', { type: 'driver.attached', at: 20 }],
    ['watcher.attached', { type: 'watcher.attached', at: 20 }],
    ['wheel.taken', { type: 'wheel.taken', at: 20 }],
    ['person.asked', { type: 'person.asked', id: 'a', ask: 'help', at: 20 }],
    ['task running', { type: 'task.changed', status: 'running', at: 20 }],
  ] as const)('%s thaws a frozen errand, and it is active again on the same context', (_, event) => {
    const thawing = step(frozen(), event)
    expect(thawing.value).toBe('thawing')
    const back = step(thawing, done('thawContext'))
    expect(back.matches('active')).toBe(true)
    expect(back.context).toMatchObject({ contextId: 'ctx-1', frozenAt: null })
  })

  it('a driver who attaches thaws it and drives it: the count is kept across the thaw', () => {
    const s = step(frozen(), { type: 'driver.attached', at: 20 }, done('thawContext'))
    expect(s.matches({ active: { driver: 'driven' } })).toBe(true)
    expect(s.context.lastUsedAt).toBe(20)
  })

  it.each(['capacity', 'idle'] as const)('%s seals a frozen errand, and it is parked', (cause) => {
    const parking = step(frozen(), { type: 'errand.evict', cause, at: 30 })
    expect(parking.value).toBe('parking')
    expect(parking.children.sealAndPark).toBeDefined()
    const parked = step(parking, done('sealAndPark', { parkedAt: 30 }))
    expect(parked.value).toBe('parked')
    expect(parked.context).toMatchObject({ contextId: null, frozenAt: null, parkCause: cause })
  })

  it('the cap seals an active errand at once, without freezing it', () => {
    expect(step(active(), { type: 'errand.evict', cause: 'capacity', at: 5 }).value).toBe('parking')
  })

  it('an errand waiting for the person, driven, watched or at the wheel is not frozen', () => {
    for (const e of [
      { type: 'person.asked', id: 'a', ask: 'sign-in', at: 1 },
      { type: 'driver.attached', at: 1 },
      { type: 'watcher.attached', at: 1 },
      { type: 'wheel.taken', at: 1 },
    ] as const) {
      expect(step(active(), e, idle()).matches('active')).toBe(true)
    }
  })

  it('someone who comes while it freezes thaws it straight back', () => {
    const s = step(active(), idle(), { type: 'watcher.attached', at: 11 }, done('freezeContext'))
    expect(s.value).toBe('thawing')
    expect(step(s, done('thawContext')).matches({ active: { watcher: 'watched' } })).toBe(true)
  })

  it('a freeze that fails seals the errand the old way, idle; a thaw that fails leaves it active, error kept', () => {
    const parking = step(active(), idle(), fail('freezeContext'))
    expect(parking.value).toBe('parking')
    expect(parking.context.parkCause).toBe('idle')
    const thawFailed = step(frozen(), { type: 'errand.used', at: 20 }, fail('thawContext'))
    expect(thawFailed.matches('active')).toBe(true)
    expect(thawFailed.context.lastError?.reason).toBe('x')
  })

  it('an ending closes a frozen errand; a crash heals it from the last snapshot; shutdown seals it (E3, H2)', () => {
    expect(step(frozen(), { type: 'task.changed', status: 'done', at: 20 }).value).toBe('closing')
    expect(step(frozen(), { type: 'chat.deleted', at: 20 }).value).toBe('closing')
    const healing = step(frozen(), { type: 'browser.crashed', at: 20 })
    expect(healing.value).toEqual({ healing: 'waiting' })
    expect(healing.context).toMatchObject({ contextId: null, frozenAt: null })
    expect(step(frozen(), { type: 'system.shutdown', at: 20 }).context.parkCause).toBe('shutdown')
    expect(step(frozen(), { type: 'task.changed', status: 'interrupted', at: 20 }).value).toBe('parking')
  })

  it('a close asked for while it thaws closes right after', () => {
    const s = step(frozen(), { type: 'errand.used', at: 20 }, { type: 'errand.close', at: 21 }, done('thawContext'))
    expect(s.value).toBe('closing')
  })
})

describe('errand machine — the frozen step on a simulated clock', () => {
  const tick = () => new Promise((r) => setTimeout(r, 0))
  const provided = (log: string[]) =>
    errandMachine.provide({
      actors: {
        openContext: fromPromise(async () => ({ contextId: 'ctx-1' })),
        restoreSnapshot: fromPromise(async () => ({ contextId: 'ctx-2' })),
        takeSnapshot: fromPromise(async () => {
          log.push('snapshot')
          return { takenAt: 0 }
        }),
        sealAndPark: fromPromise<{ parkedAt: number }, ParkInput>(async ({ input }) => {
          log.push(`seal frozen=${input.frozen}`)
          return { parkedAt: 0 }
        }),
        closeContext: fromPromise<void, EffectInput>(async () => {}),
        freezeContext: fromPromise<void, EffectInput>(async ({ input }) => {
          log.push(`freeze ${input.contextId}`)
        }),
        thawContext: fromPromise<void, EffectInput>(async ({ input }) => {
          log.push(`thaw ${input.contextId}`)
        }),
      },
    })

  it('nothing runs while frozen: a due snapshot is not taken, no timer seals it; a use thaws it', async () => {
    const clock = new SimulatedClock()
    const log: string[] = []
    const actor = createActor(provided(log), { clock, input }).start()
    await tick()
    actor.send({ type: 'page.loaded', at: 0 })
    clock.increment(1_000)
    actor.send({ type: 'errand.evict', cause: 'idle', at: 1_000 })
    await tick()
    expect(actor.getSnapshot().value).toBe('frozen')
    clock.increment(3_600_000)
    await tick()
    expect(actor.getSnapshot().value).toBe('frozen')
    expect(log).toEqual(['freeze ctx-1'])
    actor.send({ type: 'errand.used', at: 3_601_000 })
    await tick()
    expect(actor.getSnapshot().matches({ active: { snapshot: 'clean' } })).toBe(true)
    // Active again, its debounce runs on the clock as before (H1).
    actor.send({ type: 'page.loaded', at: 3_601_000 })
    clock.increment(3_000)
    await tick()
    expect(log).toEqual(['freeze ctx-1', 'thaw ctx-1', 'snapshot'])
    actor.stop()
  })

  it('the second idle seals the frozen errand, and the seal is told its pages are frozen', async () => {
    const clock = new SimulatedClock()
    const log: string[] = []
    const actor = createActor(provided(log), { clock, input }).start()
    await tick()
    actor.send({ type: 'errand.evict', cause: 'idle', at: 60_000 })
    await tick()
    clock.increment(600_000)
    actor.send({ type: 'errand.evict', cause: 'idle', at: 660_000 })
    await tick()
    expect(actor.getSnapshot().value).toBe('parked')
    expect(log).toEqual(['freeze ctx-1', 'seal frozen=true'])
    actor.send({ type: 'errand.used', at: 700_000 })
    await tick()
    expect(actor.getSnapshot().context.contextId).toBe('ctx-2')
    actor.stop()
  })
})
