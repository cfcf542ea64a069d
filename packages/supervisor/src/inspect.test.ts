import { it } from '@effect/vitest'
import { createInspector, type StatelyInspectionEvent } from '@statelyai/inspect'
import { Effect } from 'effect'
import { describe, expect } from 'vitest'
import { services, testSupervisor, visitAs } from './testing.ts'

describe('inspection (V3)', () => {
  const received: StatelyInspectionEvent[] = []
  const inspector = createInspector({ send: (event) => void received.push(event) })
  const inspected: StatelyInspectionEvent[] = []
  const waitingInspector = createInspector({ send: (event) => void inspected.push(event) })

  it.scoped("a @statelyai/inspect inspector receives every errand actor's snapshots and events, without secrets", () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const { contextId } = yield* supervisor.open({ id: 'task-1', kind: 'task' })
      visitAs(memory, contextId, 'a')
      yield* supervisor.taskChanged('task-1', 'interrupted')
      // The inspector hands events over on an idle callback, not synchronously.
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
      const actors = received.filter((e) => e.type === '@xstate.actor').map((e) => e.sessionId)
      expect(actors.length).toBeGreaterThan(0)
      const snapshots = received.filter((e) => e.type === '@xstate.snapshot') as Array<
        Extract<StatelyInspectionEvent, { type: '@xstate.snapshot' }>
      >
      expect(snapshots.map((e) => JSON.stringify((e.snapshot as unknown as { value: unknown }).value))).toEqual(
        expect.arrayContaining(['"seeding"', '"parking"', '"parked"']),
      )
      const events = received
        .filter((e) => e.type === '@xstate.event')
        .map((e) => (e as { event: { type: string } }).event.type)
      expect(events).toEqual(expect.arrayContaining(['page.loaded', 'task.changed']))
      // L7: what the inspector sees never holds a cookie or storage value, nor a URL.
      const all = JSON.stringify(received)
      expect(all).not.toContain('secret-a')
      expect(all).not.toContain('item-a')
      expect(all).not.toContain('https://shop.test')
    }).pipe(Effect.provide(testSupervisor({}, { inspect: inspector.inspect }))),
  )

  it.scoped(
    'the inspector shows an errand driven by a person and one waiting for the person: the regions in the snapshots, ' +
      'the asks in the context (P1, P3, P4)',
    () =>
      Effect.gen(function* () {
        const { supervisor } = yield* services
        yield* supervisor.open({ id: 'task-2', kind: 'task' })
        yield* supervisor.asked('task-2', { id: 'q7', ask: 'sign-in', site: 'shop.example' })
        yield* supervisor.takeWheel('task-2')
        type Shown = { value?: { active?: Record<string, string> }; context: { asks: unknown; wheel: string } }
        // The errand actor's snapshots while active (its effects are actors too, with snapshots of their own).
        const snapshots = () =>
          inspected.flatMap((e) =>
            e.type === '@xstate.snapshot' && (e.snapshot as unknown as Shown).value?.active !== undefined
              ? [e.snapshot as unknown as Shown]
              : [],
          )
        // The inspector hands events over on an idle callback: wait (bounded) for the person's snapshot.
        yield* Effect.promise(async () => {
          for (
            const end = Date.now() + 10_000;
            Date.now() < end && !snapshots().some((x) => x.value?.active?.wheel === 'person');
          )
            await new Promise((r) => setTimeout(r, 10))
        })
        const seen = [...inspected]
        const last = snapshots()[snapshots().length - 1]!
        expect(last.value?.active).toMatchObject({ asking: 'waiting', wheel: 'person' })
        expect(last.context).toMatchObject({ asks: [{ id: 'q7', ask: 'sign-in' }], wheel: 'person' })
        const events = seen
          .filter((e) => e.type === '@xstate.event')
          .map((e) => (e as { event: { type: string } }).event.type)
        expect(events).toEqual(expect.arrayContaining(['person.asked', 'wheel.taken']))
      }).pipe(Effect.provide(testSupervisor({}, { inspect: waitingInspector.inspect }))),
  )
})
