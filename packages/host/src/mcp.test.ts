import { Effect, Either } from 'effect'
import { describe, expect, it } from 'vitest'
import { Browsing, type RecordedCall } from './browsing/Browsing.ts'
import { bindErrand, isMcpPath } from './mcp.ts'
import { parseSessionKey } from './sessionKey.ts'

// The MCP face is an adapter over the host's verbs (A3): what an MCP tool asks of its errand
// arrives at `Browsing` as the same call an HTTP verb makes, on the session key's target.
const recording = () => {
  const calls: Array<RecordedCall> = []
  const browsing = Effect.runSync(Effect.provide(Browsing, Browsing.layerRecording(calls)))
  return { calls, browsing }
}

describe('binding an MCP session to an errand', () => {
  it('a given key is checked against the one contract (B1) before anything is driven', () => {
    const { calls, browsing } = recording()
    for (const bad of ['', 'a b', 'k'.repeat(129), 'é']) {
      const bound = bindErrand(browsing, bad)
      expect(Either.isLeft(bound) && bound.left._tag).toBe('InvalidSessionKey')
    }
    expect(calls).toEqual([])
  })

  it(
    "the errand's calls are the host's verbs on the key's session target; its end is the task interrupted (E4), a " +
      'forgotten one a release',
    async () => {
      const { calls, browsing } = recording()
      const errand = Either.getOrThrow(bindErrand(browsing, 'task-42'))
      await Effect.runPromise(errand.navigate('http://127.0.0.1:3000/'))
      await Effect.runPromise(errand.tabs())
      await Effect.runPromise(errand.park())
      await Effect.runPromise(errand.release())
      expect(calls.map((c) => [c.method, ...c.args])).toEqual([
        ['navigate', { _tag: 'session', key: 'task-42' }, 'http://127.0.0.1:3000/'],
        ['tabs', { _tag: 'session', key: 'task-42' }],
        ['task', 'task-42', 'interrupted'],
        ['release', 'task-42'],
      ])
    },
  )

  it('no key: a fresh random key outside the contract (X2: no header can name it), another each time', () => {
    const { browsing } = recording()
    const a = Either.getOrThrow(bindErrand(browsing, undefined)).key
    const b = Either.getOrThrow(bindErrand(browsing, undefined)).key
    expect(a).toMatch(/^mcp~[0-9a-f-]{36}$/)
    expect(Either.isLeft(parseSessionKey(a))).toBe(true)
    expect(a).not.toBe(b)
  })
})

describe('the /mcp path', () => {
  it('is /mcp with or without a query, nothing else', () => {
    expect([
      isMcpPath('/mcp'),
      isMcpPath('/mcp?x=1'),
      isMcpPath('/mcpx'),
      isMcpPath('/mcp/'),
      isMcpPath('/v1/mcp'),
      isMcpPath(undefined),
    ]).toEqual([true, true, false, false, false, false])
  })
})
