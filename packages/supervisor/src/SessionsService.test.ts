import { it } from '@effect/vitest'
import { Cause, Effect, Layer, Redacted } from 'effect'
import { describe, expect } from 'vitest'
import { ACCESS, SESSION_VERBS, type SessionCall, Sessions, withSeam } from '@errands/sessions'
import { makeSessions, sessionsLayer } from './SessionsService.ts'
import { Supervisor } from './Supervisor.ts'
import { services, testSupervisor } from './testing.ts'

const withSessions = () => sessionsLayer.pipe(Layer.provideMerge(testSupervisor()))

describe('Sessions: the one session boundary over the supervisor (ADR 0044)', () => {
  it.scoped('resolve opens an unknown conversation and drives it; a known one is driven again, not opened twice', () =>
    Effect.gen(function* () {
      const sessions = yield* Sessions
      const { supervisor } = yield* services
      const first = yield* sessions.resolve({ id: 'session:a', kind: 'task' })
      expect((yield* sessions.view('session:a')).driven).toBe(true)
      yield* sessions.undrive('session:a')
      yield* sessions.park('session:a')
      // Parked: resolving resumes it in a new context, it does not open a second errand.
      const again = yield* sessions.resolve({ id: 'session:a', kind: 'task' })
      expect(again.contextId).not.toBe(first.contextId)
      expect((yield* supervisor.list).map((v) => v.conversationId)).toEqual(['session:a'])
      yield* sessions.undrive('session:a')
      expect((yield* sessions.view('session:a')).driven).toBe(false)
    }).pipe(Effect.provide(withSessions())),
  )

  it.scoped('resolve with an upstream proxy opens with it (issue #21)', () =>
    Effect.gen(function* () {
      const sessions = yield* Sessions
      const { memory } = yield* services
      const proxy = 'http://127.0.0.1:3128'
      const binding = yield* sessions.resolve({ id: 'session:p', kind: 'task', upstreamProxy: Redacted.make(proxy) })
      expect(Redacted.value(memory.upstreamProxies.get(binding.contextId)!)).toBe(proxy)
      yield* sessions.undrive('session:p')
    }).pipe(Effect.provide(withSessions())),
  )

  it.effect('layerTest fails loudly for a verb it was not given', () =>
    Effect.gen(function* () {
      const sessions = yield* Sessions
      const exit = yield* Effect.exit(sessions.park('x'))
      expect(exit._tag).toBe('Failure')
      if (exit._tag === 'Failure') expect(Cause.pretty(exit.cause)).toContain('"park" was not provided')
    }).pipe(Effect.provide(Sessions.layerTest({}))),
  )

  it.effect('the boundary holds every verb of the table and nothing else of the supervisor', () =>
    Effect.gen(function* () {
      const supervisor = yield* Supervisor
      const sessions = makeSessions(supervisor)
      expect(Object.keys(sessions).sort()).toEqual([...SESSION_VERBS].sort())
      expect(Object.keys(ACCESS)).toEqual(SESSION_VERBS)
      // What only the engine's own parts call is not on what a face holds.
      for (const inner of ['settle', 'sweep', 'shutdown', 'amendSnapshots', 'setLentSites', 'pageLoaded'])
        expect(inner in sessions).toBe(false)
    }).pipe(Effect.provide(testSupervisor())),
  )

  it.scoped('the seam sees every effectful verb once, with its mark and conversation, and changes no answer', () =>
    Effect.gen(function* () {
      const seen: Array<SessionCall & { readonly outcome: 'success' | 'failure' }> = []
      const sessions = withSeam(makeSessions(yield* Supervisor), (call, effect) =>
        Effect.onExit(effect, (exit) =>
          Effect.sync(() => seen.push({ ...call, outcome: exit._tag === 'Success' ? 'success' : 'failure' })),
        ),
      )
      const binding = yield* sessions.resolve({ id: 'session:s', kind: 'task' })
      const used = yield* sessions.use('session:s', (b) => Effect.succeed(b.contextId))
      yield* sessions.undrive('session:s')
      const view = yield* sessions.view('session:s')
      const unknown = yield* Effect.flip(sessions.park('session:nobody'))
      const capacity = yield* sessions.capacity
      // Synchronous reads and listeners pass through untouched.
      expect(sessions.contextOf('session:s')).toBe(binding.contextId)
      expect(sessions.personDriving('session:s')).toBe(false)
      expect(used).toBe(binding.contextId)
      expect(view.conversationId).toBe('session:s')
      expect(unknown._tag).toBe('UnknownConversation')
      expect(capacity.open).toBe(1)
      expect(seen).toEqual([
        { verb: 'resolve', access: 'acts', conversationId: 'session:s', outcome: 'success' },
        { verb: 'use', access: 'acts', conversationId: 'session:s', outcome: 'success' },
        { verb: 'undrive', access: 'acts', conversationId: 'session:s', outcome: 'success' },
        { verb: 'view', access: 'reads', conversationId: 'session:s', outcome: 'success' },
        { verb: 'park', access: 'acts', conversationId: 'session:nobody', outcome: 'failure' },
        { verb: 'capacity', access: 'reads', conversationId: undefined, outcome: 'success' },
      ])
    }).pipe(Effect.provide(testSupervisor())),
  )
})
