import { Effect, Either } from 'effect'
import { describe, expect, it } from 'vitest'
import { MemoryRuntime } from './memory.ts'
import { isPlainFileName } from './pages.ts'

// The page tools of issue #25 (evaluate, console, network, fill-form, drag, upload), faked: the
// host's verbs and the cluster's forwarding are tested against these without a browser.

const open = (memory: MemoryRuntime) =>
  Effect.runSync(memory.openContext({ errandId: 'e1', label: { reason: 'task', lentSites: [] } }))
const failure = <A, E>(effect: Effect.Effect<A, E>) => {
  const result = Effect.runSync(Effect.either(effect))
  return Either.isLeft(result) ? result.left : undefined
}

describe('MemoryRuntime page tools (issue #25, faked)', () => {
  it('evaluates a declared expression to its JSON value, cut at the limit; any other throws as invalid', () => {
    const memory = MemoryRuntime.make()
    const id = open(memory)
    const tab = memory.visit(id, 'http://shop.test/')
    memory.pages.set(id, tab.id, {
      evaluations: { 'document.title': 'Shop', 'big()': 'x'.repeat(50), 'nothing()': undefined },
    })
    expect(Effect.runSync(memory.pages.evaluate(id, tab.id, 'document.title', 100))).toEqual({
      value: 'Shop',
      truncated: false,
    })
    expect(Effect.runSync(memory.pages.evaluate(id, tab.id, 'nothing()', 100))).toEqual({
      value: null,
      truncated: false,
    })
    expect(Effect.runSync(memory.pages.evaluate(id, tab.id, 'big()', 10))).toEqual({
      value: '"xxxxxxxxx',
      truncated: true,
    })
    expect(failure(memory.pages.evaluate(id, tab.id, 'boom()', 100))).toMatchObject({
      _tag: 'RuntimeError',
      reason: 'invalid',
    })
  })

  it('answers the console and network logs a test put on the page', () => {
    const memory = MemoryRuntime.make()
    const id = open(memory)
    const tab = memory.visit(id, 'http://shop.test/')
    memory.pages.set(id, tab.id, {
      console: [{ type: 'log', text: 'hello', at: 1 }],
      requests: [
        { method: 'GET', url: 'http://shop.test/', resourceType: 'document', status: 200, failure: null, at: 1 },
      ],
    })
    expect(Effect.runSync(memory.pages.console(id, tab.id))).toEqual({
      entries: [{ type: 'log', text: 'hello', at: 1 }],
      dropped: 0,
    })
    expect(Effect.runSync(memory.pages.network(id, tab.id)).entries.map((r) => r.url)).toEqual(['http://shop.test/'])
  })

  it('records fill-form and drag; a selector the page lacks times out naming it', () => {
    const memory = MemoryRuntime.make()
    const id = open(memory)
    const tab = memory.visit(id, 'http://shop.test/')
    memory.pages.set(id, tab.id, { selectors: ['#a', '#b', '#from', '#to'] })
    Effect.runSync(
      memory.pages.act(id, tab.id, {
        type: 'fill-form',
        fields: [
          { selector: '#a', value: '1' },
          { selector: '#b', value: 'true' },
        ],
        timeoutMs: 100,
      }),
    )
    Effect.runSync(memory.pages.act(id, tab.id, { type: 'drag', from: '#from', to: '#to', timeoutMs: 100 }))
    expect(memory.pages.record(id, tab.id).actions.map((a) => a.type)).toEqual(['fill-form', 'drag'])
    const missing = failure(
      memory.pages.act(id, tab.id, { type: 'drag', from: '#from', to: '#nowhere', timeoutMs: 100 }),
    )
    expect(missing).toMatchObject({ _tag: 'RuntimeError', reason: 'timeout' })
    expect(missing?.message).toContain('#nowhere')
  })

  it('uploads only plain names of files in the context folder', () => {
    const memory = MemoryRuntime.make()
    const id = open(memory)
    const tab = memory.visit(id, 'http://shop.test/')
    memory.pages.set(id, tab.id, { selectors: ['#file'] })
    memory.pages.putFile(id, 'receipt.pdf')
    Effect.runSync(
      memory.pages.act(id, tab.id, { type: 'upload', selector: '#file', names: ['receipt.pdf'], timeoutMs: 100 }),
    )
    for (const names of [['other.pdf'], ['../receipt.pdf'], ['receipt.pdf', '/etc/passwd']]) {
      expect(
        failure(memory.pages.act(id, tab.id, { type: 'upload', selector: '#file', names, timeoutMs: 100 })),
      ).toMatchObject({ reason: 'invalid' })
    }
    expect(memory.pages.record(id, tab.id).actions).toHaveLength(1)
  })

  it('a plain file name has no separator and is not . or ..', () => {
    expect(['a.txt', 'receipt 2024.pdf', '..hidden'].every(isPlainFileName)).toBe(true)
    expect(['', '.', '..', 'a/b', 'a\\b', '../x', 'a\0b', 'x'.repeat(256)].some(isPlainFileName)).toBe(false)
  })
})
