import type { TaskStatus } from '@errands/machines'
import { MAIN_CONTEXT, type Snapshot } from '@errands/runtime'
import { SealedStore } from '@errands/store'
import { Effect, TestClock, TestContext } from 'effect'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { services, testSupervisor, visitAs } from './testing.ts'

// T3 on the deterministic runtime: random sequences of inputs across many conversations, and
// after every step the isolation invariants are checked against what the runtime holds.
const CAP = 3
const ids = ['t0', 't1', 't2', 't3', 't4', 't5']
const id = fc.constantFrom(...ids)

type Command =
  | {
      kind:
        | 'open'
        | 'use'
        | 'park'
        | 'resume'
        | 'release'
        | 'hold'
        | 'letGo'
        | 'watch'
        | 'unwatch'
        | 'crashContext'
        | 'ask'
        | 'answer'
      id: string
    }
  | { kind: 'status'; id: string; status: TaskStatus }
  | { kind: 'crashBrowser' }
  | { kind: 'advance'; ms: number }

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: id.map((i) => ({ kind: 'open' as const, id: i })) },
  { weight: 5, arbitrary: id.map((i) => ({ kind: 'use' as const, id: i })) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('status' as const),
      id,
      status: fc.constantFrom<TaskStatus>('running', 'done', 'interrupted', 'failed', 'stopped'),
    }),
  },
  ...(['park', 'resume', 'release', 'hold', 'letGo', 'watch', 'unwatch', 'crashContext', 'ask', 'answer'] as const).map(
    (kind) => ({ weight: 1, arbitrary: id.map((i) => ({ kind, id: i })) }),
  ),
  { weight: 1, arbitrary: fc.constant({ kind: 'crashBrowser' as const }) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 90_000 }).map((ms) => ({ kind: 'advance' as const, ms })) },
)

const ownerOf = (name: string) => name.replace(/^basket-/, '').replace(/-\d+$/, '')

