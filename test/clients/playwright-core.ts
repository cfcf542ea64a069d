/**
 * Compatibility matrix (#22): playwright-core's `connectOverCDP` runs the agent task through an
 * errand's DevTools URL and against plain Chromium; the errand must behave the same.
 */
import { chromium, type Browser, type Page } from 'playwright-core'
import { httpEndpoint, type MatrixClient, must, type Outcome, runTask, type Side, type TaskSite } from './matrix.ts'

const task = async (endpoint: string, site: TaskSite): Promise<Outcome> => {
  const browser: Browser = await chromium.connectOverCDP(endpoint)
  try {
    const context = browser.contexts()[0]!
    const page: Page = context.pages()[0] ?? (await context.newPage())
    let other: Page | undefined
    return await runTask({
      navigate: async () => void (await page.goto(site.url('/task'))),
      read: async () => must((await page.textContent('#h')) === 'Hello task', 'heading not read'),
      click: async () => {
        await page.click('#b')
        must((await page.textContent('#h')) === 'Clicked', 'click had no effect')
      },
      type: async () => {
        await page.fill('#i', 'typed by playwright')
        must((await page.inputValue('#i')) === 'typed by playwright', 'field not filled')
      },
      dialog: async () => {
        page.once('dialog', (d) => void d.accept())
        await page.click('#c')
        await page.waitForFunction("document.title.startsWith('confirm:')", undefined, { timeout: 10_000 })
        must((await page.title()) === 'confirm:true', `the page got ${await page.title()}`)
      },
      newTab: async () => {
        const [popup] = await Promise.all([context.waitForEvent('page', { timeout: 10_000 }), page.click('#n')])
        other = popup
        await other.waitForLoadState('domcontentloaded')
        must(other.url().endsWith('/other'), `new tab at ${other.url()}`)
      },
      switch: async () => {
        await other!.bringToFront()
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
        const session = await context.newCDPSession(page)
        const { result } = await session.send('Runtime.evaluate', { expression: '6 * 7', returnByValue: true })
        must(result.value === 42, 'raw CDP session gave no answer')
        await session.detach()
      },
    })
  } finally {
    await browser.close().catch(() => undefined)
  }
}

/** The client, for matrix.test.ts. */
export const client: MatrixClient = {
  name: 'playwright-core (connectOverCDP)',
  key: 'matrix-playwright',
  task: (wsUrl: string, _side: Side, site: TaskSite) => task(wsUrl, site),
}

/** The same client given the `http://` endpoint: it reads `webSocketDebuggerUrl` from `/json/version/` first. */
export const httpClient: MatrixClient = {
  name: "playwright-core (connectOverCDP('http://…'))",
  key: 'matrix-playwright-http',
  task: (wsUrl: string, _side: Side, site: TaskSite) => task(httpEndpoint(wsUrl), site),
}
