/**
 * Compatibility matrix (#22): Playwright MCP (`@playwright/mcp --cdp-endpoint <url>`), spawned
 * over stdio with the MCP SDK as an agent's host spawns it, runs the agent task through an
 * errand's DevTools URL and against plain Chromium; the errand must behave the same. Targets are
 * CSS selectors (the tools take "a reference from the snapshot, or a unique element selector"),
 * so the test needs no model to pick references.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  installed,
  type MatrixClient,
  must,
  type Outcome,
  runTask,
  type Side,
  startMcpServer,
  type TaskSite,
} from './matrix.ts'

const cli = installed('@playwright/mcp', 'playwright-mcp').bin

const task = async (wsUrl: string, _side: Side, site: TaskSite): Promise<Outcome> => {
  const out = mkdtempSync(join(tmpdir(), 'errands-pwmcp-'))
  const mcp = await startMcpServer(cli, ['--cdp-endpoint', wsUrl, '--output-dir', out, '--image-responses', 'allow'])
  const evaluate = async (fn: string) => (await mcp.call('browser_evaluate', { function: fn })).text
  const tabs = async () => (await mcp.call('browser_tabs', { action: 'list' })).text
  try {
    return await runTask({
      navigate: async () => void (await mcp.call('browser_navigate', { url: site.url('/task') })),
      read: async () =>
        must((await mcp.call('browser_snapshot')).text.includes('Hello task'), 'heading not in the snapshot'),
      click: async () => {
        await mcp.call('browser_click', { element: 'Click button', target: '#b' })
        must(
          (await evaluate("() => document.getElementById('h').textContent")).includes('"Clicked"'),
          'click had no effect',
        )
      },
      type: async () => {
        await mcp.call('browser_type', { element: 'text field', target: '#i', text: 'typed by playwright mcp' })
        must(
          (await evaluate("() => document.getElementById('i').value")).includes('"typed by playwright mcp"'),
          'field not filled',
        )
      },
      dialog: async () => {
        const clicked = await mcp.call('browser_click', { element: 'Confirm button', target: '#c' })
        must(/dialog/i.test(clicked.text), `the click reported no dialog: ${clicked.text.slice(0, 200)}`)
        await mcp.call('browser_handle_dialog', { accept: true })
        const title = await evaluate('() => document.title')
        must(title.includes('"confirm:true"'), `the page got ${title.slice(0, 200)}`)
      },
      newTab: async () => {
        await mcp.call('browser_click', { element: 'Open other link', target: '#n' })
        // The tab may open after the click's settle time: list the tabs, as an agent would, until it is there.
        let listed = ''
        for (let i = 0; i < 100 && !listed.includes('/other'); i++) {
          listed = await tabs()
          if (!listed.includes('/other')) await new Promise((r) => setTimeout(r, 100))
        }
        must(listed.includes('/other'), 'no tab at /other')
      },
      switch: async () => {
        await mcp.call('browser_tabs', { action: 'select', index: 1 })
        must((await evaluate('() => document.title')).includes('"Other"'), 'not the other tab')
      },
      close: async () => {
        await mcp.call('browser_tabs', { action: 'close', index: 1 })
        must(!(await tabs()).includes('/other'), 'tab still listed')
      },
      screenshot: async () => {
        const { images } = await mcp.call('browser_take_screenshot', { type: 'png' })
        must(
          images.some(
            (i) => i.mimeType === 'image/png' && Buffer.from(i.data, 'base64').subarray(1, 4).toString() === 'PNG',
          ),
          'no PNG',
        )
      },
      cdp: async () => {
        // browser_run_code_unsafe runs Playwright code in the server: the raw CDP session an agent drops to.
        const { text } = await mcp.call('browser_run_code_unsafe', {
          code:
            'async (page) => { const s = await page.context().newCDPSession(page); const { result } = await ' +
            "s.send('Runtime.evaluate', { expression: '6 * 7', returnByValue: true }); await s.detach(); return " +
            'result.value }',
        })
        must(/\b42\b/.test(text), `raw CDP session gave ${text.slice(0, 200)}`)
      },
    })
  } finally {
    await mcp.close().catch(() => undefined)
    rmSync(out, { recursive: true, force: true })
  }
}

/** The client, for matrix.test.ts. */
export const client: MatrixClient = { name: '@playwright/mcp (--cdp-endpoint)', key: 'matrix-playwright-mcp', task }
