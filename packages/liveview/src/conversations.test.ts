import { Effect } from 'effect'
import { describe, expect, it } from 'vitest'
import { heldAt, markDriving, unknownHere } from './conversations.ts'
import type { LiveConversation } from './protocol.ts'

describe("the live view's list in a cluster (#24, V1)", () => {
  it('marks a conversation another host holds as active there, once, and leaves the rest for the unknown ones', () => {
    const elsewhere = new Map([
      ['session:a', '127.0.0.1:7001'],
      ['session:b', '127.0.0.1:7002'],
    ])
    expect(heldAt(elsewhere, 'session:a')).toEqual({ state: 'active', heldBy: '127.0.0.1:7001' })
    expect(heldAt(elsewhere, 'session:here')).toEqual({})
    expect([...elsewhere.keys()]).toEqual(['session:b'])
    expect({ ...unknownHere('session:b'), ...heldAt(elsewhere, 'session:b') }).toMatchObject({
      conversationId: 'session:b',
      kind: 'task',
      state: 'active',
      heldBy: '127.0.0.1:7002',
    })
  })

  it(
    'marks an errand held elsewhere as driven when its owner says so (K4); one that does not answer is the ' +
      "agent's",
    async () => {
      const row = (id: string, heldBy?: string): LiveConversation => ({
        ...unknownHere(id),
        tabs: [],
        ...(heldBy ? { heldBy } : {}),
      })
      const list: LiveConversation[] = [
        row('session:here'),
        row('session:a', '127.0.0.1:7001'),
        { ...row('session:b', '127.0.0.1:7002'), personDriving: true as const },
        row('session:c', '127.0.0.1:7003'),
      ]
      const asked: string[] = []
      await Effect.runPromise(
        markDriving(list, (id) => {
          asked.push(id)
          return id === 'session:a'
            ? Effect.succeed(true)
            : id === 'session:b'
              ? Effect.succeed(false)
              : Effect.fail('unreachable')
        }),
      )
      expect(asked.sort()).toEqual(['session:a', 'session:b', 'session:c'])
      expect(list.map((c) => [c.conversationId, c.personDriving === true])).toEqual([
        ['session:here', false],
        ['session:a', true],
        ['session:b', false],
        ['session:c', false],
      ])
    },
  )
  it(
    "takes the owner's view of an errand held elsewhere when there is one: driving, waiting and the request for " +
      'help (K4); an owner that does not answer leaves none',
    async () => {
      const row = (id: string, heldBy?: string): LiveConversation => ({
        ...unknownHere(id),
        tabs: [],
        ...(heldBy ? { heldBy } : {}),
      })
      const list: LiveConversation[] = [
        row('session:a', '127.0.0.1:7001'),
        { ...row('session:b', '127.0.0.1:7002'), waiting: ['help'] },
      ]
      const help = { reason: 'a captcha', askedAt: 1, expiresAt: 2 }
      await Effect.runPromise(
        markDriving(
          list,
          () => Effect.succeed(false),
          (id) =>
            id === 'session:a'
              ? Effect.succeed({ personDriving: true as const, waiting: ['help' as const], help })
              : Effect.fail('unreachable'),
        ),
      )
      expect(list[0]).toMatchObject({ personDriving: true, waiting: ['help'], help })
      expect(list[1]).not.toHaveProperty('waiting')
      expect(list[1]).not.toHaveProperty('personDriving')
    },
  )
})
