/**
 * The runtime owns the page (docs/adr/0049-runtime-owns-the-page.md): a verb of the host is one call
 * at the runtime's seam, counted by a wrapper around the real memory runtime, whether or not the
 * tab the verbs drive changed since the last call. The browser tier proves the same of Chromium
 * through the HTTP route (test/host/oneCall.test.ts).
 */
import { engineOver } from '@errands/engine'
import { countingRuntime, MemoryRuntime, Runtime } from '@errands/runtime'
import { Sessions, type SessionsShape } from '@errands/sessions'
import { settingsFrom } from '@errands/supervisor'
import { Effect, Either, Exit, Layer, Scope } from 'effect'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { conversationIdOf, parseSessionKey } from '../sessionKey.ts'
import { sessionTarget, type BrowsingShape } from './Browsing.ts'
import { makeBrowsing } from './make.ts'

const dir = mkdtempSync(join(tmpdir(), 'errands-one-call-'))
const memory = MemoryRuntime.make()
const { runtime: counted, calls } = countingRuntime(memory)
const scope = Effect.runSync(Scope.make())
let browsing: BrowsingShape
let sessions: SessionsShape
const key = Either.getOrThrow(parseSessionKey('one-call'))
const target = sessionTarget(key)
// A literal address: judged by its text, no name to resolve, no network touched (the memory runtime has none).
const at = (path: string) => `http://93.184.216.34${path}`

beforeAll(async () => {
  const settings = Effect.runSync(settingsFrom({ ERRANDS_DATA_DIR: dir }))
  const engine = engineOver(Layer.succeed(Runtime, counted), { settings })
  const services = await Effect.runPromise(Layer.buildWithScope(engine, scope))
  ;({ browsing, sessions } = await Effect.runPromise(
    Effect.all({ browsing: makeBrowsing({ deadlineMs: 5_000, firstFrameMs: 50 }), sessions: Sessions }).pipe(
      Effect.provide(services),
      Scope.extend(scope),
    ),
  ))
})
afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  rmSync(dir, { recursive: true, force: true })
})

/** The runtime calls one verb makes (the errand already open, so only the verb's own calls). */
const countOf = async <A>(verb: Effect.Effect<A, unknown>) => {
  calls.length = 0
  const answer = await Effect.runPromise(verb)
  return { answer, calls: [...calls] }
}

describe('a verb of the host is one runtime call (docs/adr/0049-runtime-owns-the-page.md)', () => {
  it('the count can fail: every call at the seam is counted, those of the page and files parts too', async () => {
    await Effect.runPromise(browsing.navigate(target, at('/counted'))) // opens the errand
    calls.length = 0
    const context = contextOf()
    const tabId = await Effect.runPromise(counted.pages.active(context))
    await Effect.runPromise(counted.pages.where(context, tabId))
    await Effect.runPromise(counted.tabs(context))
    expect(calls).toEqual(['pages.active', 'pages.where', 'tabs'])
    expect((await countOf(browsing.downloads(target))).calls).toEqual(['files.list'])
  })

  it('navigate: one call (pages.go), with the active tab known, and after it changed', async () => {
    await Effect.runPromise(browsing.navigate(target, at('/first'))) // opens the errand
    const known = await countOf(browsing.navigate(target, at('/second')))
    expect(known.calls).toEqual(['pages.go'])
    expect(known.answer).toMatchObject({ url: at('/second') })

    // Another tab becomes the active one behind the verbs' back (a popup would): still one call,
    // and it drives the new tab.
    const context = contextOf()
    const [first] = await Effect.runPromise(memory.tabs(context))
    const popup = await Effect.runPromise(memory.openTab(context, at('/popup')))
    const changed = await countOf(browsing.navigate(target, at('/third')))
    expect(changed.calls).toEqual(['pages.go'])
    const tabs = await Effect.runPromise(memory.tabs(context))
    expect(tabs.find((t) => t.id === popup.id)?.url).toBe(at('/third'))
    expect(tabs.find((t) => t.id === first!.id)?.url).toBe(at('/second'))
  })

  it('the other page verbs: one call each, fitted to the viewport once it is set', async () => {
    const context = contextOf()
    memory.pages.set(context, (await Effect.runPromise(memory.pages.activeTab(context)))!, { selectors: ['#go'] })
    expect((await countOf(browsing.click(target, { selector: '#go' }))).calls).toEqual(['pages.perform'])
    expect((await countOf(browsing.back(target))).calls).toEqual(['pages.travel'])
    expect((await countOf(browsing.text(target))).calls).toEqual(['pages.read'])
    expect((await countOf(browsing.input(target, [{ type: 'text', text: 'hi' }]))).calls).toEqual(['pages.inputActive'])
    expect((await countOf(browsing.viewport(target, { width: 500, height: 400 }))).calls).toEqual(['pages.fit'])
    // The frame verb: the runtime's cast of the driven tab (nothing painted yet: a screenshot stands in).
    const frame = await countOf(browsing.frame(target))
    expect(frame.calls).toEqual(['pages.frame'])
    expect(frame.answer).toMatchObject({ source: 'screenshot', seq: 0 })
    memory.paint(contextOf(), undefined, { width: 500, height: 400 })
    expect((await countOf(browsing.frame(target))).answer).toMatchObject({ source: 'screencast', seq: 1 })
    // A new tab is fitted by the runtime when it comes to be driven: still one call.
    const fresh = await Effect.runPromise(memory.openTab(context, at('/fresh')))
    expect((await countOf(browsing.navigate(target, at('/fitted')))).calls).toEqual(['pages.go'])
    expect(await Effect.runPromise(memory.pages.viewport(context, fresh.id))).toEqual({ width: 500, height: 400 })
  })
})

/** The session's context, as the supervisor knows it. */
const contextOf = () => {
  const id = sessions.contextOf(conversationIdOf(key))
  if (id === undefined) throw new Error('the errand is not open')
  return id
}
