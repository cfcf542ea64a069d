import { dailyExtensionId, makeDailyBrowser } from '@errands/daily'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { acts } from '@errands/runtime'
import { Effect, Exit, Scope } from 'effect'
import { afterEach, describe, expect, it } from 'vitest'
import { browserTools } from './server.ts'
import { errandTest, linkedClient } from './testing.ts'

const texts = (r: unknown) =>
  (r as { content: Array<{ type: string; text?: string }> }).content.map((c) => c.text ?? '').join('\n')
const closing: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of closing.splice(0)) await c()
})
const connect = async (...args: Parameters<typeof linkedClient>) => {
  const linked = await linkedClient(...args)
  closing.push(linked.close)
  return linked
}

describe('tool failures are results a model can act on (C3)', () => {
  it(
    "AllBusy comes back as an error result with the engine's own words; the session answers the next " + 'call',
    async () => {
      const busy = {
        _tag: 'AllBusy',
        message: 'All 4 browser slots are busy with work in progress; wait a minute and try again.',
      }
      let calls = 0
      const { client } = await connect({
        errand: errandTest({
          navigate: () =>
            calls++ === 0 ? Effect.fail(busy) : Effect.succeed({ url: 'about:blank', title: '', tab: 't' }),
          onPage: () => Effect.succeed('x' as never),
        }),
      })
      const first = await client.callTool({ name: 'browser_navigate', arguments: { url: 'http://127.0.0.1:1/' } })
      expect(first.isError).toBe(true)
      expect(texts(first)).toBe(`### Error\n${busy.message}`)
      const second = await client.callTool({ name: 'browser_navigate', arguments: { url: 'http://127.0.0.1:1/' } })
      expect(second.isError).toBeFalsy()
    },
  )

  it(
    'a defect inside a tool is an error result and one log line without arguments (L7); the server keeps ' + 'serving',
    async () => {
      const { client, logs } = await connect({
        errand: errandTest({ tabs: () => Effect.die(new TypeError('boom at https://x.example/?token=t0k3n')) }),
      })
      const r = await client.callTool({ name: 'browser_tabs', arguments: { action: 'list' } })
      expect(r.isError).toBe(true)
      expect(texts(r)).toContain('browser_tabs failed unexpectedly')
      expect(logs).toEqual(['mcp: browser_tabs failed unexpectedly (TypeError)'])
      expect((await client.listTools()).tools.length).toBe(browserTools.length)
    },
  )

  it('browser_close parks the errand and says it comes back as it was', async () => {
    let parked = 0
    const { client } = await connect({ errand: errandTest({ park: () => Effect.sync(() => void parked++) }) })
    const r = await client.callTool({ name: 'browser_close', arguments: {} })
    expect(parked).toBe(1)
    expect(texts(r)).toContain('parked')
  })
})

describe('browser_observe is offered while the session key holds a Daily Browser lease (D4)', () => {
  it(
    'hidden without a lease, listed once the extension redeemed the code for the key, hidden again when the lease ' +
      'ends',
    async () => {
      const scope = Effect.runSync(Scope.make())
      closing.push(() => Effect.runPromise(Scope.close(scope, Exit.void)))
      const daily = await Effect.runPromise(makeDailyBrowser({}).pipe(Scope.extend(scope)))
      const changed: Array<string> = []
      const { client } = await connect({ errand: errandTest({ key: 'bot-7' }), daily })
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        changed.push((await client.listTools()).tools.map((t) => t.name).includes('browser_observe') ? 'on' : 'off')
      })
      const names = async () => (await client.listTools()).tools.map((t) => t.name)
      expect(await names()).not.toContain('browser_observe')
      const { code } = await Effect.runPromise(daily.createPairing('bot-7'))
      expect(await names()).not.toContain('browser_observe') // a code is not a lease yet
      await Effect.runPromise(
        daily.redeem({ code, origin: `chrome-extension://${dailyExtensionId}`, peer: '127.0.0.1' }),
      )
      expect(await names()).toContain('browser_observe')
      const observe = await client.callTool({ name: 'browser_observe', arguments: {} })
      expect(observe.isError).toBe(true) // paired, nothing shared yet: the Daily Browser says what to do
      expect(texts(observe).length).toBeGreaterThan(10)
      await Effect.runPromise(daily.returnLease('bot-7'))
      expect(await names()).not.toContain('browser_observe')
      expect(changed.at(-1)).toBe('off')
    },
  )
})

describe('while a person has the wheel (P1, issue #26)', () => {
  it(
    "a tool that acts answers isError in the host's words without touching the page; browser_request_help still " +
      'answers, and after the hand-back the tool is not refused',
    async () => {
      let touched = 0
      let driving: string | undefined = 'A person is using this browser; wait for them to hand it back, then try again.'
      const errand = errandTest({
        wheelRefusal: (tool) => (acts('mcp', tool) ? driving : undefined),
        navigate: () => Effect.sync(() => (touched++, { url: 'https://a.example/', title: 'A', tab: 't1' })),
        tabs: () => Effect.succeed([{ id: 't1', url: 'https://a.example/', title: 'A', active: true }]),
        requestHelp: () =>
          Effect.sync(() => ((driving = undefined), { handedBack: true as const, note: 'solved the captcha' })),
      })
      const { client, close } = await linkedClient({ errand })
      const refused = (await client.callTool({
        name: 'browser_navigate',
        arguments: { url: 'https://a.example/' },
      })) as {
        isError?: boolean
        content: Array<{ text: string }>
      }
      expect(refused.isError).toBe(true)
      expect(refused.content[0]!.text).toContain('A person is using this browser; wait for them to hand it back')
      expect(touched).toBe(0)
      const help = (await client.callTool({ name: 'browser_request_help', arguments: { reason: 'a captcha' } })) as {
        content: Array<{ text: string }>
      }
      expect(help.content[0]!.text).toContain('with a note: solved the captcha')
      // Handed back: the tool is no longer refused (this fake has no page, so it fails further on).
      const again = (await client.callTool({ name: 'browser_navigate', arguments: { url: 'https://a.example/' } })) as {
        content: Array<{ text: string }>
      }
      expect(again.content[0]!.text).not.toContain('A person is using this browser')
      await close()
    },
  )
})
