import { it } from '@effect/vitest'
import { SealedStore } from '@errands/store'
import { Effect, Either, Option, Redacted } from 'effect'
import { describe, expect } from 'vitest'
import { services, testSupervisor } from './testing.ts'
import type { JournalEntry } from './types.ts'

const SECRET = 'http://alice:s3cret-pass@127.0.0.1:3128'
const text = (proxy: Redacted.Redacted<string> | undefined) => (proxy === undefined ? undefined : Redacted.value(proxy))

describe("an errand's upstream proxy (issue #21, L7)", () => {
  const journal: Array<JournalEntry> = []
  it.scoped('opens with it, seals it when parked, resumes with it, and never journals it', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const store = yield* SealedStore
      const opened = yield* supervisor.open({ id: 't1', kind: 'task', upstreamProxy: Redacted.make(SECRET) })
      expect(text(memory.upstreamProxies.get(opened.contextId))).toBe(SECRET)
      // A later open names nothing new: the first one's proxy stays.
      yield* supervisor.open({ id: 't1', kind: 'task', upstreamProxy: Redacted.make('http://other:1') })
      expect(text(memory.upstreamProxies.get(opened.contextId))).toBe(SECRET)
      yield* supervisor.park('t1')
      const record = yield* store.get('t1')
      expect(Option.getOrThrow(record).upstreamProxy).toBe(SECRET)
      const resumed = yield* supervisor.resume('t1')
      expect(resumed.contextId).not.toBe(opened.contextId)
      expect(text(memory.upstreamProxies.get(resumed.contextId))).toBe(SECRET)
      expect(JSON.stringify(journal)).not.toContain('s3cret')
      expect(JSON.stringify(yield* supervisor.list)).not.toContain('s3cret')
    }).pipe(Effect.provide(testSupervisor({}, { journal: (e) => journal.push(e) }))),
  )

  it.scoped('re-chains an open errand, clears it with undefined, and refuses what is no http(s) proxy address', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      const { contextId } = yield* supervisor.open({ id: 't2', kind: 'task' })
      expect(memory.upstreamProxies.get(contextId)).toBeUndefined()
      yield* supervisor.setUpstreamProxy('t2', Redacted.make(SECRET))
      expect(text(memory.upstreamProxies.get(contextId))).toBe(SECRET)
      yield* supervisor.setUpstreamProxy('t2', undefined)
      expect(memory.upstreamProxies.get(contextId)).toBeUndefined()
      for (const bad of [
        'socks5://127.0.0.1:1080',
        'not a url',
        'http://user:pw@proxy.example:3128/path?q=1',
        'file:///etc/passwd',
      ]) {
        const refused = yield* Effect.either(supervisor.setUpstreamProxy('t2', Redacted.make(bad)))
        expect(Either.isLeft(refused) && refused.left, bad).toMatchObject({
          _tag: 'InvalidRequest',
          reason: 'invalid-upstream-proxy',
          status: 400,
        })
        expect(Either.isLeft(refused) && refused.left.message).not.toContain('pw')
      }
      const atOpen = yield* Effect.either(
        supervisor.open({ id: 't3', kind: 'task', upstreamProxy: Redacted.make('ftp://x') }),
      )
      expect(Either.isLeft(atOpen) && atOpen.left._tag).toBe('InvalidRequest')
    }).pipe(Effect.provide(testSupervisor())),
  )
})
