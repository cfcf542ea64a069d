import { LendReport } from '@errands/lending'
import { WrongSite } from '@errands/passwords'
import { AllBusy } from '@errands/sessions'
import {
  Browsing,
  mainTarget,
  PageError,
  PageSummary,
  sessionTarget,
  TabView,
  type BrowsingShape,
  type RecordedCall,
  type SessionKey,
} from '@errands/host'
import { Effect, Either, Redacted, Schema } from 'effect'
import { describe, expect, it } from 'vitest'
import { Errand } from './ErrandEntity.ts'
import { forwardingBrowsing, ownerHandlers, type ErrandClient } from './forward.ts'

const key = 'task-42' as SessionKey
const rpcPayload = (tag: string) => Errand.protocol.requests.get(tag)!.payloadSchema as Schema.Schema<unknown, unknown>
const proxy = Redacted.make('http://user:s3cret@proxy.example:3128')

/** A recording local Browsing, and a client that records what it would send to the owner. */
const setup = (
  answer: (verb: string, payload: unknown) => Effect.Effect<unknown, any> = () => Effect.succeed({ url: 'owner' }),
) => {
  const local: Array<RecordedCall> = []
  const sent: Array<{ key: string; verb: string; payload: unknown }> = []
  const browsing = Effect.runSync(Effect.provide(Browsing, Browsing.layerRecording(local))) as BrowsingShape
  // Every RPC of the entity, by name: what the cluster's client offers.
  const client = ((k: string) =>
    new Proxy(
      {},
      {
        get: (_, verb: string) => (payload: unknown) => {
          sent.push({ key: k, verb, payload })
          return answer(verb, payload)
        },
      },
    )) as unknown as ErrandClient
  return { local, sent, forwarding: forwardingBrowsing(browsing, client), browsing }
}

