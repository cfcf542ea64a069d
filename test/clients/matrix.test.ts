/**
 * The compatibility matrix (#22): every client of test/clients/ — each a real npm package — runs
 * the agent task through an errand of the shipped host and against plain Chromium; the errand
 * must behave the same (matrix.ts). One host, one plain Chromium and one task site for all of
 * them: starting the host was most of each client's time. One test per client, each with an
 * errand of its own; one client alone: `-t <name>` (e.g. `-t stagehand`).
 */
import { describe, expect, it } from 'vitest'
import { client as agentBrowser } from './agent-browser.ts'
import { browserUrlClient as chromeDevtoolsMcpHttp, client as chromeDevtoolsMcp } from './chrome-devtools-mcp.ts'
import { client as chromeRemoteInterface } from './chrome-remote-interface.ts'
import { both, compare, useMatrix } from './matrix.ts'
import { httpClient as playwrightCoreHttp, client as playwrightCore } from './playwright-core.ts'
import { client as playwrightMcp } from './playwright-mcp.ts'
import { client as puppeteerCore } from './puppeteer-core.ts'
import { client as stagehand } from './stagehand.ts'
import { connectStagehand4, version as stagehand4Version } from './stagehand4.ts'

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

  // docs/adr/0052-stagehand-4-extension-not-confined.md: Stagehand 4 runs inside a Chrome extension
  // of the whole browser. Plain Chromium lets it install the extension, whose own WebSocket to the
  // browser is then refused (Chromium allows no chrome-extension:// Origin without
  // --remote-allow-origins); an errand's endpoint refuses the Extensions domain at its first command.
  it(`Stagehand ${stagehand4Version} (localBrowser.connect) stops where the ADR says, on both sides`, async () => {
    const { host, plain } = env()
    const [againstPlain, throughErrand] = await Promise.all([
      connectStagehand4(plain.wsUrl),
      host.devtoolsUrl('matrix-stagehand4').then(connectStagehand4),
    ])
    if (process.env.MATRIX_LOG === '1') console.log(JSON.stringify({ againstPlain, throughErrand }))
    expect(againstPlain.connect).toMatch(/CDP websocket failed to open/)
    expect(throughErrand.connect).toMatch(/Extensions\.getExtensions|extensions belong to the whole browser/)
    expect(host.stderr() + host.stdout()).toMatch(/Extensions\.getExtensions refused for session:matrix-stagehand4/)
  })
})
