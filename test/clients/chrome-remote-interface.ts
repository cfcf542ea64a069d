/**
 * Compatibility matrix (#22): chrome-remote-interface — raw CDP, one flat connection — runs the
 * agent task through an errand's DevTools URL and against plain Chromium; the errand must behave
 * the same.
 */
import CDP from 'chrome-remote-interface'
import { type MatrixClient, must, type Outcome, runTask, type Side, type TaskSite } from './matrix.ts'

const task = async (wsUrl: string, _side: Side, site: TaskSite): Promise<Outcome> => {
  const client = await CDP({ target: wsUrl, local: true })
  const raw = client as unknown as {
    send: (method: string, params?: object, sessionId?: string) => Promise<any>
    on: (event: string, listener: (params: any, sessionId?: string) => void) => void
  }
  try {
    const attach = async (targetId: string) =>
      (await raw.send('Target.attachToTarget', { targetId, flatten: true })).sessionId as string
    const pageTarget = async () => {
      const { targetInfos } = await raw.send('Target.getTargets')
      const found = targetInfos.find((t: any) => t.type === 'page')
      return found?.targetId ?? (await raw.send('Target.createTarget', { url: 'about:blank' })).targetId
    }
    const targetId: string = await pageTarget()
    const s = await attach(targetId)
    const on =
      (sessionId: string) =>
      (method: string, params: object = {}) =>
        raw.send(method, params, sessionId)
    const page = on(s)
    const value = async (expression: string) =>
      (await page('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })).result.value
    const until = async (expression: string) => {
      for (let i = 0; i < 200 && !(await value(expression)); i++) await new Promise((r) => setTimeout(r, 50))
      must(await value(expression), `never true: ${expression}`)
    }
    const clickAt = async (selector: string) => {
      const { x, y } = await value(
        `(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return { x: ` +
          `r.x + r.width / 2, y: r.y + r.height / 2 } })()`,
      )
      await page('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', clickCount: 1 })
      await page('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', clickCount: 1 })
    }
    let otherId: string | undefined
    await page('Page.enable')
    await page('Runtime.enable')
    return await runTask({
      navigate: async () => {
        await page('Page.navigate', { url: site.url('/task') })
        await until("document.readyState === 'complete' && location.pathname === '/task'")
      },
      read: async () =>
        must((await value("document.querySelector('#h').textContent")) === 'Hello task', 'heading not read'),
      click: async () => {
        await clickAt('#b')
        await until("document.querySelector('#h').textContent === 'Clicked'")
      },
      type: async () => {
        await clickAt('#i')
        await page('Input.insertText', { text: 'typed raw' })
        must((await value("document.querySelector('#i').value")) === 'typed raw', 'field not filled')
      },
      dialog: async () => {
        const opened = new Promise<void>((resolve) =>
          raw.on('Page.javascriptDialogOpening', (_p, sessionId) => sessionId === s && resolve()),
        )
        await page('Runtime.evaluate', { expression: "setTimeout(() => document.querySelector('#c').click(), 50); 1" })
        await opened
        await page('Page.handleJavaScriptDialog', { accept: true })
        await until("document.title.startsWith('confirm:')")
        must((await value('document.title')) === 'confirm:true', 'the page did not get true')
      },
      newTab: async () => {
        otherId = (await raw.send('Target.createTarget', { url: site.url('/other') })).targetId
        must(typeof otherId === 'string', 'no target id')
      },
      switch: async () => {
        await raw.send('Target.activateTarget', { targetId: otherId })
        const other = on(await attach(otherId!))
        for (let i = 0; i < 200; i++) {
          const title = (await other('Runtime.evaluate', { expression: 'document.title', returnByValue: true })).result
            .value
          if (title === 'Other') return
          await new Promise((r) => setTimeout(r, 50))
        }
        throw new Error('not the other tab')
      },
      close: async () => {
        await raw.send('Target.closeTarget', { targetId: otherId })
        // closeTarget answers before the target is gone: list the targets until it is.
        const listed = async () =>
          (await raw.send('Target.getTargets')).targetInfos.some((t: any) => t.targetId === otherId)
        for (let i = 0; i < 100 && (await listed()); i++) await new Promise((r) => setTimeout(r, 50))
        must(!(await listed()), 'tab still listed')
      },
      screenshot: async () => {
        const { data } = await page('Page.captureScreenshot', { format: 'png' })
        must(Buffer.from(data, 'base64').subarray(1, 4).toString() === 'PNG', 'not a PNG')
      },
      cdp: async () => {
        // A second session on the same page, as a tool next to the agent would open.
        const second = on(await attach(targetId))
        const { result } = await second('Runtime.evaluate', { expression: '6 * 7', returnByValue: true })
        must(result.value === 42, 'the second session gave no answer')
      },
    })
  } finally {
    await client.close().catch(() => undefined)
  }
}

/** The client, for matrix.test.ts. */
export const client: MatrixClient = { name: 'chrome-remote-interface (raw CDP)', key: 'matrix-cri', task }
