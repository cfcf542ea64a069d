import type { SessionsShape } from '@errands/sessions'
import { Effect, Either } from 'effect'
import { describe, expect, it } from 'vitest'
import { parseInput, wheelRoute, MAX_INPUT_EVENTS } from './wheel.ts'

const deps = { sessions: {} as SessionsShape, runtime: {} as never }

describe('the wheel routes of the live view (P1, P2, P5)', () => {
  it("takes mouse, wheel, key and text events in the runtime's shapes, and nothing else", () => {
    const events = [
      { type: 'mouse', action: 'down', x: 10, y: 20, button: 'left' },
      { type: 'wheel', x: 1, y: 2, dx: 0, dy: 120 },
      { type: 'key', action: 'press', key: 'Enter' },
      { type: 'key', action: 'press', key: 'Control+Shift+Z' },
      { type: 'text', text: 'hi' },
    ]
    expect(parseInput({ events })).toEqual(Either.right(events))
    for (const bad of [
      [],
      Array(MAX_INPUT_EVENTS + 1).fill({ type: 'text', text: 'a' }),
      [{ type: 'mouse', action: 'down', x: 'a', y: 1 }],
      [{ type: 'eval', code: 'x' }],
      [{ type: 'key', action: 'press', key: '' }],
      [{ type: 'key', action: 'press', key: 'Control+é' }],
      [{ type: 'key', action: 'down', key: 'Control+a' }],
      [{ type: 'key', action: 'press', key: 'Process' }],
    ]) {
      expect(Either.isLeft(parseInput({ events: bad }))).toBe(true)
    }
  })

  it('a refusal names the event, never what was typed (P5)', () => {
    const secret = 'hunter2-typed'
    const refused = parseInput({
      events: [
        { type: 'text', text: secret },
        { type: 'text', text: secret, extra: { type: 'nope' } },
        { type: 'text', text: 42 },
      ],
    })
    expect(Either.isLeft(refused) && refused.left.message).toBe(
      'events[2] is not a mouse, wheel, key or text event this page can send.',
    )
    expect(JSON.stringify(refused)).not.toContain(secret)
  })

  it("routes take-wheel, hand-back (with a trimmed note, or none) and input; other paths are not the wheel's", () => {
    const calls: unknown[] = []
    const sessions = {
      takeWheel: (id: string) => (calls.push(['take', id]), null),
      handBack: (id: string, note?: string) => (calls.push(['back', id, note]), null),
    } as unknown as SessionsShape
    const d = { ...deps, sessions }
    expect(Either.isRight(wheelRoute('/live/api/conversations/session%3Ak1/take-wheel', {}, d)!)).toBe(true)
    wheelRoute('/live/api/conversations/session%3Ak1/hand-back', { note: '  done  ' }, d)
    wheelRoute('/live/api/conversations/session%3Ak1/hand-back', { note: '   ' }, d)
    expect(calls).toEqual([
      ['take', 'session:k1'],
      ['back', 'session:k1', 'done'],
      ['back', 'session:k1', undefined],
    ])
    expect(Either.isLeft(wheelRoute('/live/api/conversations/c1/hand-back', { note: 'x'.repeat(2_001) }, d)!)).toBe(
      true,
    )
    expect(wheelRoute('/live/api/conversations/c1/park', {}, d)).toBeUndefined()
    const input = wheelRoute('/live/api/conversations/c1/input', { events: [{ type: 'text', text: 'a' }] }, d)!
    expect(Either.isRight(input) && input.right.answersState).toBe(false)
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
      const d = { ...deps, wheel }
      for (const [path, body] of [
        ['take-wheel', {}],
        ['hand-back', { note: 'ok' }],
        ['input', { events: [{ type: 'text', text: 'a' }] }],
      ] as const) {
        const route = wheelRoute(`/live/api/conversations/session%3Ak1/${path}`, body, d)!
        expect(Either.isRight(route)).toBe(true)
        if (Either.isRight(route)) await Effect.runPromise(route.right.effect)
      }
      expect(calls).toEqual([
        ['take', 'session:k1'],
        ['back', 'session:k1', 'ok'],
        ['input', 'session:k1', 1],
      ])
    },
  )
})
