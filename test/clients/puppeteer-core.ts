/**
 * Compatibility matrix (#22): puppeteer-core's `connect` runs the agent task through an errand's
 * DevTools URL and against plain Chromium; the errand must behave the same.
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { type MatrixClient, must, type Outcome, runTask, type Side, type TaskSite } from './matrix.ts'

const task = async (wsUrl: string, _side: Side, site: TaskSite): Promise<Outcome> => {
  const browser: Browser = await puppeteer.connect({ browserWSEndpoint: wsUrl, defaultViewport: null })
  try {
    const page: Page = (await browser.pages())[0] ?? (await browser.newPage())
    let other: Page | undefined
    return await runTask({
      navigate: async () => void (await page.goto(site.url('/task'))),
      read: async () => must((await page.$eval('#h', (e) => e.textContent)) === 'Hello task', 'heading not read'),
      click: async () => {
        await page.click('#b')
        must((await page.$eval('#h', (e) => e.textContent)) === 'Clicked', 'click had no effect')
      },
      type: async () => {
        await page.type('#i', 'typed by puppeteer')
        must(
          (await page.$eval('#i', (e) => (e as HTMLInputElement).value)) === 'typed by puppeteer',
          'field not filled',
        )
      },
      dialog: async () => {
        page.once('dialog', (d) => void d.accept())
        await page.click('#c')
        await page.waitForFunction("document.title.startsWith('confirm:')", { timeout: 10_000 })
        must((await page.title()) === 'confirm:true', `the page got ${await page.title()}`)
      },
      newTab: async () => {
        const opened = browser.waitForTarget((t) => t.url().endsWith('/other'), { timeout: 10_000 })
        await page.click('#n')
        other = (await (await opened).page()) ?? undefined
        must(other !== undefined, 'no page for the new tab')
      },
      switch: async () => {
        await other!.bringToFront()
        await other!.waitForFunction("document.readyState !== 'loading'", { timeout: 10_000 })
        must((await other!.title()) === 'Other', 'not the other tab')
      },
      close: async () => {
        await other!.close()
        must(!(await browser.pages()).includes(other!), 'tab still listed')
      },
      screenshot: async () => {
        const png = Buffer.from(await page.screenshot())
        must(png.subarray(1, 4).toString() === 'PNG', 'not a PNG')
      },
      cdp: async () => {
        const session = await page.createCDPSession()
        const { result } = await session.send('Runtime.evaluate', { expression: '6 * 7', returnByValue: true })
        must(result.value === 42, 'raw CDP session gave no answer')
        await session.detach()
      },
    })
  } finally {
    await browser.disconnect().catch(() => undefined)
  }
}

/** The client, for matrix.test.ts. */
export const client: MatrixClient = { name: 'puppeteer-core (connect)', key: 'matrix-puppeteer', task }
