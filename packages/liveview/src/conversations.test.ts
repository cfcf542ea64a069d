import { describe, expect, it } from 'vitest'
import { heldAt, unknownHere } from './conversations.ts'

describe("the live view's list in a cluster (#24, V1)", () => {
  it('marks a conversation another host holds as active there, once, and leaves the rest for the unknown ones', () => {
    const elsewhere = new Map([['session:a', '127.0.0.1:7001'], ['session:b', '127.0.0.1:7002']])
    expect(heldAt(elsewhere, 'session:a')).toEqual({ state: 'active', heldBy: '127.0.0.1:7001' })
    expect(heldAt(elsewhere, 'session:here')).toEqual({})
    expect([...elsewhere.keys()]).toEqual(['session:b'])
    expect({ ...unknownHere('session:b'), ...heldAt(elsewhere, 'session:b') }).toMatchObject({ conversationId: 'session:b', kind: 'task', state: 'active', heldBy: '127.0.0.1:7002' })
  })
})
