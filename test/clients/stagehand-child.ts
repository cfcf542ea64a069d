/**
 * Stagehand 3's side of the compatibility matrix (#22), in its own Node process: Stagehand
 * imports the AI SDK, whose @opentelemetry/api resolves to an untranspiled ESM build under the
 * `module` condition vitest's workers run with, so it cannot load inside a test worker. A
 * Stagehand agent is its own process anyway. Prints the task's outcome as one JSON line.
 *
 * LOCAL mode with `localBrowserLaunchOptions.cdpUrl` and only the deterministic page APIs (goto,
 * locator, screenshot, sendCDP): no model is configured and act/extract/observe are never
 * called, so nothing leaves the machine. Stagehand 3 has no dialog API and does not answer
 * dialogs itself; a Stagehand user accepts a `confirm()` on the page's own CDP session
 * (`getSessionForFrame`), so the dialog step does that.
 *
 * @example
 * node --import tsx test/clients/stagehand-child.ts ws://127.0.0.1:9222/devtools/browser/… http://127.0.0.1:8080
 */
import { Stagehand } from '@browserbasehq/stagehand'
import { must, runTask } from './task.ts'

type Page = NonNullable<ReturnType<Stagehand['context']['pages']>[number]>

const [cdpUrl, site] = process.argv.slice(2) as [string, string]

const stagehand = new Stagehand({
  env: 'LOCAL',
  localBrowserLaunchOptions: { cdpUrl },
  verbose: 0,
  disablePino: true,
  logger: () => undefined,
})
await stagehand.init()
try {
  const context = stagehand.context
  const page: Page = context.pages()[0] ?? (await context.newPage())
  let other: Page | undefined
  const outcome = await runTask({
    navigate: async () => void (await page.goto(`${site}/task`)),
    read: async () => must((await page.locator('#h').textContent()) === 'Hello task', 'heading not read'),
    click: async () => {
      await page.locator('#b').click()
      must((await page.locator('#h').textContent()) === 'Clicked', 'click had no effect')
    },
    type: async () => {
      await page.locator('#i').fill('typed by stagehand')
      must((await page.locator('#i').inputValue()) === 'typed by stagehand', 'field not filled')
    },
    dialog: async () => {
      const session = page.getSessionForFrame(page.mainFrameId())
      const opened = new Promise<void>((resolve) => session.on('Page.javascriptDialogOpening', () => resolve()))
      const clicked = page.locator('#c').click()
      await opened
      await session.send('Page.handleJavaScriptDialog', { accept: true })
      await clicked
      must((await page.title()) === 'confirm:true', `the page got ${await page.title()}`)
    },
    newTab: async () => {
      await page.locator('#n').click()
      // Stagehand has no "page" event to wait on: its page list follows the browser's targets.
      for (let i = 0; i < 100 && other === undefined; i++) {
        other = context.pages().find((p) => p.url().endsWith('/other'))
        if (other === undefined) await new Promise((r) => setTimeout(r, 100))
      }
      must(other !== undefined, 'no page at /other')
    },
    switch: async () => {
      context.setActivePage(other!)
      must(context.activePage() === other, 'not the active page')
      must((await other!.title()) === 'Other', 'not the other tab')
    },
    close: async () => {
      await other!.close()
      must(!context.pages().includes(other!), 'tab still listed')
    },
    screenshot: async () => {
      const png = await page.screenshot()
      must(png.subarray(1, 4).toString() === 'PNG', 'not a PNG')
    },
    cdp: async () => {
      const { result } = await page.sendCDP<{ result: { value: unknown } }>('Runtime.evaluate', {
        expression: '6 * 7',
        returnByValue: true,
      })
      must(result.value === 42, 'raw CDP gave no answer')
    },
  })
  process.stdout.write(`${JSON.stringify(outcome)}\n`)
} finally {
  await stagehand.close().catch(() => undefined)
}
