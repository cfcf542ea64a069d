import { Effect, Either } from 'effect'
import { describe, expect, it } from 'vitest'
import { MemoryRuntime } from './memory.ts'

const open = (memory: MemoryRuntime) =>
  Effect.runSync(memory.openContext({ errandId: 'e1', label: { reason: 'task', lentSites: [] } }))

describe('MemoryRuntime pages (the page capability, faked)', () => {
  it('reads the URL from visit and the text and HTML a test set, cut at the limit', () => {
    const memory = MemoryRuntime.make()
    const id = open(memory)
    const tab = memory.visit(id, 'http://shop.test/basket')
    memory.pages.set(id, tab.id, { text: 'Basket: 1 apple', html: '<p>Basket</p>' })
    expect(Effect.runSync(memory.pages.where(id, tab.id))).toEqual({
      url: 'http://shop.test/basket',
      title: 'http://shop.test/basket',
    })
    expect(Effect.runSync(memory.pages.text(id, tab.id, 6))).toEqual({ text: 'Basket', truncated: true })
    expect(Effect.runSync(memory.pages.html(id, tab.id, 100))).toEqual({ text: '<p>Basket</p>', truncated: false })
    expect([...Effect.runSync(memory.pages.screenshot(id, tab.id, { fullPage: false })).slice(1, 4)]).toEqual([
      0x50, 0x4e, 0x47,
    ])
  })

  it('records clicks, fills, input and history; a selector the page lacks times out', () => {
    const memory = MemoryRuntime.make()
    const id = open(memory)
    const tab = memory.visit(id, 'http://shop.test/')
    memory.pages.set(id, tab.id, { selectors: ['#buy', 'input[name=q]'] })
    Effect.runSync(memory.pages.act(id, tab.id, { type: 'click', selector: '#buy', timeoutMs: 100 }))
    Effect.runSync(
      memory.pages.act(id, tab.id, { type: 'fill', selector: 'input[name=q]', value: 'pears', timeoutMs: 100 }),
    )
    expect(
      Effect.runSync(
        memory.pages.input(id, tab.id, [
          { type: 'text', text: 'hi' },
          { type: 'key', action: 'press', key: 'Enter' },
        ]),
      ),
    ).toBe(2)
    expect(Effect.runSync(memory.pages.scroll(id, tab.id, 0, 600))).toEqual({ scrollX: 0, scrollY: 600 })
    expect(Effect.runSync(memory.pages.history(id, tab.id, 'reload', 100)).url).toBe('http://shop.test/')
    Effect.runSync(memory.pages.setViewport(id, tab.id, { width: 800, height: 600 }))
    expect(Effect.runSync(memory.pages.viewport(id, tab.id))).toEqual({ width: 800, height: 600 })
    const record = memory.pages.record(id, tab.id)
    expect(record.actions.map((a) => a.type)).toEqual(['click', 'fill'])
    expect(record.inputs).toHaveLength(2)
    expect(record.steps).toEqual(['reload'])
    const missing = Effect.runSync(
      Effect.either(memory.pages.act(id, tab.id, { type: 'click', selector: '#gone', timeoutMs: 100 })),
    )
    expect(Either.isLeft(missing) && missing.left._tag === 'RuntimeError' && missing.left.reason).toBe('timeout')
  })

  it(
    'says the URL and the active tab, holds the dialogs a test opens until answered once, and hands out no raw ' +
      'page',
    () => {
      const memory = MemoryRuntime.make()
      const id = open(memory)
      const tab = memory.visit(id, 'http://shop.test/')
      expect(Effect.runSync(memory.pages.url(id, tab.id))).toBe('http://shop.test/')
      expect(Effect.runSync(memory.pages.activeTab(id))).toBe(tab.id)
      expect(Effect.runSync(memory.pages.dialog(id))).toBeUndefined()
      const confirm = { type: 'confirm', message: 'Sure?', defaultPrompt: '', tabId: tab.id } as const
      memory.pages.openDialog(id, confirm)
      expect(Effect.runSync(memory.pages.dialog(id))).toEqual(confirm)
      expect(Effect.runSync(memory.pages.answerDialog(id, { accept: false }))).toEqual(confirm)
      expect(Effect.runSync(memory.pages.answerDialog(id, { accept: false }))).toBeUndefined()
      expect(memory.pages.answered).toEqual([{ contextId: id, dialog: confirm, how: { accept: false } }])
      const raw = Effect.runSync(Effect.either(memory.pages.raw(id, tab.id)))
      expect(Either.isLeft(raw) && raw.left._tag === 'RuntimeError' && raw.left.reason).toBe('invalid')
    },
  )

  it('a verb on a closed tab is target-closed, on a closed context the context is not found', () => {
    const memory = MemoryRuntime.make()
    const id = open(memory)
    const tab = memory.visit(id, 'http://shop.test/')
    Effect.runSync(memory.closeTab(id, tab.id))
    const closed = Effect.runSync(Effect.either(memory.pages.text(id, tab.id, 10)))
    expect(Either.isLeft(closed) && closed.left._tag === 'RuntimeError' && closed.left.reason).toBe('target-closed')
    Effect.runSync(memory.closeContext(id))
    const gone = Effect.runSync(Effect.either(memory.pages.text(id, tab.id, 10)))
    expect(Either.isLeft(gone) && gone.left._tag).toBe('ContextNotFound')
  })
})
