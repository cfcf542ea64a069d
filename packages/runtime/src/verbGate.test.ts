import { Deferred, Effect, Exit, Fiber, Option } from 'effect'
import { describe, expect, it } from 'vitest'
import { MemoryRuntime } from './memory.ts'
import { VerbGate } from './verbGate.ts'

// A freeze never lands on a page verb in flight (C4, docs/parking.md): it waits until the
// context's verbs have answered, and a verb reaching a frozen context thaws it first.

/** A gate whose freeze and thaw write what happened, in order, into `log`. */
const recorded = () => {
  const gate = new VerbGate()
  const log: Array<string> = []
  const freeze = gate.freeze(
    'c1',
    Effect.sync(() => void log.push('frozen')),
    Effect.sync(() => void log.push('thawed')),
  )
  return { gate, log, freeze }
}

/** A verb that answers `value` once `release` is done, writing when it starts and answers. */
const held = (log: Array<string>, value: string, release: Deferred.Deferred<void>) =>
  Effect.gen(function* () {
    log.push(`${value} started`)
    yield* Deferred.await(release)
    log.push(`${value} answered`)
    return value
  })

describe('VerbGate: freezing waits for the page verbs in flight', () => {
  it('a freeze asked while a verb is in flight happens after the verb has answered, with its answer', () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const { gate, log, freeze } = recorded()
        const release = yield* Deferred.make<void>()
        const verb = yield* Effect.fork(gate.verb('c1', held(log, 'read', release)))
        yield* Effect.yieldNow()
        expect(gate.inFlight('c1')).toBe(1)
        const freezing = yield* Effect.fork(freeze)
        // However long the verb takes, the freeze does not land under it.
        for (let i = 0; i < 50; i++) yield* Effect.yieldNow()
        expect(log).toEqual(['read started'])
        expect(Option.isNone(yield* Fiber.poll(freezing))).toBe(true)
        yield* Deferred.succeed(release, undefined)
        expect(yield* Fiber.join(verb)).toBe('read')
        yield* Fiber.join(freezing)
        expect(log).toEqual(['read started', 'read answered', 'frozen'])
        expect(gate.inFlight('c1')).toBe(0)
        expect(gate.isFrozen('c1')).toBe(true)
      }),
    ))

  it('a verb arriving while the freeze waits is waited for too; one on the frozen context thaws it first', () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const { gate, log, freeze } = recorded()
        const [first, second] = [yield* Deferred.make<void>(), yield* Deferred.make<void>()]
        const a = yield* Effect.fork(gate.verb('c1', held(log, 'a', first)))
        yield* Effect.yieldNow()
        const freezing = yield* Effect.fork(freeze)
        yield* Effect.yieldNow()
        const b = yield* Effect.fork(gate.verb('c1', held(log, 'b', second)))
        yield* Effect.yieldNow()
        yield* Deferred.succeed(first, undefined)
        expect(yield* Fiber.join(a)).toBe('a')
        for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
        expect(log).not.toContain('frozen')
        yield* Deferred.succeed(second, undefined)
        expect(yield* Fiber.join(b)).toBe('b')
        yield* Fiber.join(freezing)
        expect(log).toEqual(['a started', 'b started', 'a answered', 'b answered', 'frozen'])
        // Frozen now: the next verb thaws the context before it runs.
        expect(
          yield* gate.verb(
            'c1',
            Effect.sync(() => log.push('c ran')),
          ),
        ).toBe(7)
        expect(log.slice(-2)).toEqual(['thawed', 'c ran'])
        expect(gate.isFrozen('c1')).toBe(false)
      }),
    ))

  it('a verb arriving during the freeze itself waits for it, then thaws before it runs', () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const gate = new VerbGate()
        const log: Array<string> = []
        const pagesHeld = yield* Deferred.make<void>()
        const freezing = yield* Effect.fork(
          gate.freeze(
            'c1',
            Effect.zipRight(
              Deferred.await(pagesHeld),
              Effect.sync(() => void log.push('frozen')),
            ),
            Effect.sync(() => void log.push('thawed')),
          ),
        )
        yield* Effect.yieldNow()
        const verb = yield* Effect.fork(
          gate.verb(
            'c1',
            Effect.sync(() => log.push('verb ran')),
          ),
        )
        for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
        expect(log).toEqual([])
        yield* Deferred.succeed(pagesHeld, undefined)
        yield* Fiber.join(freezing)
        yield* Fiber.join(verb)
        expect(log).toEqual(['frozen', 'thawed', 'verb ran'])
      }),
    ))

  it('a failing verb and an interrupted one leave nothing counted; a failed thaw fails the verb, still frozen', () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const gate = new VerbGate()
        expect(Exit.isFailure(yield* Effect.exit(gate.verb('c1', Effect.fail('boom'))))).toBe(true)
        const never = yield* Effect.fork(gate.verb('c1', Effect.never))
        yield* Effect.yieldNow()
        expect(gate.inFlight('c1')).toBe(1)
        yield* Fiber.interrupt(never)
        expect(gate.inFlight('c1')).toBe(0)
        const gone = new Error('context gone')
        yield* gate.freeze('c1', Effect.void, Effect.die(gone))
        const exit = yield* Effect.exit(gate.verb('c1', Effect.succeed('ran')))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(gate.isFrozen('c1')).toBe(true)
      }),
    ))
})

describe('the memory runtime freezes through its page owner', () => {
  it('every page verb on a frozen context thaws it first; bookkeeping reads do not', async () => {
    const memory = MemoryRuntime.make()
    const id = Effect.runSync(memory.openContext({ errandId: 'm1', label: { reason: 'task', lentSites: [] } }))
    const tab = memory.visit(id, 'https://shop.example/')
    await Effect.runPromise(memory.freeze(id))
    expect(memory.frozen.has(id)).toBe(true)
    await Effect.runPromise(memory.pages.activeTab(id))
    await Effect.runPromise(memory.pages.dialog(id))
    expect(memory.frozen.has(id)).toBe(true)
    const { url } = await Effect.runPromise(memory.pages.summary(id))
    expect(url).toBe('https://shop.example/')
    expect(memory.frozen.has(id)).toBe(false)
    expect(memory.pages.inFlight(id)).toBe(0)
    await Effect.runPromise(memory.freeze(id))
    await Effect.runPromise(memory.pages.text(id, tab.id, 100))
    expect(memory.frozen.has(id)).toBe(false)
  })
})
