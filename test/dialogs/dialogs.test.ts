/**
 * Issue #22 (A1, A4): JavaScript dialogs belong to whoever drives the errand, on the host as
 * `npm start` runs it. With no DevTools client, the page's state shows the waiting dialog and
 * `POST /v1/dialog` or MCP's `browser_handle_dialog` answers it — once. With a client attached,
 * the engine leaves the dialog to the client: playwright-core's `dialog.accept()` works, and a
 * raw CDP client's `Page.handleJavaScriptDialog` never meets "No dialog is showing" (the engine
 * used to dismiss every dialog first, on the connection the clients ride).
 */
import CDP from 'chrome-remote-interface'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from '../fixtures/processes.ts'
import { startShippedHost, type ShippedHost } from '../fixtures/shippedHost.ts'
import { startTestHost } from '../host/harness.ts'
import { httpClient } from '../mcp/clients.ts'
import { serveDialogSite, type DialogSite } from './site.ts'

let host: ShippedHost
let site: DialogSite
const browsers: Browser[] = []

beforeAll(async () => {
  ;[host, site] = await Promise.all([startShippedHost(), serveDialogSite()])
})
afterAll(async () => {
  await Promise.all(browsers.map((b) => b.close().catch(() => undefined)))
  await Promise.all([host?.stop(), site?.close()])
})

/** The session's state once its page shows a dialog (or the state after 20 s). */
const dialogOf = async (key: string) => {
  let state: any
  await eventually(async () => {
    state = (await host.call(key, 'GET', '/v1/state')).body
    return state?.dialog != null
  }, 20_000)
  return state.dialog
}
const titleOf = async (key: string, want: string) => {
  let title = ''
  await eventually(async () => {
    title = (await host.call(key, 'GET', '/v1/state')).body?.title ?? ''
    return title === want
  }, 20_000)
  return title
}

describe('nobody answers', () => {
  it(
    'a dialog nobody answers is dismissed after the page deadline, logged, and counted in the open ' + '/health',
    async () => {
      const quick = await startTestHost({ ERRANDS_PAGE_DEADLINE_MS: '5000' })
      try {
        expect((await quick.call(undefined, 'GET', '/health')).body.runtime.dialogs).toEqual({
          dismissedUnanswered: 0,
          deadlineMs: 5000,
        })
        expect(
          (await quick.call('dlg-late', 'POST', '/v1/navigate', { url: site.url('/confirm?delay=300') })).status,
        ).toBe(200)
        // Dismissed: the page's confirm() returns false.
        expect(
          await eventually(
            async () => (await quick.call('dlg-late', 'GET', '/v1/state')).body?.title === 'answered:false',
            20_000,
          ),
        ).toBe(true)
        expect((await quick.call(undefined, 'GET', '/health')).body.runtime.dialogs).toEqual({
          dismissedUnanswered: 1,
          deadlineMs: 5000,
        })
        expect(quick.logs.some((l) => /a confirm dialog nobody answered within 5000 ms was dismissed/.test(l))).toBe(
          true,
        )
        // Never answered twice: the verb finds nothing now.
        expect((await quick.call('dlg-late', 'POST', '/v1/dialog', { accept: true })).status).toBe(409)
      } finally {
        await quick.stop()
      }
    },
  )
})

