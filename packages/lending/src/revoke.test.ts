import { it } from '@effect/vitest'
import { cookie, MAIN_CONTEXT } from '@errands/runtime'
import { SealedStore } from '@errands/store'
import { Deferred, Effect, Either, Layer, Logger, Option, TestClock } from 'effect'
import { describe, expect } from 'vitest'
import { MAIN_SECRETS, names, origins, signInMain } from './fixtures.ts'
import { lendingServices, testLending } from './testing.ts'

const task = (id: string) => ({ id, kind: 'task' as const })

const storageOf = (contextId: string) =>
  Effect.flatMap(lendingServices, ({ memory }) => Effect.orDie(memory.storageState(contextId)))

describe('revoking a site (L5)', () => {
  it.scoped('takes it back from an open errand and a parked one; the parked one resumes with everything else', () =>
    Effect.gen(function* () {
      const { lending, supervisor, memory, settings, store } = yield* lendingServices
      signInMain(memory)
      const mainBefore = yield* storageOf(MAIN_CONTEXT)
      const open = yield* supervisor.open(task('open'))
      const parked = yield* supervisor.open(task('parked'))
      for (const [id, ctx] of [
        ['open', open.contextId],
        ['parked', parked.contextId],
      ] as const) {
        memory.visit(ctx, `https://own.example/${id}`, { setCookies: [cookie('own', `own-${id}`, 'own.example')] })
      }
      yield* lending.allow('parked', 'bob.github.io')
      yield* supervisor.taskChanged('parked', 'interrupted')
      const tabsBefore = Option.getOrThrow(yield* Effect.orDie(store.get('parked'))).snapshot.tabs

      const report = yield* lending.revoke('www.shop.example')

      expect(report.sites).toEqual(['shop.example'])
      expect(report.errands).toEqual([
        {
          conversationId: 'open',
          where: 'open',
          cookies: ['pref@shop.example', 'sid@shop.example'],
          origins: ['shop.example'],
        },
        {
          conversationId: 'parked',
          where: 'parked',
          cookies: ['pref@shop.example', 'sid@shop.example'],
          origins: ['shop.example'],
        },
      ])
      expect((yield* settings.get).alwaysAllowed).toEqual(['other.example'])
      expect(names(yield* storageOf(open.contextId))).toEqual(['own@own.example', 'sid@other.example'])
      expect(origins(yield* storageOf(open.contextId))).toEqual(['https://other.example'])
      expect((yield* supervisor.view('open')).lentSites).toEqual(['other.example'])
      expect((yield* supervisor.view('parked')).lentSites).toEqual(['bob.github.io', 'other.example'])

      const record = Option.getOrThrow(yield* Effect.orDie(store.get('parked')))
      expect(names(record.snapshot.storage)).toEqual(['own@own.example', 'sid@bob.github.io', 'sid@other.example'])
      expect(record.lentSites).toEqual(['bob.github.io', 'other.example'])
      const back = yield* supervisor.resume('parked')
      expect(names(yield* storageOf(back.contextId))).toEqual([
        'own@own.example',
        'sid@bob.github.io',
        'sid@other.example',
      ])
      expect(yield* Effect.orDie(memory.snapshot(back.contextId))).toMatchObject({ tabs: tabsBefore })

      // New errands are no longer seeded with it; main keeps it (revoking lends less, it signs the person out of
      // nothing).
      yield* supervisor.taskChanged('open', 'done')
      const fresh = yield* supervisor.open(task('fresh'))
      expect(names(yield* storageOf(fresh.contextId))).toEqual(['sid@other.example'])
      expect(yield* storageOf(MAIN_CONTEXT)).toEqual(mainBefore)
    }).pipe(
      Effect.provide(
        testLending({ settings: { alwaysAllowed: ['shop.example', 'other.example'] }, supervisor: { maxErrands: 3 } }),
      ),
    ),
  )

  it.scoped('takes back a site that was only lent by Allow, from every errand', () =>
    Effect.gen(function* () {
      const { lending, supervisor, memory } = yield* lendingServices
      signInMain(memory)
      const a = yield* supervisor.open(task('a'))
      yield* lending.allow('a', 'alice.github.io')
      const report = yield* lending.revoke('alice.github.io')
      expect(report.errands.map((m) => m.conversationId)).toEqual(['a'])
      expect(yield* storageOf(a.contextId)).toEqual({ cookies: [], origins: [] })
      expect((yield* supervisor.view('a')).lentSites).toEqual([])
    }).pipe(Effect.provide(testLending())),
  )

  it.scoped('a crash after the revocation does not bring the site back from an older snapshot', () =>
    Effect.gen(function* () {
      const { lending, supervisor, memory } = yield* lendingServices
      signInMain(memory)
      const { contextId } = yield* supervisor.open(task('t'))
      memory.visit(contextId, 'https://own.example/', { setCookies: [cookie('own', 'own-t', 'own.example')] })
      yield* lending.allow('t', 'bob.github.io')
      yield* TestClock.adjust(3_000) // the snapshot (H1) now holds shop.example and bob.github.io
      yield* supervisor.settle
      expect(names(supervisor.lastSnapshot('t')!.storage)).toEqual([
        'own@own.example',
        'pref@a.shop.example',
        'sid@.shop.example',
        'sid@bob.github.io',
      ])
      yield* lending.revoke('shop.example')
      yield* lending.revoke('bob.github.io')
      yield* lending.allow('t', 'bob.github.io') // lent again after the revocation: lent again after the heal
      memory.crashContext(contextId)
      const healed = yield* supervisor.use('t', (b) => Effect.succeed(b))
      yield* lending.settle
      expect(names(yield* storageOf(healed.contextId))).toEqual(['own@own.example', 'sid@bob.github.io'])
      // The same holds when the crashed errand is set aside instead of healed.
      memory.crashContext(healed.contextId)
      yield* TestClock.adjust(10_000) // past the heal backoff: healing.waiting, parkable
      expect((yield* supervisor.view('t')).detail).toBe('healing.waiting')
      yield* supervisor.taskChanged('t', 'interrupted') // parked from the stale snapshot
      expect((yield* supervisor.view('t')).state).toBe('parked')
      yield* lending.settle
      const back = yield* supervisor.resume('t')
      expect(names(yield* storageOf(back.contextId))).toEqual(['own@own.example', 'sid@bob.github.io'])
    }).pipe(Effect.provide(testLending({ settings: { alwaysAllowed: ['shop.example'] } }))),
  )

  it.scoped(
    'found by the model soak (seed 9001, issue #9): a heal from a snapshot older than a revocation hands the errand ' +
      'back already clean, and keeps what it writes at once',
    () =>
      Effect.gen(function* () {
        // Before the fix the heal opened the context from the stale snapshot and handed it to the
        // caller at once; lending cleaned the revoked site in the background, racing the caller:
        // the caller could still see (and send) the revoked sign-in, and whatever it wrote for
        // that site right after the heal was wiped when the clean-up caught up.
        const { lending, supervisor, memory } = yield* lendingServices
        signInMain(memory)
        const { contextId } = yield* supervisor.open(task('t'))
        memory.visit(contextId, 'https://own.example/', { setCookies: [cookie('own', 'own-t', 'own.example')] })
        yield* TestClock.adjust(3_000) // the snapshot (H1) holds shop.example's sign-in
        yield* supervisor.settle
        yield* lending.revoke('shop.example')
        // On Chromium a read of an errand's context is a round trip, during which the caller
        // already drives the healed errand; here the next such read waits until the test has
        // driven it (the test's own reads use the original).
        const read = memory.storageState
        const gate = yield* Deferred.make<void>()
        let slow = true
        Object.assign(memory, {
          storageState: (id: string) =>
            Effect.suspend(() => {
              const wait = slow && id !== MAIN_CONTEXT
              slow &&= !wait
              return wait ? Effect.zipRight(Deferred.await(gate), read(id)) : read(id)
            }),
        })
        yield* Effect.gen(function* () {
          memory.crashContext(contextId)
          const seen = yield* supervisor.use('t', (b) =>
            Effect.gen(function* () {
              const first = yield* Effect.orDie(read(b.contextId))
              // The errand's own visit after the revocation: a cookie and localStorage of its own.
              memory.visit(b.contextId, 'https://www.shop.example/after', {
                setCookies: [cookie('mine', 'after', 'shop.example')],
                localStorage: { k: 'after' },
              })
              return { first, contextId: b.contextId }
            }),
          )
          yield* Deferred.succeed(gate, undefined)
          yield* lending.settle
          const after = yield* Effect.orDie(read(seen.contextId))
          expect({ first: names(seen.first), firstOrigins: origins(seen.first) }).toEqual({
            first: ['own@own.example'],
            firstOrigins: [],
          })
          expect({ after: names(after), afterOrigins: origins(after) }).toEqual({
            after: ['mine@shop.example', 'own@own.example'],
            afterOrigins: ['https://www.shop.example'],
          })
        }).pipe(Effect.ensuring(Deferred.succeed(gate, undefined)))
      }).pipe(Effect.provide(testLending({ settings: { alwaysAllowed: ['shop.example'] } }))),
  )

  it.scoped(
    'issue #9 (found by the model suite): a crashed errand parked at shutdown does not seal a site revoked after its ' +
      'last snapshot',
    () =>
      Effect.gen(function* () {
        // One store outlives both engines, as the disk does across a restart.
        const store = Layer.succeedContext(yield* Layer.build(SealedStore.layerMemory))
        const engine = testLending({ settings: { alwaysAllowed: ['shop.example'] }, store })
        yield* Effect.gen(function* () {
          const { lending, supervisor, memory } = yield* lendingServices
          signInMain(memory)
          const { contextId } = yield* supervisor.open(task('t'))
          memory.visit(contextId, 'https://own.example/', { setCookies: [cookie('own', 'own-t', 'own.example')] })
          yield* TestClock.adjust(3_000) // the snapshot (H1) holds shop.example
          yield* supervisor.settle
          memory.crashContext(contextId)
          expect((yield* supervisor.view('t')).detail).toBe('healing.waiting')
          yield* lending.revoke('shop.example')
        }).pipe(Effect.provide(engine), Effect.scoped) // shutdown parks the crashed errand from its last snapshot
        yield* Effect.gen(function* () {
          const { supervisor, memory, store: sealed } = yield* lendingServices
          expect(names(Option.getOrThrow(yield* Effect.orDie(sealed.get('t'))).snapshot.storage)).toEqual([
            'own@own.example',
          ])
          const back = yield* supervisor.resume('t')
          expect(names(yield* Effect.orDie(memory.storageState(back.contextId)))).toEqual(['own@own.example'])
        }).pipe(Effect.provide(engine), Effect.scoped)
      }),
  )

  it.scoped('refuses a non-site, and changes nothing', () =>
    Effect.gen(function* () {
      const { lending, settings } = yield* lendingServices
      const r = yield* Effect.either(lending.revoke('http://shop.example/x'))
      expect(Either.isLeft(r) && r.left._tag).toBe('SettingsError')
      expect((yield* settings.get).alwaysAllowed).toEqual(['shop.example'])
    }).pipe(Effect.provide(testLending({ settings: { alwaysAllowed: ['shop.example'] } }))),
  )
})