describe("forwarding the page verbs to a key's owner", () => {
  it("sends a session's verb as its own typed request, under the key as the entity id", async () => {
    const { sent, local, forwarding } = setup()
    await Effect.runPromise(forwarding.navigate(sessionTarget(key), 'http://127.0.0.1:3000/'))
    await Effect.runPromise(forwarding.closeTab(sessionTarget(key), 'abc-t2'))
    await Effect.runPromise(forwarding.scroll(sessionTarget(key), { dx: 0, dy: 200 }))
    await Effect.runPromise(forwarding.task(key, 'interrupted'))
    expect(sent).toEqual([
      { key, verb: 'navigate', payload: { url: 'http://127.0.0.1:3000/' } },
      { key, verb: 'closeTab', payload: { tabId: 'abc-t2' } },
      { key, verb: 'scroll', payload: { body: { dx: 0, dy: 200 } } },
      { key, verb: 'task', payload: { status: 'interrupted' } },
    ])
    expect(local).toEqual([])
  })

  it("sends the page tools (#25) as their own typed requests, and runs them on the owner's Browsing", async () => {
    const { sent, forwarding, browsing, local } = setup()
    await Effect.runPromise(forwarding.evaluate(sessionTarget(key), { expression: '1 + 1' }))
    await Effect.runPromise(forwarding.console(sessionTarget(key)))
    await Effect.runPromise(forwarding.network(sessionTarget(key)))
    await Effect.runPromise(forwarding.fillForm(sessionTarget(key), { fields: [{ selector: '#q', value: 'x' }] }))
    await Effect.runPromise(forwarding.drag(sessionTarget(key), { from: '#a', to: '#b' }))
    await Effect.runPromise(forwarding.upload(sessionTarget(key), { selector: '#f', names: ['a.pdf'] }))
    expect(sent.map((s) => [s.verb, s.payload])).toEqual([
      ['evaluate', { body: { expression: '1 + 1' } }],
      ['console', {}],
      ['network', {}],
      ['fillForm', { body: { fields: [{ selector: '#q', value: 'x' }] } }],
      ['drag', { body: { from: '#a', to: '#b' } }],
      ['upload', { body: { selector: '#f', names: ['a.pdf'] } }],
    ])
    const owner = ownerHandlers(browsing, key)
    await Effect.runPromise(owner.evaluate({ payload: { body: { expression: '1 + 1' } } }))
    await Effect.runPromise(owner.upload({ payload: { body: { selector: '#f', names: ['a.pdf'] } } }))
    expect(local.map((c) => [c.method, c.args[0]])).toEqual([
      ['evaluate', sessionTarget(key)],
      ['upload', sessionTarget(key)],
    ])
  })

  it(
    "sends a password fill as data to the owner, which fills on its own Browsing; the owner's WrongSite comes " +
      'back as it is (W2, W3)',
    async () => {
      const { sent, forwarding, browsing, local } = setup((verb) =>
        verb === 'fillPassword'
          ? Effect.fail(new WrongSite({ reason: 'wrong-site', message: 'a look-alike' }))
          : Effect.succeed({}),
      )
      const body = { site: 'shop.example', username: '#user', password: '#pass' }
      const refused = await Effect.runPromise(Effect.either(forwarding.fillPassword(sessionTarget(key, proxy), body)))
      expect(Either.isLeft(refused) && refused.left).toBeInstanceOf(WrongSite)
      expect(sent).toEqual([{ key, verb: 'fillPassword', payload: { upstreamProxy: proxy, body } }])
      // Only selectors and the entry's name cross: the request has no place for a password.
      const wire = Schema.encodeSync(rpcPayload('fillPassword'))({ body }) as object
      expect(wire).toEqual({ body })
      expect(Either.isLeft(Schema.decodeUnknownEither(rpcPayload('fillPassword'))({ body: { username: '#u' } }))).toBe(
        true,
      )
      await Effect.runPromise(ownerHandlers(browsing, key).fillPassword({ payload: { body } }))
      expect(local).toEqual([{ method: 'fillPassword', args: [sessionTarget(key), body] }])
    },
  )

  it("an upload's names are checked by the RPC's own Schema: a path never reaches the owner", () => {
    const payload = Schema.decodeUnknownEither(rpcPayload('upload'))
    expect(Either.isRight(payload({ body: { selector: '#f', names: ['a.pdf'] } }))).toBe(true)
    expect(Either.isLeft(payload({ body: { selector: '#f', names: ['../a.pdf'] } }))).toBe(true)
  })

  it('carries the upstream proxy the call names to the owner, still a secret (L7, #21)', async () => {
    const { sent, forwarding } = setup()
    await Effect.runPromise(forwarding.navigate(sessionTarget(key, proxy), 'http://127.0.0.1:3000/'))
    const payload = sent[0]!.payload as { upstreamProxy: Redacted.Redacted<string> }
    expect(Redacted.value(payload.upstreamProxy)).toBe('http://user:s3cret@proxy.example:3128')
    expect(JSON.stringify(payload)).not.toContain('s3cret')
  })

  it("keeps the person's main context on this host (it is every host's own)", async () => {
    const { sent, local, forwarding } = setup()
    await Effect.runPromise(forwarding.url(mainTarget))
    expect(sent).toEqual([])
    expect(local.map((c) => c.method)).toEqual(['url'])
  })

  it(
    "gives back the owner's typed errors as they are, and the cluster's own failures in words a model can act " + 'on',
    async () => {
      const { forwarding } = setup((verb) =>
        verb === 'url' ? Effect.fail(AllBusy.of(4)) : Effect.fail({ _tag: 'MailboxFull' }),
      )
      const busy = await Effect.runPromise(Effect.either(forwarding.url(sessionTarget(key))))
      expect(Either.isLeft(busy) && busy.left).toBeInstanceOf(AllBusy)
      const moving = await Effect.runPromise(Effect.either(forwarding.text(sessionTarget(key))))
      expect(Either.isLeft(moving) && moving.left).toBeInstanceOf(PageError)
      expect(Either.isLeft(moving) && moving.left.message).toMatch(
        /could not be reached \(MailboxFull\).*try again in a few seconds/,
      )
      expect(Either.isLeft(moving) && (moving.left as PageError).status).toBe(502)
    },
  )

  it('on the owner, runs the same verb of its own Browsing on the session, opened with the named proxy', async () => {
    const { local, browsing } = setup()
    const owner = ownerHandlers(browsing, key)
    await Effect.runPromise(owner.scroll({ payload: { body: { dx: 0, dy: 200 } } }))
    await Effect.runPromise(owner.navigate({ payload: { url: 'http://127.0.0.1:3000/', upstreamProxy: proxy } }))
    await Effect.runPromise(owner.release())
    expect(local).toEqual([
      { method: 'scroll', args: [sessionTarget(key), { dx: 0, dy: 200 }] },
      { method: 'navigate', args: [sessionTarget(key, proxy), 'http://127.0.0.1:3000/'] },
      { method: 'release', args: [key] },
    ])
  })
})

