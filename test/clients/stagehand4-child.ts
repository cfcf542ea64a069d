/**
 * Stagehand 4's side of the compatibility matrix (docs/devtools-endpoint.md), in its own Node
 * process as Stagehand 3's (stagehand-child.ts: the AI SDK cannot load in a vitest worker).
 * Stagehand 4 runs its browser runtime as a Chrome extension it finds (`Extensions.getExtensions`)
 * or installs (`Extensions.loadUnpacked`) and drives through that extension's service worker
 * (ADR stagehand-4-extension-not-confined). Prints one JSON line: where `localBrowser.connect`
 * stopped (`connect`), or the outcome of the agent task.
 *
 * @example
 * node --import tsx test/clients/stagehand4-child.ts ws://127.0.0.1:9222/devtools/browser/… http://127.0.0.1:8080
 */
import { localBrowser } from 'stagehand4'
import { firstLine } from './task.ts'

const [cdpUrl] = process.argv.slice(2) as [string, string]

let browser: Awaited<ReturnType<typeof localBrowser.connect>> | undefined
try {
  browser = await localBrowser.connect({ cdpUrl })
  const [page] = await browser.context.pages()
  process.stdout.write(`${JSON.stringify({ connect: 'ok', pages: page === undefined ? 0 : 1 })}\n`)
} catch (error) {
  process.stdout.write(`${JSON.stringify({ connect: firstLine(error) })}\n`)
} finally {
  await (browser as { close?: () => Promise<void> } | undefined)?.close?.().catch(() => undefined)
  process.exit(0)
}