describe('sign out of every site (L5)', () => {
  it.scoped('wipes every errand, open and parked; main and the settings stay', () =>
    Effect.gen(function* () {
      const { lending, supervisor, memory, settings } = yield* lendingServices
      signInMain(memory)
      const mainBefore = yield* storageOf(MAIN_CONTEXT)
      const a = yield* supervisor.open(task('a'))
      const b = yield* supervisor.open(task('b'))
      memory.visit(a.contextId, 'https://own.example/', {
        setCookies: [cookie('own', 'own-a', 'own.example')],
        localStorage: { k: 'v' },
      })
      memory.visit(b.contextId, 'https://own.example/b', { setCookies: [cookie('own', 'own-b', 'own.example')] })
      yield* supervisor.taskChanged('b', 'interrupted')

      const report = yield* lending.signOutEverywhere

      expect(report.sites).toBe('all')
      expect(report.errands.map((m) => `${m.conversationId}/${m.where}`)).toEqual(['a/open', 'b/parked'])
      expect(yield* storageOf(a.contextId)).toEqual({ cookies: [], origins: [] })
      expect((yield* supervisor.view('a')).lentSites).toEqual([])
      const back = yield* supervisor.resume('b')
      expect(yield* storageOf(back.contextId)).toEqual({ cookies: [], origins: [] })
      expect((yield* Effect.orDie(memory.tabs(back.contextId))).map((t) => t.url)).toEqual(['https://own.example/b'])
      expect((yield* supervisor.view('b')).lentSites).toEqual([])
      expect(yield* storageOf(MAIN_CONTEXT)).toEqual(mainBefore)
      expect((yield* settings.get).alwaysAllowed).toEqual(['shop.example'])
    }).pipe(Effect.provide(testLending({ settings: { alwaysAllowed: ['shop.example'] } }))),
  )
})

