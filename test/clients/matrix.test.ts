/**
 * The compatibility matrix (#22): every client of test/clients/ — each a real npm package — runs
 * the agent task through an errand of the shipped host and against plain Chromium; the errand
 * must behave the same (matrix.ts). One host, one plain Chromium and one task site for all of
 * them: starting the host was most of each client's time. One test per client, each with an
 * errand of its own; one client alone: `-t <name>` (e.g. `-t stagehand`).
 */
import { describe, it } from 'vitest'
import { client as agentBrowser } from './agent-browser.ts'
import { browserUrlClient as chromeDevtoolsMcpHttp, client as chromeDevtoolsMcp } from './chrome-devtools-mcp.ts'
import { client as chromeRemoteInterface } from './chrome-remote-interface.ts'
import { both, compare, useMatrix } from './matrix.ts'
import { httpClient as playwrightCoreHttp, client as playwrightCore } from './playwright-core.ts'
import { client as playwrightMcp } from './playwright-mcp.ts'
import { client as puppeteerCore } from './puppeteer-core.ts'
import { client as stagehand } from './stagehand.ts'

const env = useMatrix()

describe('compatibility matrix', () => {
  for (const client of [
    playwrightCore,
    playwrightCoreHttp,
    puppeteerCore,
    chromeRemoteInterface,
    playwrightMcp,
    chromeDevtoolsMcp,
    chromeDevtoolsMcpHttp,
    agentBrowser,
    stagehand,
  ]) {
    it(`${client.name} does the task through an errand as against Chromium`, async () => {
      const { plain, errand } = await both(env, client)
      compare(plain, errand, client.refused)
    })
  }
})
