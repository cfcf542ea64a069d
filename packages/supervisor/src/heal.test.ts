import { it } from '@effect/vitest'
import { SealedStore } from '@errands/store'
import { Effect, Either, Option, TestClock } from 'effect'
import { describe, expect } from 'vitest'
import { words } from './health.ts'
import { services, testSupervisor, visitAs } from './testing.ts'

// Issue #9: healing is bounded and backs off, on the TestClock. The real-Chromium side is
// test/faults/browser-crash.test.ts.
const options = { maxHeals: 3, healBackoffMs: 1_000, healWindowMs: 60_000 }

describe('bounded healing (issue #9)', () => {
  it.scoped(
    'a browser that keeps crashing heals with a growing backoff, then is set aside and not reopened by itself; ' +
      'health says each step',
    () =>
      Effect.gen(function* () {
        const { supervisor, memory } = yield* services
        const texts = () => Effect.map(supervisor.health, (h) => h.map((m) => m.text))
        const detail = () => Effect.map(supervisor.view('a'), (v) => v.detail)
        const crashAfterSnapshot = Effect.gen(function* () {
          // Each heal is followed by a page load and a snapshot, as in a real browser: that must
          // not reset the streak (the bug this issue found in the machine).
          visitAs(memory, supervisor.contextOf('a')!, 'a')
          yield* TestClock.adjust(3_000)
          yield* supervisor.settle
          memory.crashBrowser()
        })
        yield* supervisor.open({ id: 'a', kind: 'task' })

        yield* crashAfterSnapshot
        expect(yield* detail()).toBe('healing.waiting') // the first heal of a streak is immediate
        yield* supervisor.use('a', () => Effect.void)
        expect(yield* texts()).toContain(words.healed)

        for (const backoff of [1_000, 2_000]) {
          yield* crashAfterSnapshot
          expect(yield* detail()).toBe('healing.cooling')
          const early = yield* Effect.either(supervisor.use('a', () => Effect.void))
          expect(Either.isLeft(early) && early.left._tag === 'ErrandUnavailable' && early.left.reason).toBe(
            'heal-failed',
          )
          yield* TestClock.adjust(backoff - 1)
          expect(yield* detail()).toBe('healing.cooling')
          yield* TestClock.adjust(1)
          expect(yield* detail()).toBe('healing.waiting')
          yield* supervisor.use('a', () => Effect.void)
          expect((yield* supervisor.view('a')).state).toBe('active')
        }
        expect(yield* texts()).toContain(words.crashedAgain)

        // The fourth crash of the streak: no fourth heal. Set aside from the last snapshot.
        yield* crashAfterSnapshot
        yield* supervisor.settle
        expect(yield* supervisor.view('a')).toMatchObject({ state: 'parked' })
        expect(yield* texts()).toContain(words.healGaveUp)
        const record = yield* (yield* SealedStore).get('a')
        expect(Option.map(record, (r) => r.snapshot.storage.cookies.map((c) => c.name))).toEqual(
          Option.some(['basket-a']),
        )

        // Watching it does not reopen it: only an explicit resume does.
        yield* supervisor.watch('a')
        yield* supervisor.settle
        yield* TestClock.adjust(10_000)
        yield* supervisor.settle
        expect((yield* supervisor.view('a')).state).toBe('parked')
        yield* supervisor.unwatch('a')

        // A resume within the streak gets no new heals: the next crash sets it aside at once.
        yield* supervisor.resume('a')
        memory.crashBrowser()
        yield* supervisor.settle
        expect((yield* supervisor.view('a')).state).toBe('parked')

        // Once it has been quiet for the window, a crash starts a new streak and heals again.
        yield* TestClock.adjust(60_001)
        yield* supervisor.resume('a')
        memory.crashBrowser()
        expect(yield* detail()).toBe('healing.waiting')
        yield* supervisor.use('a', () => Effect.void)
        expect((yield* supervisor.view('a')).state).toBe('active')
      }).pipe(Effect.provide(testSupervisor({ maxErrands: 2 }, options))),
  )
})

// Issue #15: a renderer crash used to heal from the last debounced snapshot, dropping what the
// errand did since. The runtime now reads what the crashed context held (its storage outlives a
// renderer) and the heal reopens that — amended by take-backs made after the crash (L5).
describe('a crashed context heals from its last words', () => {
  it.scoped('what came after the last snapshot comes back, and a take-back made after the crash still reaches it', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      yield* supervisor.open({ id: 'w', kind: 'task' })
      visitAs(memory, supervisor.contextOf('w')!, 'w')
      yield* TestClock.adjust(3_000)
      yield* supervisor.settle
      expect(supervisor.lastSnapshot('w')?.tabs.map((t) => t.url)).toEqual(['https://shop.test/w'])
      // After the snapshot, no debounce elapsing: a second page and a second site's sign-in.
      const contextId = supervisor.contextOf('w')!
      memory.visit(contextId, 'https://bank.test/later', {
        setCookies: [
          {
            name: 'sid',
            value: 'later',
            domain: 'bank.test',
            path: '/',
            expires: -1,
            httpOnly: false,
            secure: false,
            sameSite: 'Lax',
          },
        ],
        localStorage: { later: 'yes' },
      })
      memory.crashContext(contextId, true)
      // The person takes shop.test back after the crash, before the heal.
      yield* supervisor.amendSnapshots((_id, s) => ({
        ...s,
        storage: { ...s.storage, cookies: s.storage.cookies.filter((c) => c.domain !== 'shop.test') },
      }))
      expect((yield* supervisor.view('w')).detail).toBe('healing.waiting')
      yield* supervisor.use('w', () => Effect.void)
      const healed = yield* memory.snapshot(supervisor.contextOf('w')!)
      expect(healed.tabs.map((t) => t.url)).toEqual(['https://bank.test/later'])
      expect(healed.storage.cookies.map((c) => `${c.domain} ${c.name}=${c.value}`)).toEqual(['bank.test sid=later'])
      expect(healed.storage.origins.find((o) => o.origin === 'https://bank.test')?.localStorage).toEqual([
        { name: 'later', value: 'yes' },
      ])
    }).pipe(Effect.provide(testSupervisor({ maxErrands: 2 }, options))),
  )

  it.scoped('without last words (nothing could be read) the heal is from the last snapshot, as before', () =>
    Effect.gen(function* () {
      const { supervisor, memory } = yield* services
      yield* supervisor.open({ id: 'n', kind: 'task' })
      visitAs(memory, supervisor.contextOf('n')!, 'n')
      yield* TestClock.adjust(3_000)
      yield* supervisor.settle
      memory.visit(supervisor.contextOf('n')!, 'https://bank.test/lost')
      memory.crashContext(supervisor.contextOf('n')!)
      yield* supervisor.use('n', () => Effect.void)
      expect((yield* memory.snapshot(supervisor.contextOf('n')!)).tabs.map((t) => t.url)).toEqual([
        'https://shop.test/n',
      ])
    }).pipe(Effect.provide(testSupervisor({ maxErrands: 2 }, options))),
  )
})
