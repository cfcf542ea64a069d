/**
 * The edge answers a front as `127.0.0.1:<port>` and as `localhost:<port>` (docs/edge.md, B7), so
 * a page a front serves must work under both names in a real browser: the inspector relay's page
 * opens its WebSocket to the name it was loaded from, and its Content-Security-Policy has to allow
 * that name (it named only 127.0.0.1, so the page loaded as localhost could not connect).
 */
import { CHROMIUM_ARGS, resolveExecutable } from '@errands/runtime-chromium'
import { openInspectorRelay, type InspectorOutlet } from '@errands/supervisor'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

let browser: Browser
let relay: InspectorOutlet

beforeAll(async () => {
  relay = await openInspectorRelay({ port: 0 })
  browser = await chromium.launch({ executablePath: resolveExecutable(), args: [...CHROMIUM_ARGS] })
})
afterAll(async () => {
  await browser?.close()
  await relay?.close()
})

describe("the inspector relay's page under both names the edge answers", () => {
  for (const name of ['127.0.0.1', 'localhost']) {
    it(`loaded as ${name}:<port>, it opens its WebSocket to ${name}`, async () => {
      const port = new URL(relay.url).port
      const context = await browser.newContext()
      try {
        const page = await context.newPage()
        const refused: Array<string> = []
        page.on('console', (m) => {
          if (/Content Security Policy|Refused to connect/i.test(m.text())) refused.push(m.text())
        })
        const socket = page.waitForEvent('websocket', { timeout: 10_000 })
        const answer = await page.goto(`http://${name}:${port}/`)
        expect(answer?.status()).toBe(200)
        expect((await socket).url()).toBe(`ws://${name}:${port}/`)
        expect(refused).toEqual([])
      } finally {
        await context.close()
      }
    })
  }
})
