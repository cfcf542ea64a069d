/**
 * The errand's clipboard belongs to the errand, not to one context of it (runtime-chromium's
 * clipboard.ts): text copied before the errand's context closed (parked, healed) pastes in its
 * next context, and never in another errand's. Real key presses on real Chromium; the wire
 * tests (test/isolation-wire/features.test.ts) cover the rest of the clipboard.
 */
import type { ContextId } from '@errands/runtime'
import { clipboardScript } from '../../packages/runtime-chromium/src/clipboard.ts'
import { describe, expect, it } from 'vitest'
import { spec } from './harness.ts'
import { useRuntimeAndSite } from './shared.ts'

const setup = useRuntimeAndSite()

/** Opens a context for `errandId` with one tab holding a focused field. */
const open = async (errandId: string) => {
  const { h, site } = setup()
  const contextId = await h.run(
    h.runtime.openContext(spec(errandId, { tabs: [{ url: site.url(`/title?t=${errandId}`), active: true }] })),
  )
  const page = h.runtime.pageOf(contextId, 't1')!
  await page.evaluate(() => {
    document.body.innerHTML = '<textarea id="f"></textarea>'
  })
  await page.focus('#f')
  return { contextId, page }
}
const close = (contextId: ContextId) => {
  const { h } = setup()
  return h.run(h.runtime.closeContext(contextId))
}

describe("an errand's clipboard outlives its context", () => {
  it('what an errand copied pastes in its next context, and not in another errand', async () => {
    const first = await open('keeper')
    const text = `kept-${Math.random().toString(36).slice(2)}`
    await first.page.fill('#f', text)
    await first.page.focus('#f')
    await first.page.keyboard.press('Control+A')
    await first.page.keyboard.press('Control+C')
    await close(first.contextId) // parked, or crashed: the context is gone

    const other = await open('stranger')
    await other.page.keyboard.press('Control+V')
    expect(await other.page.inputValue('#f')).toBe('')

    const again = await open('keeper')
    await again.page.keyboard.press('Control+V')
    expect(await again.page.inputValue('#f')).toBe(text)
    await close(other.contextId)
    await close(again.contextId)
  })
})

describe('the clipboard script is plain JavaScript (#22)', () => {
  it('parses on its own and names nothing a loader adds (esbuild keepNames: __name)', () => {
    const script = clipboardScript('t0k3n', 'application/x-errands-clipboard')
    expect(() => new Function(script)).not.toThrow()
    expect(script).not.toMatch(/__name|__publicField|__async|_ts_/)
  })
})
