/**
 * The live view's end-to-end harness: a real host (real Chromium for its errands) and a second,
 * separate headless Chromium that plays the person's browser, driven by Playwright. The viewer
 * records every WebSocket message the page receives, so tests can judge the stream itself.
 *
 * @example
 * const h = await startLiveHarness({ ERRANDS_MAX_SESSIONS: '3' })
 * const viewer = await h.signedIn()
 * await viewer.page.click('tr[data-conversation="session:k1"]')
 * await h.stop()
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CHROMIUM_ARGS, resolveExecutable } from '@errands/runtime-chromium'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { serveFixture, type Fixture } from '../host/fixtures.ts'
import { startTestHost, type TestHost } from '../host/harness.ts'

/** One message the viewer's page received on its live socket, with when. */
export interface Received {
  readonly at: number
  readonly type: string
  readonly conversationId?: string | null
  readonly seq?: number
}

/** A viewer page and what its socket received. */
export interface Viewer {
  readonly context: BrowserContext
  readonly page: Page
  readonly received: Received[]
  /** The sign-in id the page holds in memory (X4), read from the sign-in's answer; once signed in. */
  readonly liveId?: string | undefined
}

/** How a viewer's browser context is set up. */
export interface ViewerOptions {
  readonly permissions?: ReadonlyArray<string>
  readonly initScript?: string
}

export const startLiveHarness = async (env: Record<string, string> = {}) => {
  const host: TestHost = await startTestHost({ ERRANDS_MAX_SESSIONS: '4', ...env })
  const site: Fixture = await serveFixture('127.0.0.2')
  const browser: Browser = await chromium.launch({ executablePath: resolveExecutable(), args: [...CHROMIUM_ARGS] })

  /**
   * A fresh viewer context on the live view (not signed in); `permissions` granted to it and
   * `initScript` run in its pages before theirs (issue #26's notifications).
   */
  const open = async (o: ViewerOptions = {}): Promise<Viewer> => {
    const context = await browser.newContext({
      viewport: { width: 1400, height: 1000 },
      ...(o.permissions ? { permissions: [...o.permissions] } : {}),
    })
    if (o.initScript !== undefined) await context.addInitScript(o.initScript)
    const page = await context.newPage()
    const received: Received[] = []
    page.on('websocket', (ws) => {
      ws.on('framereceived', ({ payload }) => {
        const m = JSON.parse(String(payload)) as { type: string; conversationId?: string | null; seq?: number }
        received.push({
          at: Date.now(),
          type: m.type,
          conversationId: m.conversationId,
          ...(m.seq !== undefined ? { seq: m.seq } : {}),
        })
      })
    })
    await page.goto(host.url)
    return { context, page, received }
  }

  /** A viewer signed in with the host's token, the conversation list on screen. */
  const signedIn = async (o: ViewerOptions = {}): Promise<Viewer> => {
    const viewer = await open(o)
    await viewer.page.fill('input[name="token"]', host.tokenText)
    const answered = viewer.page.waitForResponse((r) => r.url().endsWith('/live/sign-in') && r.status() === 200)
    await viewer.page.click('button[type="submit"]')
    const liveId = ((await (await answered).json()) as { id: string }).id
    await viewer.page.waitForSelector('table.conversations')
    return { ...viewer, liveId }
  }

  return {
    host,
    site,
    browser,
    open,
    signedIn,
    /** Drives a host session through the API (as an agent would). */
    navigate: async (key: string, url: string) => {
      const reply = await host.call(key, 'POST', '/v1/navigate', { url })
      if (reply.status !== 200) throw new Error(`navigate ${key} → ${reply.status} ${JSON.stringify(reply.body)}`)
      return reply
    },
    stop: async () => {
      await browser.close()
      await site.close()
      await host.stop()
    },
  }
}

export type LiveHarness = Awaited<ReturnType<typeof startLiveHarness>>

/**
 * How far the live view's canvas is from a PNG of the page, as the mean absolute difference per
 * colour channel (0 = identical, 255 = opposite), after scaling the PNG to the canvas.
 *
 * @example
 * const d = await canvasDistance(viewer.page, png)
 */
export const canvasDistance = (page: Page, png: Buffer): Promise<number> =>
  page.evaluate(
    async (dataUrl) => {
      const screen = document.getElementById('screen') as HTMLCanvasElement
      const image = new Image()
      image.src = dataUrl
      await image.decode()
      const other = document.createElement('canvas')
      other.width = screen.width
      other.height = screen.height
      const octx = other.getContext('2d')!
      octx.drawImage(image, 0, 0, other.width, other.height)
      const a = screen.getContext('2d')!.getImageData(0, 0, screen.width, screen.height).data
      const b = octx.getImageData(0, 0, other.width, other.height).data
      let sum = 0
      let n = 0
      for (let i = 0; i < a.length; i += 4) {
        sum += Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!)
        n += 3
      }
      return sum / n
    },
    `data:image/png;base64,${png.toString('base64')}`,
  )

/**
 * Everything the host wrote that could hold what a person typed (P5, L7): its log lines and the
 * text files of its data directory (logs, journals, records) — not the errands' browser profiles,
 * where the page's own state (a submitted URL) is the site's business.
 *
 * @example
 * expect(hostWritings(h.host)).not.toContain(typed)
 */
export const hostWritings = (host: TestHost): string => {
  const seen: string[] = [...host.logs]
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'profile') continue
      const file = join(dir, name)
      const st = lstatSync(file)
      if (st.isDirectory()) walk(file)
      else if (st.size < 5_000_000 && /\.(log|jsonl|json|txt)$/.test(name)) seen.push(readFileSync(file, 'utf8'))
    }
  }
  walk(host.dataDir)
  return seen.join('\n')
}

/**
 * Where an element of an errand's page is, in the page's CSS pixels — asked through the agent's
 * `/v1/evaluate`, so before the person takes the wheel (evaluate acts, and is refused then).
 *
 * @example
 * const field = await centreOf(h.host, 'k1', '#q')
 */
export const centreOf = async (host: TestHost, key: string, selector: string): Promise<{ x: number; y: number }> => {
  const r = await host.call(key, 'POST', '/v1/evaluate', {
    expression:
      `(() => { const b = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); ` +
      `return { x: b.x + b.width / 2, y: b.y + b.height / 2 } })()`,
  })
  if (r.status !== 200) throw new Error(`centreOf ${selector} → ${r.status} ${JSON.stringify(r.body)}`)
  return (r.body as { value: { x: number; y: number } }).value
}

/**
 * Clicks the live view's screencast where the errand's page has `at` (scaled from the page's size,
 * which each frame carries, to the canvas on screen).
 *
 * @example
 * await clickOnScreen(viewer.page, await centreOf(h.host, 'k1', '#send'))
 */
export const clickOnScreen = async (page: Page, at: { x: number; y: number }): Promise<void> => {
  const canvas = page.locator('#screen')
  const box = (await canvas.boundingBox())!
  const size = await canvas.evaluate((c) => ({
    w: Number((c as HTMLCanvasElement).dataset.pageWidth),
    h: Number((c as HTMLCanvasElement).dataset.pageHeight),
  }))
  await page.mouse.click(box.x + (at.x / size.w) * box.width, box.y + (at.y / size.h) * box.height)
}
