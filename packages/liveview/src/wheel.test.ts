import { decodeBody, Router } from '@errands/edge'
import type { SessionsShape } from '@errands/sessions'
import { Effect, Either } from 'effect'
import { describe, expect, it } from 'vitest'
import { type LiveApiDeps, type LiveRoute, liveRoutes } from './api.ts'
import type { LiveAuth } from './auth.ts'
import { LiveInputBody, MAX_INPUT_EVENTS } from './wheel.ts'

const decode = (body: unknown) => Effect.runSync(Effect.either(decodeBody(LiveInputBody, JSON.stringify(body))))

/** The route table over the given verbs; the state an action answers is empty here. */
const routesOver = (parts: Partial<LiveApiDeps>) =>
  new Router<LiveRoute>(
    liveRoutes({
      sessions: {} as SessionsShape,
      runtime: {} as never,
      auth: {} as LiveAuth,
      options: { release: () => Effect.void, ownBrowser: () => Effect.void },
      run: Effect.runPromise,
      readState: Effect.succeed({} as never),
      pushState: () => undefined,
      log: () => undefined,
      ...parts,
    }),
  )

const call = (router: Router<LiveRoute>, path: string, body: unknown) => {
  const match = router.match('POST', path)
  if (match._tag !== 'found') throw new Error(`no route ${path}`)
  return Effect.runPromise(match.value.run({ params: { id: 'session:k1' }, body, headers: {} }))
}

describe('the wheel routes of the live view (P1, P2, P5)', () => {
  it("takes mouse, wheel, key and text events in the runtime's shapes, and nothing else", () => {
    const events = [
      { type: 'mouse', action: 'down', x: 10, y: 20, button: 'left' },
      { type: 'wheel', x: 1, y: 2, dx: 0, dy: 120 },
      { type: 'key', action: 'press', key: 'Enter' },
      { type: 'key', action: 'press', key: 'Control+Shift+Z' },
      { type: 'text', text: 'hi' },
    ]
    expect(decode({ events })).toEqual(Either.right({ events }))
    for (const bad of [
      [],
      Array(MAX_INPUT_EVENTS + 1).fill({ type: 'text', text: 'a' }),
      [{ type: 'mouse', action: 'down', x: 'a', y: 1 }],
      [{ type: 'eval', code: 'x' }],
      [{ type: 'key', action: 'press', key: '' }],
      [{ type: 'key', action: 'press', key: 'Control+é' }],
      [{ type: 'key', action: 'down', key: 'Control+a' }],
      [{ type: 'key', action: 'press', key: 'Process' }],
      [{ type: 'text', text: 'a', extra: 1 }],
    ]) {
      expect(Either.isLeft(decode({ events: bad })), JSON.stringify(bad).slice(0, 80)).toBe(true)
    }
  })

  it("a refusal is the edge's 400 and names the event, never what was typed (P5)", () => {
    const secret = 'hunter2-typed'
    for (const events of [
      [
        { type: 'text', text: secret },
        { type: 'text', text: 42 },
      ],
      [{ type: 'text', text: secret.repeat(200) }],
      [{ type: 'key', action: 'down', key: secret }],
      Array(MAX_INPUT_EVENTS + 1).fill({ type: 'text', text: secret }),
      secret,
    ]) {
      const refused = decode({ events })
      expect(Either.isLeft(refused)).toBe(true)
      if (Either.isRight(refused)) continue
      expect(refused.left).toMatchObject({ _tag: 'BadRequest', reason: 'invalid-body', status: 400 })
      expect(refused.left.message).toMatch(/^The body does not fit this endpoint — events/)
      expect(JSON.stringify(refused.left)).not.toContain(secret)
    }
    const second = decode({
      events: [
        { type: 'text', text: secret },
        { type: 'text', text: 42 },
      ],
    })
    expect(Either.isLeft(second) && second.left.message).toBe(
      'The body does not fit this endpoint — events.1: not a mouse, wheel, key or text event this page can send.',
    )
  })

  it('take-wheel and hand-back (with a trimmed note, or none) go to this host’s sessions without a wheel', async () => {
    const calls: unknown[] = []
    const sessions = {
      takeWheel: (id: string) => Effect.sync(() => calls.push(['take', id])),
      handBack: (id: string, note?: string) => Effect.sync(() => calls.push(['back', id, note])),
    } as unknown as SessionsShape
    const router = routesOver({ sessions })
    await call(router, '/live/api/conversations/x/take-wheel', {})
    await call(router, '/live/api/conversations/x/hand-back', { note: '  done  ' })
    await call(router, '/live/api/conversations/x/hand-back', { note: '   ' })
    expect(calls).toEqual([
      ['take', 'session:k1'],
      ['back', 'session:k1', 'done'],
      ['back', 'session:k1', undefined],
    ])
  })

  it(
    "with a wheel where the errand is (a cluster's, K4), take, hand back and input go to it, not to this host's " +
      'sessions',
    async () => {
      const calls: unknown[] = []
      const wheel = {
        takeWheel: (id: string) => Effect.sync(() => calls.push(['take', id])),
        handBack: (id: string, note?: string) => Effect.sync(() => calls.push(['back', id, note])),
        input: (id: string, events: ReadonlyArray<unknown>) =>
          Effect.sync(() => (calls.push(['input', id, events.length]), { applied: events.length })),
      }
      const router = routesOver({
        options: { release: () => Effect.void, ownBrowser: () => Effect.void, wheel },
      })
      await call(router, '/live/api/conversations/x/take-wheel', {})
      await call(router, '/live/api/conversations/x/hand-back', { note: 'ok' })
      expect(await call(router, '/live/api/conversations/x/input', { events: [{ type: 'text', text: 'a' }] })).toEqual({
        applied: 1,
      })
      expect(calls).toEqual([
        ['take', 'session:k1'],
        ['back', 'session:k1', 'ok'],
        ['input', 'session:k1', 1],
      ])
    },
  )
})