describe('no DevTools client: the verbs see and answer the dialog', () => {
  it('a confirm() answered true over HTTP; a second answer is a 409 with words to act on', async () => {
    expect((await host.call('dlg-http', 'POST', '/v1/navigate', { url: site.url('/confirm?delay=300') })).status).toBe(
      200,
    )
    expect(await dialogOf('dlg-http')).toMatchObject({ type: 'confirm', message: 'Sure?', defaultPrompt: '' })
    const answered = await host.call('dlg-http', 'POST', '/v1/dialog', { accept: true })
    expect(answered.status).toBe(200)
    expect(answered.body.answered).toMatchObject({ type: 'confirm', message: 'Sure?' })
    expect(await titleOf('dlg-http', 'answered:true')).toBe('answered:true')

    const again = await host.call('dlg-http', 'POST', '/v1/dialog', { accept: true })
    expect(again.status).toBe(409)
    expect(again.body.error.code).toBe('NoDialog')
    expect(again.body.error.message).toMatch(/No dialog is waiting.*GET \/v1\/state/)
  })

  it('a click that opens a confirm() returns with the dialog instead of waiting; a prompt takes its text', async () => {
    await host.call('dlg-click', 'POST', '/v1/navigate', { url: site.url('/button') })
    const started = Date.now()
    const click = await host.call('dlg-click', 'POST', '/v1/click', { selector: '#b' })
    expect(click.status).toBe(200)
    expect(click.body.dialog).toMatchObject({ type: 'confirm', message: 'Delete?' })
    expect(Date.now() - started).toBeLessThan(10_000) // not the page deadline (30 s)
    expect((await host.call('dlg-click', 'POST', '/v1/dialog', { accept: false })).status).toBe(200)
    expect(await titleOf('dlg-click', 'answered:false')).toBe('answered:false')

    await host.call('dlg-click', 'POST', '/v1/navigate', { url: site.url('/prompt?delay=300') })
    expect(await dialogOf('dlg-click')).toMatchObject({ type: 'prompt', message: 'Name?', defaultPrompt: 'nobody' })
    expect((await host.call('dlg-click', 'POST', '/v1/dialog', { accept: true, promptText: 'Ada' })).status).toBe(200)
    expect(await titleOf('dlg-click', 'answered:Ada')).toBe('answered:Ada')
  })

  it("a confirm() answered true over MCP (browser_handle_dialog, Playwright MCP's shape)", async () => {
    const mcp = await httpClient(host.url, { key: 'dlg-mcp' })
    try {
      // The dialog opens after the navigation's snapshot was taken.
      expect((await mcp.call('browser_navigate', { url: site.url('/confirm?delay=1500') })).isError).toBe(false)
      expect(await dialogOf('dlg-mcp')).toMatchObject({ type: 'confirm' })
      const r = await mcp.call('browser_handle_dialog', { accept: true })
      expect(r.isError, r.text).toBe(false)
      expect(r.text).toContain('Accepted the confirm dialog "Sure?"')
      expect(await titleOf('dlg-mcp', 'answered:true')).toBe('answered:true')
      const again = await mcp.call('browser_handle_dialog', { accept: true })
      expect(again.isError).toBe(true)
      expect(again.text).toMatch(/No dialog is waiting/)
    } finally {
      await mcp.end()
    }
  })
})

describe("a DevTools client drives: the dialog is the client's", () => {
  it('playwright-core with a dialog handler accepts a confirm(): the page gets true', async () => {
    const browser = await chromium.connectOverCDP(await host.devtoolsUrl('dlg-pw'))
    browsers.push(browser)
    const context = browser.contexts()[0]!
    const page = context.pages()[0] ?? (await context.newPage())
    const failures: string[] = []
    page.on('dialog', (d) => void d.accept().catch((e: Error) => failures.push(e.message)))
    await page.goto(site.url('/confirm?delay=200'))
    await page.waitForFunction("document.title !== 'waiting'", undefined, { timeout: 20_000 })
    expect(await page.title()).toBe('answered:true')
    expect(failures).toEqual([])
    // The engine held nothing for the verbs meanwhile.
    expect((await host.call('dlg-pw', 'GET', '/v1/state')).body.dialog).toBeNull()
  })

  it('with no handler, an alert() never meets the client as "No dialog is showing"; its next calls work', async () => {
    // playwright-core without a handler (its own dismissal must be the only answer).
    const browser = await chromium.connectOverCDP(await host.devtoolsUrl('dlg-raw'))
    browsers.push(browser)
    const context = browser.contexts()[0]!
    const page = context.pages()[0] ?? (await context.newPage())
    await page.goto(site.url('/alert?delay=100'))
    await page.waitForFunction("document.title === 'alerted'", undefined, { timeout: 20_000 })
    expect(await page.evaluate('1 + 1')).toBe(2)
    // Playwright without a handler dismisses every dialog of the pages it is attached to: left
    // connected, it would race the raw client below for its alert, as it would on plain Chromium.
    await browser.close()

    // A raw CDP client on the same errand answers its own alert.
    const url = await host.devtoolsUrl('dlg-raw')
    const { targetInfos } = await (async () => {
      const root = await CDP({ target: url, local: true })
      try {
        return await root.Target.getTargets()
      } finally {
        await root.close()
      }
    })()
    const target = targetInfos.find((t) => t.type === 'page')!
    const client = await CDP({ target: url, local: true })
    try {
      const { sessionId } = await client.Target.attachToTarget({ targetId: target.targetId, flatten: true })
      const send = (method: string, params: object = {}) =>
        (client as any).send(method, params, sessionId) as Promise<any>
      await send('Page.enable')
      const opened = new Promise<void>((resolve) =>
        client.on('Page.javascriptDialogOpening' as any, (_p: unknown, s?: string) => s === sessionId && resolve()),
      )
      await send('Runtime.evaluate', {
        expression: "setTimeout(() => { alert('raw'); document.title = 'raw done' }, 100); 1",
      })
      await opened
      // Before #22 the engine had dismissed it already: -32000 "No dialog is showing".
      await expect(send('Page.handleJavaScriptDialog', { accept: true })).resolves.toBeDefined()
      const title = async () =>
        (await send('Runtime.evaluate', { expression: 'document.title', returnByValue: true })).result.value
      expect(await eventually(async () => (await title()) === 'raw done', 10_000)).toBe(true)
    } finally {
      await client.close()
    }
  })
})
