import { ContextNotFound, RuntimeError } from '@errands/runtime'
import { describe, expect, it } from 'vitest'
import { failureOf, spec } from './harness.ts'
import { useRuntimeAndSite } from './shared.ts'

const setup = useRuntimeAndSite()

/** An errand on the site's titled page, with a button, a field and a tall body put on it. */
const errand = async (errandId: string) => {
  const { h, site } = setup()
  const { runtime, run } = h
  const contextId = await run(
    runtime.openContext(spec(errandId, { tabs: [{ url: site.url(`/title?t=${errandId}`), active: true }] })),
  )
  await runtime.pageOf(contextId, 't1')!.evaluate(() => {
    document.body.innerHTML =
      '<button id="go" onclick="document.title=\'clicked\'">Go</button><input name="q"><div ' +
      'style="height:5000px">tall</div>'
  })
  return { runtime, run, contextId, site, pages: runtime.pages, close: () => run(runtime.closeContext(contextId)) }
}

describe('the page capability on real Chromium (runtime.pages, issue #24)', () => {
  it('reads where the page is, its text and HTML cut at a limit, and a PNG', async () => {
    const { run, contextId, site, pages, close } = await errand('pages-read')
    expect(await run(pages.where(contextId, 't1'))).toEqual({
      url: site.url('/title?t=pages-read'),
      title: 'pages-read',
    })
    const text = await run(pages.text(contextId, 't1', 2))
    expect(text).toEqual({ text: 'Go', truncated: true })
    const html = await run(pages.html(contextId, 't1', 5_000_000))
    expect(html.truncated).toBe(false)
    expect(html.text).toContain('<button id="go"')
    const png = await run(pages.screenshot(contextId, 't1', { fullPage: false }))
    expect([...png.slice(1, 4)]).toEqual([0x50, 0x4e, 0x47])
    await close()
  })

  it(
    'types keyboard characters as keys, inserts a run of others at once as an input method does, and a long text ' +
      'whole as a paste',
    async () => {
      const { run, runtime, contextId, pages, close } = await errand('pages-type')
      const page = runtime.pageOf(contextId, 't1')!
      await page.evaluate(() => {
        const seen: string[] = []
        Object.assign(window, { seen })
        const q = document.querySelector('input[name=q]')!
        q.addEventListener('keydown', (e) => seen.push(`key ${(e as KeyboardEvent).key}`))
        q.addEventListener('input', (e) => seen.push(`input ${(e as InputEvent).data}`))
      })
      const pasted = 'ペースト✓'.repeat(400)
      const asciiPaste = 'plain text pasted, '.repeat(50)
      await run(pages.act(contextId, 't1', { type: 'click', selector: 'input[name=q]', timeoutMs: 5_000 }))
      expect(
        await run(
          pages.input(contextId, 't1', [
            { type: 'text', text: 'ab東京c ' },
            { type: 'text', text: pasted },
            { type: 'text', text: asciiPaste },
          ]),
        ),
      ).toBe(3)
      expect(await page.inputValue('input[name=q]')).toBe(`ab東京c ${pasted}${asciiPaste}`)
      expect(await page.evaluate(() => (window as unknown as { seen: string[] }).seen)).toEqual([
        'key a',
        'input a',
        'key b',
        'input b',
        'input 東京',
        'key c',
        'input c',
        'key  ',
        'input  ',
        `input ${pasted}`,
        `input ${asciiPaste}`,
      ])
      await close()
    },
  )

  it('clicks and fills by selector, scrolls, types, resizes and goes through history', async () => {
    const { run, runtime, contextId, site, pages, close } = await errand('pages-act')
    await run(pages.act(contextId, 't1', { type: 'click', selector: '#go', timeoutMs: 5_000 }))
    expect((await run(pages.where(contextId, 't1'))).title).toBe('clicked')
    await run(
      pages.act(contextId, 't1', { type: 'fill', selector: 'input[name=q]', value: 'apples', timeoutMs: 5_000 }),
    )
    expect(
      await run(
        pages.input(contextId, 't1', [
          { type: 'mouse', action: 'click', x: 200, y: 10 },
          { type: 'key', action: 'press', key: 'End' },
          { type: 'text', text: '!' },
        ]),
      ),
    ).toBe(3)
    expect(await runtime.pageOf(contextId, 't1')!.inputValue('input[name=q]')).toBe('apples!')
    expect(await run(pages.scroll(contextId, 't1', 0, 600))).toEqual({ scrollX: 0, scrollY: 600 })
    await run(pages.setViewport(contextId, 't1', { width: 640, height: 480 }))
    expect(await run(pages.viewport(contextId, 't1'))).toEqual({ width: 640, height: 480 })
    await run(runtime.navigate(contextId, 't1', site.url('/title?t=second')))
    expect((await run(pages.history(contextId, 't1', 'back', 10_000))).url).toBe(site.url('/title?t=pages-act'))
    expect((await run(pages.history(contextId, 't1', 'forward', 10_000))).title).toBe('second')
    expect((await run(pages.history(contextId, 't1', 'reload', 10_000))).url).toBe(site.url('/title?t=second'))
    await close()
  })

  it(
    'says the URL and the active tab, waits for the document, takes a JPEG, and hands out only an opaque ' + 'page',
    async () => {
      const { run, runtime, contextId, site, pages, close } = await errand('pages-more')
      expect(await run(pages.url(contextId, 't1'))).toBe(site.url('/title?t=pages-more'))
      await run(pages.waitForLoad(contextId, 't1', 5_000))
      const jpeg = await run(pages.screenshot(contextId, 't1', { fullPage: false, type: 'jpeg', quality: 50 }))
      expect([...jpeg.slice(0, 3)]).toEqual([0xff, 0xd8, 0xff])
      expect(await run(pages.activeTab(contextId))).toBe('t1')
      const tab = await run(runtime.openTab(contextId, 'about:blank'))
      expect(await run(pages.activeTab(contextId))).toBe(tab.id)
      // The escape hatch is the tab's page, typed as nothing a caller can use without narrowing it.
      expect(await run(pages.raw(contextId, 't1'))).toBe(runtime.pageOf(contextId, 't1'))
      await close()
    },
  )

  it(
    'holds a JavaScript dialog an action opened: the action returns with it, the dialog waits, an answer takes it ' +
      'once (#22)',
    async () => {
      const { run, runtime, contextId, pages, close } = await errand('pages-dialog')
      await runtime.pageOf(contextId, 't1')!.evaluate(() => {
        document.getElementById('go')!.onclick = () => {
          document.title = `answered:${confirm('Delete?')}`
        }
      })
      expect(await run(pages.act(contextId, 't1', { type: 'click', selector: '#go', timeoutMs: 5_000 }))).toBe('dialog')
      expect(await run(pages.dialog(contextId))).toEqual({
        type: 'confirm',
        message: 'Delete?',
        defaultPrompt: '',
        tabId: 't1',
      })
      expect(await run(pages.answerDialog(contextId, { accept: true }))).toMatchObject({ type: 'confirm', tabId: 't1' })
      expect(await run(pages.answerDialog(contextId, { accept: true }))).toBeUndefined()
      expect(await run(pages.dialog(contextId))).toBeUndefined()
      expect((await run(pages.where(contextId, 't1'))).title).toBe('answered:true')
      expect(
        await run(
          pages.act(contextId, 't1', { type: 'fill', selector: 'input[name=q]', value: 'x', timeoutMs: 5_000 }),
        ),
      ).toBe('done')
      await close()
    },
  )

  it(
    'fails in the few kinds: a missing selector times out, a closed tab is target-closed, a closed context is not ' +
      'found',
    async () => {
      const { run, runtime, contextId, pages, close } = await errand('pages-fail')
      const missing = await failureOf(
        pages.act(contextId, 't1', { type: 'click', selector: '#nowhere', timeoutMs: 300 }),
      )
      expect(missing).toBeInstanceOf(RuntimeError)
      expect((missing as RuntimeError).reason).toBe('timeout')
      const tab = await run(runtime.openTab(contextId, 'about:blank'))
      await run(runtime.closeTab(contextId, tab.id))
      const closed = await failureOf(pages.text(contextId, tab.id, 100))
      expect((closed as RuntimeError).reason).toBe('target-closed')
      await close()
      expect(await failureOf(pages.text(contextId, 't1', 100))).toBeInstanceOf(ContextNotFound)
    },
  )
})