const run = (commands: ReadonlyArray<Command>) =>
  Effect.gen(function* () {
    const { supervisor, memory } = yield* services
    const store = yield* SealedStore
    const parkedAs = new Map<string, Omit<Snapshot, 'takenAt'>>()
    let visits = 0
    // Asks of the person still open, per conversation (P3, P4): what its errand should show as waiting.
    const asking = new Map<string, string[]>()
    let asks = 0

    const check = Effect.gen(function* () {
      yield* supervisor.settle
      const open = memory.openContexts().filter((c) => c !== MAIN_CONTEXT)
      // The cap is never exceeded (C1).
      expect(open.length).toBeLessThanOrEqual(CAP)
      const views = yield* supervisor.list
      for (const contextId of open) {
        const owners = views.filter((v) => v.contextId === contextId && v.state !== 'closed')
        // Every open context belongs to exactly one errand…
        expect(owners).toHaveLength(1)
        const owner = owners[0]!.conversationId
        const state = yield* Effect.orDie(memory.snapshot(contextId))
        // …and holds only that errand's cookies, storage and tabs.
        for (const c of state.storage.cookies) expect(ownerOf(c.name)).toBe(owner)
        for (const o of state.storage.origins) for (const item of o.localStorage) expect(ownerOf(item.name)).toBe(owner)
        for (const t of state.tabs) if (t.url !== 'about:blank') expect(new URL(t.url).pathname).toBe(`/${owner}`)
      }
      // The main context never receives anything an errand did (L4).
      expect((yield* Effect.orDie(memory.storageState(MAIN_CONTEXT))).cookies).toEqual([])
      // Closed errands leave nothing behind: no context, no sealed record.
      const records = new Set((yield* store.list()).map((e) => e.errandId))
      for (const v of views) {
        if (v.state === 'closed') {
          expect(records.has(v.conversationId)).toBe(false)
          expect(v.contextId).toBeNull()
        }
        if (v.state === 'parked') expect(records.has(v.conversationId)).toBe(true)
        // An errand waits for the person exactly while an ask of it is open, whatever its state
        // (parked and healing too); a closed one has forgotten its asks.
        if (v.state === 'closed') asking.delete(v.conversationId)
        expect(v.waiting?.length ?? 0).toBe(asking.get(v.conversationId)?.length ?? 0)
      }
    })

    const rememberIfParked = (i: string, before: Omit<Snapshot, 'takenAt'> | undefined) =>
      Effect.gen(function* () {
        const v = yield* supervisor.view(i)
        if (v.state === 'parked' && before !== undefined) parkedAs.set(i, before)
      })

    const snapshotOf = (i: string) => {
      const contextId = supervisor.contextOf(i)
      return contextId === undefined ? Effect.succeed(undefined) : Effect.orDie(memory.snapshot(contextId))
    }

    const attempt = <A, E>(e: Effect.Effect<A, E>) =>
      Effect.catchAll(Effect.asVoid(e), (error) => {
        // The only refusal a well-formed sequence may meet is "all slots busy" (C3), or a
        // conversation that was never opened.
        const e = error as { _tag: string; reason?: string }
        expect(['AllBusy', 'UnknownConversation', 'InvalidRequest', 'ErrandUnavailable:heal-failed']).toContain(
          e._tag === 'ErrandUnavailable' ? `${e._tag}:${e.reason}` : e._tag,
        )
        return Effect.void
      })

    for (const c of commands) {
      switch (c.kind) {
        case 'open':
          yield* attempt(supervisor.open({ id: c.id, kind: 'task' }))
          break
        case 'use':
          yield* attempt(
            supervisor.use(c.id, (b) =>
              Effect.gen(function* () {
                const before = parkedAs.get(c.id)
                if (before !== undefined) {
                  // Park → resume is lossless: the first use after a park sees exactly what was parked.
                  expect(yield* Effect.orDie(memory.snapshot(b.contextId))).toEqual(before)
                  parkedAs.delete(c.id)
                }
                visits++
                memory.visit(b.contextId, `https://shop.test/${c.id}`, {
                  setCookies: [{ ...visitCookie(c.id, visits) }],
                  localStorage: { [`basket-${c.id}-${visits}`]: `item-${visits}` },
                })
              }),
            ),
          )
          break
        case 'status': {
          const before = yield* snapshotOf(c.id)
          yield* attempt(supervisor.taskChanged(c.id, c.status))
          if (['done', 'stopped'].includes(c.status)) parkedAs.delete(c.id)
          yield* attempt(rememberIfParked(c.id, before))
          break
        }
        case 'park': {
          const before = yield* snapshotOf(c.id)
          yield* attempt(supervisor.park(c.id))
          yield* attempt(rememberIfParked(c.id, before))
          break
        }
        case 'resume':
          yield* attempt(supervisor.resume(c.id))
          break
        case 'release':
          yield* supervisor.release(c.id)
          parkedAs.delete(c.id)
          asking.delete(c.id)
          break
        case 'ask': {
          const askId = `q${++asks}`
          if (yield* Effect.isSuccess(supervisor.asked(c.id, { id: askId, ask: 'sign-in', site: 'shop.test' })))
            asking.set(c.id, [...(asking.get(c.id) ?? []), askId])
          break
        }
        case 'answer': {
          const [oldest, ...rest] = asking.get(c.id) ?? []
          if (oldest === undefined) break
          yield* supervisor.answered(c.id, oldest, 'deny')
          asking.set(c.id, rest)
          break
        }
        case 'hold':
          yield* attempt(supervisor.drive(c.id))
          break
        case 'letGo':
          yield* supervisor.undrive(c.id)
          break
        case 'watch':
          yield* attempt(supervisor.watch(c.id))
          break
        case 'unwatch':
          yield* supervisor.unwatch(c.id)
          break
        case 'crashContext': {
          const contextId = supervisor.contextOf(c.id)
          if (contextId !== undefined) memory.crashContext(contextId)
          parkedAs.delete(c.id) // a crash loses what came after the last snapshot, by design
          break
        }
        case 'crashBrowser':
          memory.crashBrowser()
          parkedAs.clear()
          break
        case 'advance': {
          // Idle parking happens here: remember what each idle errand holds before the sweep.
          const before = new Map<string, Omit<Snapshot, 'takenAt'> | undefined>()
          for (const i of ids) before.set(i, yield* snapshotOf(i))
          const waitingActive = (yield* supervisor.list)
            .filter((v) => v.state === 'active' && v.waiting !== undefined)
            .map((v) => v.conversationId)
          yield* TestClock.adjust(c.ms)
          yield* supervisor.settle
          // Idleness never parks an errand whose agent waits for the person (C2, P3, P4).
          for (const i of waitingActive) expect((yield* supervisor.view(i)).state).not.toBe('parked')
          for (const i of ids) if (!parkedAs.has(i)) yield* attempt(rememberIfParked(i, before.get(i)))
          break
        }
      }
      yield* check
    }
  })

const visitCookie = (owner: string, n: number) => ({
  name: `basket-${owner}-${n}`,
  value: `secret-${n}`,
  domain: 'shop.test',
  path: '/',
  expires: -1,
  httpOnly: false,
  secure: false,
  sameSite: 'Lax' as const,
})

describe('supervisor properties (T3, deterministic runtime)', () => {
  it('keeps errands apart, under the cap, lossless across park/resume, and clean after close', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 10, maxLength: 50 }), (commands) =>
        Effect.runPromise(
          run(commands).pipe(
            Effect.scoped,
            Effect.provide(
              testSupervisor({ maxErrands: CAP, idleMs: 60_000, sweepEveryMs: 15_000 }, { healBackoffMs: 500 }),
            ),
            Effect.provide(TestContext.TestContext),
          ),
        ),
      ),
      {
        numRuns: 150,
        ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH } : {}),
      },
    )
  }, 120_000)

  it('visitAs marks a context with its owner (the helper the property relies on)', () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const { supervisor, memory } = yield* services
        const b = yield* supervisor.open({ id: 't0', kind: 'task' })
        visitAs(memory, b.contextId, 't0')
        const state = yield* Effect.orDie(memory.storageState(b.contextId))
        expect(state.cookies.map((c) => ownerOf(c.name))).toEqual(['t0'])
      }).pipe(Effect.scoped, Effect.provide(testSupervisor()), Effect.provide(TestContext.TestContext)),
    ))
})