describe('secrets (L7)', () => {
  it.scoped('log lines, reports, errors and health name cookies and sites, never values', () => {
    const lines: string[] = []
    const collect = Logger.add(
      Logger.make(({ message, annotations }) => {
        lines.push(`${JSON.stringify(message)} ${JSON.stringify([...annotations])}`)
      }),
    )
    return Effect.gen(function* () {
      const { lending, supervisor, memory } = yield* lendingServices
      signInMain(memory)
      const out: unknown[] = []
      const a = yield* supervisor.open(task('a'))
      memory.visit(a.contextId, 'https://own.example/', { setCookies: [cookie('own', 'own-a-secret', 'own.example')] })
      out.push(yield* lending.ask('a', 'other.example'))
      out.push(yield* lending.allow('a', 'other.example'))
      yield* supervisor.open(task('b'))
      yield* supervisor.taskChanged('b', 'interrupted')
      out.push(yield* lending.allow('b', 'alice.github.io'))
      out.push(yield* Effect.flip(lending.allow('nobody', 'shop.example')))
      out.push(yield* lending.revoke('shop.example'))
      out.push(yield* lending.signOutEverywhere)
      out.push(yield* supervisor.health)
      out.push(yield* supervisor.list)
      expect(lines.some((l) => l.includes('lent sign-in for other.example'))).toBe(true)
      expect(lines.some((l) => l.includes('seeded errand a') && l.includes('sid@shop.example'))).toBe(true)
      const all = JSON.stringify(out) + lines.join('\n')
      for (const secret of [...MAIN_SECRETS, 'own-a-secret']) expect(all).not.toContain(secret)
    }).pipe(Effect.provide(testLending({ settings: { alwaysAllowed: ['shop.example'] } })), Effect.provide(collect))
  })
})
