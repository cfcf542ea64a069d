import { LendFailed, type TakeBackReport } from '@errands/lending'
import { Effect, Either } from 'effect'
import { describe, expect, it } from 'vitest'
import type { ErrandClient } from './forward.ts'
import type { OwnerBook } from './owners.ts'
import { takeBackElsewhere } from './placement.ts'

type Answer = { runner: string; report: TakeBackReport | null; failed: string | null }

/**
 * An owners book whose runners hold the given keys (each round reads it again, as the table moves), and a client
 * whose `TakeBack` answers per key: a report, its words, or the cluster's failure (an errand that moved away).
 */
const setup = (rounds: ReadonlyArray<ReadonlyMap<string, string>>, answer: (key: string) => Answer | 'moved') => {
  let read = 0
  const asked: Array<{ key: string; site: string | null }> = []
  const owners = {
    keyPerRunner: Effect.sync(() => rounds[Math.min(read++, rounds.length - 1)]!),
  } as unknown as OwnerBook
  const client = ((key: string) => ({
    TakeBack: ({ site }: { site: string | null }) =>
      Effect.suspend(() => {
        asked.push({ key, site })
        const a = answer(key)
        return a === 'moved' ? Effect.fail({ _tag: 'EntityNotAssignedToRunner' }) : Effect.succeed(a)
      }),
  })) as unknown as ErrandClient
  return { asked, takeBack: takeBackElsewhere(owners, client, '10.0.0.1:7787') }
}

const report = (runner: string, key: string, dropped: Array<string>): Answer => ({
  runner,
  report: {
    sites: ['shop.example'],
    errands: [{ conversationId: `session:${key}`, where: 'open', cookies: [], origins: [] }],
    dropped,
  },
  failed: null,
})

describe("the cluster's take-back on every runner (L5, docs/adr/0053-data-only-verbs-cross-the-cluster.md)", () => {
  it('asks each other runner once, through one of its errands, and adds up what they took back', async () => {
    const runners = new Map([
      ['10.0.0.2:7787', 'a'],
      ['10.0.0.3:7787', 'b'],
    ])
    const { asked, takeBack } = setup([runners, new Map()], (key) =>
      report(key === 'a' ? '10.0.0.2:7787' : '10.0.0.3:7787', key, [key === 'a' ? 'x.example' : 'y.example']),
    )
    const there = await Effect.runPromise(takeBack('shop.example'))
    expect(asked).toEqual([
      { key: 'a', site: 'shop.example' },
      { key: 'b', site: 'shop.example' },
    ])
    expect(there.errands.map((e) => e.conversationId)).toEqual(['session:a', 'session:b'])
    expect(there.dropped).toEqual(['x.example', 'y.example'])
  })

  it('asks a runner again through another errand when the one it asked through moved; not one it reached', async () => {
    const { asked, takeBack } = setup(
      [
        new Map([
          ['10.0.0.2:7787', 'moving'],
          ['10.0.0.3:7787', 'b'],
        ]),
        new Map([
          ['10.0.0.2:7787', 'c'],
          ['10.0.0.3:7787', 'b'],
        ]),
        new Map(),
      ],
      (key) => (key === 'moving' ? 'moved' : report(key === 'c' ? '10.0.0.2:7787' : '10.0.0.3:7787', key, [])),
    )
    const there = await Effect.runPromise(takeBack(null))
    expect(asked.map((a) => a.key)).toEqual(['moving', 'b', 'c'])
    expect(asked.every((a) => a.site === null)).toBe(true)
    expect(there.errands.map((e) => e.conversationId)).toEqual(['session:b', 'session:c'])
  })

  it('fails in words naming the host when a runner cannot be reached in any round, or says it failed', async () => {
    const unreachable = setup([new Map([['10.0.0.2:7787', 'moving']])], () => 'moved')
    const gone = await Effect.runPromise(Effect.either(unreachable.takeBack('shop.example')))
    expect(Either.isLeft(gone) && gone.left).toBeInstanceOf(LendFailed)
    expect(Either.isLeft(gone) && gone.left.message).toMatch(/the host 10\.0\.0\.2:7787 could not be reached/)
    expect(unreachable.asked).toHaveLength(3)
    const refusing = setup([new Map([['10.0.0.2:7787', 'a']])], () => ({
      runner: '10.0.0.2:7787',
      report: null,
      failed: 'the store is read-only',
    }))
    const said = await Effect.runPromise(Effect.either(refusing.takeBack(null)))
    expect(Either.isLeft(said) && said.left.message).toMatch(/10\.0\.0\.2:7787 said: the store is read-only/)
  })

  it('never asks this runner: its own errands are the caller’s lending’s', async () => {
    const { asked, takeBack } = setup([new Map([['10.0.0.1:7787', 'mine']]), new Map()], (key) =>
      report('10.0.0.1:7787', key, []),
    )
    expect((await Effect.runPromise(takeBack(null))).errands).toEqual([])
    expect(asked).toEqual([])
  })
})
