import { it } from '@effect/vitest'
import { Cause, Effect, Layer, Redacted } from 'effect'
import { describe, expect } from 'vitest'
import { Sessions } from './SessionsService.ts'
import { services, testSupervisor } from './testing.ts'

const withSessions = () => Sessions.layer.pipe(Layer.provideMerge(testSupervisor()))

describe('Sessions: the one session service over the supervisor (issue #24)', () => {
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
})
