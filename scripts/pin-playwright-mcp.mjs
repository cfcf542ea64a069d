#!/usr/bin/env node
/**
 * Writes packages/mcp/src/pinned/playwright-mcp.json: the tools the installed `@playwright/mcp`
 * lists (names, titles and input JSON schemas) — its default set, and what `--caps vision` and
 * `--caps pdf` add. Errands' MCP tools are compared with it (packages/mcp/src/pinned.test.ts), and
 * test/mcp/parity.test.ts checks the file is still what the installed package lists. Run after
 * bumping `@playwright/mcp`: `node scripts/pin-playwright-mcp.mjs`.
 *
 * The server is asked over stdio with the MCP SDK's client, as an agent's host asks it; listing
 * tools starts no browser.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const pkg = join(root, 'node_modules/@playwright/mcp')
const { version, bin } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'))

/** The tools the installed server lists with these extra arguments. */
export const listed = async (args = []) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(pkg, typeof bin === 'string' ? bin : bin['playwright-mcp']), '--headless', '--isolated', ...args],
    stderr: 'pipe',
  })
  const client = new Client({ name: 'errands-pin', version: '1.0.0' })
  await client.connect(transport)
  try {
    return (await client.listTools()).tools.map((t) => ({
      name: t.name,
      title: t.annotations?.title ?? t.title,
      inputSchema: t.inputSchema,
    }))
  } finally {
    await client.close()
  }
}

/** The pinned document: the version, the default tools, and each capability's additions. */
export const pin = async () => {
  const base = await listed()
  const names = new Set(base.map((t) => t.name))
  const caps = {}
  for (const cap of ['vision', 'pdf']) caps[cap] = (await listed(['--caps', cap])).filter((t) => !names.has(t.name))
  return { package: '@playwright/mcp', version, default: base, caps }
}

if (process.argv[1] === import.meta.filename) {
  const out = join(root, 'packages/mcp/src/pinned/playwright-mcp.json')
  writeFileSync(out, `${JSON.stringify(await pin(), null, 2)}\n`)
  process.stdout.write(`wrote ${out}\n`)
}
