import { it } from '@effect/vitest'
import { createInspector, type StatelyInspectionEvent } from '@statelyai/inspect'
import { Effect } from 'effect'
import { describe, expect } from 'vitest'
import { services, testSupervisor, visitAs } from './testing.ts'

describe('inspection (V3)', () => {
  const received: StatelyInspectionEvent[] = []
  const inspector = createInspector({ send: (event) => void received.push(event) })

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
      const snapshots = received.filter((e) => e.type === '@xstate.snapshot') as Array<Extract<StatelyInspectionEvent, { type: '@xstate.snapshot' }>>
      expect(snapshots.map((e) => JSON.stringify((e.snapshot as unknown as { value: unknown }).value))).toEqual(
        expect.arrayContaining(['"seeding"', '"parking"', '"parked"']),
      )
      const events = received.filter((e) => e.type === '@xstate.event').map((e) => (e as { event: { type: string } }).event.type)
      expect(events).toEqual(expect.arrayContaining(['page.loaded', 'task.changed']))
      // L7: what the inspector sees never holds a cookie or storage value, nor a URL.
      const all = JSON.stringify(received)
      expect(all).not.toContain('secret-a')
      expect(all).not.toContain('item-a')
      expect(all).not.toContain('https://shop.test')
    }).pipe(Effect.provide(testSupervisor({}, { inspect: inspector.inspect }))),
  )
})
