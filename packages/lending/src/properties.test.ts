import { cookie, MAIN_CONTEXT, type StorageState } from '@errands/runtime'
import { Effect, Logger, Option, TestClock, TestContext } from 'effect'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { signInMain } from './fixtures.ts'
import { cookieSite } from './sites.ts'
import { lendingServices, testLending } from './testing.ts'

// T3 for lending on the deterministic runtime: random sequences of lifecycle steps (open, park,
// resume, crash, snapshots) interleaved with Allow, revoke, always-allow and sign-out. After every
// step, every errand — open or parked — holds the person's sign-ins only for sites a model says
// it may hold (seeded, or allowed since it was last revoked), and the main context never changes.
const ids = ['t0', 't1', 't2', 't3']
const sites = ['shop.example', 'other.example', 'alice.github.io', 'bob.github.io', 'github.io'] as const
const id = fc.constantFrom(...ids)
const site = fc.constantFrom(...sites)

type Command =
  | { kind: 'open' | 'use' | 'park' | 'resume' | 'done' | 'crash' | 'visit'; id: string }
  | { kind: 'allow'; id: string; site: string }
  | { kind: 'revoke' | 'allowAlways'; site: string }
  | { kind: 'signOut' | 'crashBrowser' }
  | { kind: 'advance'; ms: number }

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: id.map((i) => ({ kind: 'open' as const, id: i })) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('allow' as const), id, site }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('revoke' as const), site }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('allowAlways' as const), site }) },
  { weight: 3, arbitrary: id.map((i) => ({ kind: 'visit' as const, id: i })) },
  ...(['use', 'park', 'resume', 'done', 'crash'] as const).map((kind) => ({
    weight: 2,
    arbitrary: id.map((i) => ({ kind, id: i })),
  })),
  { weight: 1, arbitrary: fc.constant({ kind: 'signOut' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'crashBrowser' as const }) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 20_000 }).map((ms) => ({ kind: 'advance' as const, ms })) },
)

const run = (commands: ReadonlyArray<Command>) =>
  Effect.gen(function* () {
    const { lending, supervisor, memory, settings, store } = yield* lendingServices
    signInMain(memory)
    const main = yield* Effect.orDie(memory.storageState(MAIN_CONTEXT))
    const mainValues = new Set(main.cookies.map((c) => c.value))
    const mayHold = new Map<string, Set<string>>()
    const always = new Set<string>(['shop.example'])

    /** Sites of the person's cookies (main's values) a state holds. */
    const lentIn = (state: StorageState) =>
      new Set(state.cookies.filter((c) => mainValues.has(c.value)).map(cookieSite))
    const stateOf = (i: string) =>
      Effect.map(Effect.either(supervisor.view(i)), (v) => (v._tag === 'Right' ? v.right.state : 'unknown'))
    const isGone = (state: string) => state === 'unknown' || state === 'closed'
    const attempt = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.either(e)

    const check = Effect.gen(function* () {
      yield* supervisor.settle
      yield* lending.settle
      yield* supervisor.settle
      for (const i of ids) {
        const state = yield* stateOf(i)
        if (isGone(state)) continue
        const allowed = mayHold.get(i) ?? new Set()
        const contextId = supervisor.contextOf(i)
        if (contextId !== undefined) {
          for (const s of lentIn(yield* Effect.orDie(memory.storageState(contextId))))
            expect({ i, s, open: allowed.has(s) }).toEqual({ i, s, open: true })
        }
        const record = yield* Effect.orDie(store.get(i))
        if (Option.isSome(record)) {
          for (const s of lentIn(record.value.snapshot.storage))
            expect({ i, s, parked: allowed.has(s) }).toEqual({ i, s, parked: true })
        }
      }
      // Never back (L4): the person's main context is exactly as it was.
      expect(yield* Effect.orDie(memory.storageState(MAIN_CONTEXT))).toEqual(main)
    })

    for (const c of commands) {
      const before = 'id' in c ? yield* stateOf(c.id) : 'n/a'
      switch (c.kind) {
        case 'open':
          yield* attempt(supervisor.open({ id: c.id, kind: 'task' }))
          break
        case 'use':
          yield* attempt(supervisor.use(c.id, () => Effect.void))
          break
        case 'resume':
          yield* attempt(supervisor.resume(c.id))
          break
        case 'park':
          yield* attempt(supervisor.taskChanged(c.id, 'interrupted'))
          break
        case 'done':
          yield* attempt(supervisor.taskChanged(c.id, 'done'))
          break
        case 'crash': {
          const ctx = supervisor.contextOf(c.id)
          if (ctx !== undefined) memory.crashContext(ctx)
          break
        }
        case 'crashBrowser':
          memory.crashBrowser()
          break
        case 'visit': {
          const ctx = supervisor.contextOf(c.id)
          if (ctx !== undefined)
            memory.visit(ctx, `https://own.example/${c.id}`, {
              setCookies: [cookie('own', `own-${c.id}`, 'own.example')],
            })
          break
        }
        case 'allow': {
          const r = yield* attempt(lending.allow(c.id, c.site))
          if (r._tag === 'Right') {
            mayHold.get(c.id)?.add(c.site)
            if (r.right.where === 'open') {
              // Exactly the site's cookies arrived (L2).
              const held = yield* Effect.orDie(memory.storageState(supervisor.contextOf(c.id)!))
              for (const m of main.cookies.filter((x) => cookieSite(x) === c.site))
                expect(held.cookies.some((h) => h.value === m.value)).toBe(true)
            }
          }
          break
        }
        case 'revoke':
          yield* Effect.orDie(lending.revoke(c.site))
          always.delete(c.site)
          for (const held of mayHold.values()) held.delete(c.site)
          break
        case 'allowAlways':
          yield* Effect.orDie(settings.allowAlways(c.site))
          always.add(c.site)
          break
        case 'signOut':
          yield* Effect.orDie(lending.signOutEverywhere)
          for (const held of mayHold.values()) held.clear()
          break
        case 'advance':
          yield* TestClock.adjust(c.ms)
          break
      }
      // A conversation whose errand was gone and now exists again was seeded with today's list.
      if ('id' in c && isGone(before) && !isGone(yield* stateOf(c.id))) mayHold.set(c.id, new Set(always))
      if ('id' in c && c.kind === 'done') mayHold.delete(c.id)
      yield* check
    }
    // In the end every errand comes back (heal, resume) and still holds nothing it may not.
    for (const i of ids) {
      const before = yield* stateOf(i)
      yield* attempt(supervisor.use(i, () => Effect.void))
      if (isGone(before) && !isGone(yield* stateOf(i))) mayHold.set(i, new Set(always))
    }
    yield* check
  })

describe('lending properties (T3, deterministic runtime)', () => {
  it('no errand ever holds a sign-in it was not lent, or keeps one that was revoked; main never changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 10, maxLength: 40 }), (commands) =>
        Effect.runPromise(
          run(commands).pipe(
            Effect.scoped,
            Effect.provide(
              testLending({
                settings: { alwaysAllowed: ['shop.example'] },
                supervisor: { maxErrands: 2, idleMs: 60_000, sweepEveryMs: 15_000 },
                options: { healBackoffMs: 500 },
              }),
            ),
            Effect.provide(Logger.remove(Logger.defaultLogger)),
            Effect.provide(TestContext.TestContext),
          ),
        ),
      ),
      {
        numRuns: Number(process.env.FC_RUNS ?? 100),
        ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH } : {}),
      },
    )
  }, 120_000)
})
