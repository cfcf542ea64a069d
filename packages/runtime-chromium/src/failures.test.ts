import { RuntimeError } from '@errands/runtime'
import { Effect, Exit } from 'effect'
import { describe, expect, it } from 'vitest'
import { call, redactUrls, toRuntimeError, within } from './failures.ts'

describe('toRuntimeError', () => {
  it.each([
    [Object.assign(new Error('page.goto: Timeout 30000ms exceeded.'), { name: 'TimeoutError' }), 'timeout'],
    [new Error('page.goto: Target page, context or browser has been closed'), 'target-closed'],
    [new Error('browserContext.newPage: Browser has been closed'), 'target-closed'],
    [new Error('page.evaluate: Page crashed'), 'crashed'],
    [new Error('page.goto: net::ERR_BLOCKED_BY_CLIENT at http://10.0.0.1/x'), 'invalid'],
    [new Error('page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/'), 'unavailable'],
    ['weird', 'unavailable'],
  ] as const)('maps %s to %s', (error, reason) => {
    expect(toRuntimeError('op', error).reason).toBe(reason)
  })
  it('keeps one line and no query, path or user info', () => {
    const e = toRuntimeError(
      'navigate',
      new Error(
        'page.goto: net::ERR_FAILED at https://u:p@a.example/p?token=S3CR3T#f\nCall log:\n  - navigating to ' +
          '"https://a.example/p?token=S3CR3T"',
      ),
    )
    expect(e.message).toBe('navigate: net::ERR_FAILED at https://a.example:443')
  })
  it('passes RuntimeErrors through', () => {
    const original = new RuntimeError({ reason: 'invalid', message: 'blocked' })
    expect(toRuntimeError('x', original)).toBe(original)
  })
})

describe('redactUrls', () => {
  it('reduces every URL to scheme, host and port', () => {
    expect(redactUrls('from ws://127.0.0.1:7070/live?k=1 to "http://b.example/x"')).toBe(
      'from ws://127.0.0.1:7070 to "http://b.example:80"',
    )
  })
})

describe('call', () => {
  it('fails with timeout when the deadline passes', async () => {
    const exit = await Effect.runPromiseExit(call('slow', 20, () => new Promise(() => undefined)))
    expect(exit).toMatchObject({ _tag: 'Failure' })
    if (Exit.isFailure(exit)) expect(JSON.stringify(exit.cause)).toContain('"reason":"timeout"')
  })
  it('aborts the signal of the work it gave up on, so many-step work stops behind it', async () => {
    let signal: AbortSignal | undefined
    await Effect.runPromiseExit(call('slow', 20, (s) => ((signal = s), new Promise(() => undefined))))
    expect(signal?.aborted).toBe(true)
    let kept: AbortSignal | undefined
    await Effect.runPromise(call('quick', 1_000, async (s) => void (kept = s)))
    expect(kept?.aborted).toBe(false)
  })
  it('maps rejections', async () => {
    const error = await Effect.runPromise(
      Effect.flip(call('x', 1_000, () => Promise.reject(new Error('Target closed')))),
    )
    expect(error).toMatchObject({ _tag: 'RuntimeError', reason: 'target-closed' })
  })
})

describe('within', () => {
  it('gives up quietly after the time and swallows rejections', async () => {
    expect(await within(10, new Promise(() => undefined))).toBeUndefined()
    expect(await within(10, Promise.reject(new Error('x')))).toBeUndefined()
    expect(await within(100, Promise.resolve(3))).toBe(3)
  })
})