describe("the entity's RPCs are the host's verbs, typed with its Schemas (#24)", () => {
  const rpcs = Errand.protocol.requests

  it(
    'has one RPC per verb of Browsing, besides Heal, TakeBack, devtools, setUpstreamProxy, mcpTool, the ' +
      "person's Ask and Allow, the wheel's and the asks' (View, Help, Asked, Answered)",
    () => {
      expect([...rpcs.keys()].sort()).toEqual([
        'Allow',
        'Answered',
        'Ask',
        'Asked',
        'Driving',
        'HandBack',
        'Heal',
        'Help',
        'TakeBack',
        'TakeWheel',
        'View',
        'WheelInput',
        'activateTab',
        'back',
        'click',
        'closeTab',
        'console',
        'devtools',
        'dialog',
        'download',
        'downloads',
        'drag',
        'evaluate',
        'fill',
        'fillForm',
        'fillPassword',
        'forward',
        'frame',
        'html',
        'input',
        'mcpTool',
        'navigate',
        'network',
        'openTab',
        'park',
        'release',
        'reload',
        'resume',
        'screenshot',
        'scroll',
        'setUpstreamProxy',
        'stageFile',
        'state',
        'tabs',
        'task',
        'text',
        'upload',
        'url',
        'viewport',
      ])
    },
  )

  it("answers go through the host's answer Schemas: a shape the API would not give does not pass", () => {
    expect(rpcs.get('navigate')!.successSchema).toBe(PageSummary)
    expect(rpcs.get('openTab')!.successSchema).toBe(TabView)
    const decode = Schema.decodeUnknownEither(rpcs.get('navigate')!.successSchema as typeof PageSummary)
    expect(Either.isRight(decode({ url: 'about:blank', title: '', tab: 'k-t1' }))).toBe(true)
    expect(Either.isLeft(decode({ url: 'about:blank' }))).toBe(true)
  })

  it(
    "an Allow's answer goes through lending's LendReport Schema, and its sign-in through the sealed snapshot's " +
      'storage Schema (#24)',
    () => {
      expect(rpcs.get('Allow')!.successSchema).toBe(LendReport)
      const payload = Schema.decodeUnknownEither(rpcs.get('Allow')!.payloadSchema as Schema.Schema<unknown, unknown>)
      expect(Either.isRight(payload({ site: 'shop.example', signIn: { cookies: [], origins: [] } }))).toBe(true)
      expect(
        Either.isLeft(payload({ site: 'shop.example', signIn: { cookies: [{ name: 'sid' }], origins: [] } })),
      ).toBe(true)
    },
  )

  it(
    "requests are checked with the HTTP bodies' Schemas: a click without a selector is refused before it " + 'leaves',
    () => {
      const payload = Schema.decodeUnknownEither(rpcs.get('click')!.payloadSchema as Schema.Schema<unknown, unknown>)
      expect(Either.isRight(payload({ body: { selector: '#go' } }))).toBe(true)
      expect(Either.isLeft(payload({ body: { selector: '' } }))).toBe(true)
    },
  )

  it('encodes the upstream proxy as its text for the owner, and decodes it back to a secret', () => {
    const schema = rpcs.get('url')!.payloadSchema as Schema.Schema<unknown, unknown>
    const wire = Schema.encodeSync(schema)({ upstreamProxy: proxy }) as { upstreamProxy: string }
    expect(wire.upstreamProxy).toBe('http://user:s3cret@proxy.example:3128')
    const back = Schema.decodeUnknownSync(schema)(wire) as { upstreamProxy: Redacted.Redacted<string> }
    expect(String(back.upstreamProxy)).toBe('<redacted>')
  })
})
