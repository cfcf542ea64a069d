import { AllBusy } from '@errands/supervisor'
import { Browsing, mainTarget, PageError, sessionTarget, type BrowsingShape, type RecordedCall, type SessionKey } from '@errands/host'
import { Effect, Either } from 'effect'
import { describe, expect, it } from 'vitest'
import { forwardingBrowsing, runVerb, type ErrandClient } from './forward.ts'

const key = 'task-42' as SessionKey

/** A recording local Browsing, and a client that records what it would send to the owner. */
const setup = (answer: (verb: string, args: ReadonlyArray<unknown>) => Effect.Effect<unknown, any> = () => Effect.succeed({ url: 'owner' })) => {
  const local: Array<RecordedCall> = []
  const sent: Array<{ key: string; verb: string; args: ReadonlyArray<unknown> }> = []
  const browsing = Effect.runSync(Effect.provide(Browsing, Browsing.layerRecording(local))) as BrowsingShape
  const client: ErrandClient = (k) => ({
    Call: ({ verb, args }) => {
      sent.push({ key: k, verb, args })
      return answer(verb, args) as never
    },
  })
  return { local, sent, forwarding: forwardingBrowsing(browsing, client), browsing }
}

describe('forwarding the page verbs to a key\'s owner', () => {
  it('sends a session\'s verb with its arguments after the target, under the key as the entity id', async () => {
    const { sent, local, forwarding } = setup()
    await Effect.runPromise(forwarding.navigate(sessionTarget(key), 'http://127.0.0.1:3000/'))
    await Effect.runPromise(forwarding.closeTab(sessionTarget(key), 'abc-t2'))
    await Effect.runPromise(forwarding.task(key, 'interrupted'))
    expect(sent).toEqual([
      { key, verb: 'navigate', args: ['http://127.0.0.1:3000/'] },
      { key, verb: 'closeTab', args: ['abc-t2'] },
      { key, verb: 'task', args: ['interrupted'] },
    ])
    expect(local).toEqual([])
  })

  it('keeps the person\'s main context on this host (it is every host\'s own)', async () => {
    const { sent, local, forwarding } = setup()
    await Effect.runPromise(forwarding.url(mainTarget))
    expect(sent).toEqual([])
    expect(local.map((c) => c.method)).toEqual(['url'])
  })

  it('gives back the owner\'s typed errors as they are, and the cluster\'s own failures in words a model can act on', async () => {
    const { forwarding } = setup((verb) => verb === 'url' ? Effect.fail(AllBusy.of(4)) : Effect.fail({ _tag: 'MailboxFull' }))
    const busy = await Effect.runPromise(Effect.either(forwarding.url(sessionTarget(key))))
    expect(Either.isLeft(busy) && busy.left).toBeInstanceOf(AllBusy)
    const moving = await Effect.runPromise(Effect.either(forwarding.text(sessionTarget(key))))
    expect(Either.isLeft(moving) && moving.left).toBeInstanceOf(PageError)
    expect(Either.isLeft(moving) && moving.left.message).toMatch(/could not be reached \(MailboxFull\).*try again in a few seconds/)
    expect(Either.isLeft(moving) && (moving.left as PageError).status).toBe(502)
  })

  it('on the owner, runs the same verb of its own Browsing on the session', async () => {
    const { local, browsing } = setup()
    await Effect.runPromise(runVerb(browsing, key, 'scroll', [{ dx: 0, dy: 200 }]))
    await Effect.runPromise(runVerb(browsing, key, 'release', []))
    expect(local).toEqual([
      { method: 'scroll', args: [sessionTarget(key), { dx: 0, dy: 200 }] },
      { method: 'release', args: [key] },
    ])
  })
})
