import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../host/harness.ts'
import { refOf, stdioClient } from './clients.ts'
import { expectSameErrand, fillErrand } from './errand.ts'
import { serveShop, type Shop } from './shop.ts'

// Issue 14 over stdio, the way a desktop agent launches a server: the SDK's own Client spawns
// the real entry point (`npm start -- mcp`, then the CLI directly), on real Chromium. One errand
// per process; the process's end parks it (E5) and a new process with the same --session
// resumes it (E4), judged by the Cookie header the shop receives and the tabs listed.

let shop: Shop
let dataDir: string
let env: Record<string, string>
let hostPort: number

beforeAll(async () => {
  shop = await serveShop('127.0.0.2')
  dataDir = mkdtempSync(join(tmpdir(), 'errands-mcp-stdio-'))
  hostPort = await freePort()
  env = { ERRANDS_DATA_DIR: dataDir, ERRANDS_PORT: String(hostPort), ERRANDS_SNAPSHOT_DEBOUNCE_MS: '300' }
})
afterAll(async () => {
  await shop?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('errands mcp on stdio', () => {
  it(
    '`npm start -- mcp` drives the shop (navigate, snapshot, click a ref, type, screenshot, tabs), refuses file: ' +
      'and the host port; its end parks the errand and a new process with the same --session resumes its cookies and ' +
      'tabs',
    async () => {
      const mcp = await stdioClient(env, ['--session', 'stdio-park'], 'npm')
      try {
        const { tools } = await mcp.client.listTools()
        expect(tools.map((t) => t.name)).toContain('browser_snapshot')
        const shopPage = await mcp.call('browser_navigate', { url: shop.url('/') })
        expect(shopPage.text).toContain('- Page Title: Shop')
        const snap = await mcp.call('browser_snapshot')
        const clicked = await mcp.call('browser_click', {
          element: 'Add pear',
          ref: refOf(snap.text, /button "Add pear"/),
        })
        expect(clicked.isError).toBe(false)
        expect(shop.log.some((l) => l.path === '/add' && l.query.get('item') === 'pear')).toBe(true)
        const typed = await mcp.call('browser_type', {
          element: 'Gift note',
          ref: refOf(clicked.text, /textbox "Gift note"/),
          text: 'hi',
          submit: true,
        })
        expect(typed.text).toContain('Note received: hi')
        const shot = await mcp.call('browser_take_screenshot', { fullPage: true })
        expect(shot.images[0]!.data.subarray(0, 4)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]))
        await mcp.call('browser_tabs', { action: 'new' })
        const tabs = await mcp.call('browser_tabs', { action: 'list' })
        expect(tabs.text).toMatch(/- 0: \[Note\]/)
        expect(tabs.text).toMatch(/- 1: \(current\) \[\]\(about:blank\)/)

        const file = await mcp.call('browser_navigate', { url: 'file:///etc/hostname' })
        expect([file.isError, file.text]).toEqual([true, expect.stringContaining('containment policy refuses')])
        const own = await mcp.call('browser_navigate', { url: `http://127.0.0.1:${hostPort}/health` })
        expect([own.isError, own.text]).toEqual([true, expect.stringContaining('containment policy refuses')])

        await fillErrand(mcp, shop)
      } finally {
        await mcp.end()
      }
      expect(mcp.alive()).toBe(false)

      // A new process (the CLI's entry point) with the same key: the errand as it was (E4, E5).
      const again = await stdioClient(env, ['--session', 'stdio-park'])
      try {
        await expectSameErrand(again, shop, 'pear.plum')
      } finally {
        await again.end()
      }
      expect(again.stderr()).toContain('parking its errand')
    },
  )

  it('an anonymous session never shows its key: not on stderr, not in any answer (X2)', async () => {
    const mcp = await stdioClient({ ...env, ERRANDS_DATA_DIR: mkdtempSync(join(tmpdir(), 'errands-mcp-anon-')) })
    const answers: Array<string> = []
    try {
      for (const [name, args] of [
        ['browser_navigate', { url: shop.url('/') }],
        ['browser_snapshot', {}],
        ['browser_navigate', { url: 'file:///etc/hostname' }],
        ['browser_tabs', { action: 'list' }],
        ['browser_close', {}],
        ['browser_snapshot', {}],
      ] as const)
        answers.push((await mcp.call(name, args)).text)
    } finally {
      await mcp.end()
    }
    // The engine logs the errand by its conversation (`session:<key>`): its lines are there, the key is not.
    expect(mcp.stderr()).toContain('errands mcp: serving one MCP session on stdio (errand with a random key')
    expect(mcp.stderr()).toMatch(/egress: allowed/)
    const KEY = /mcp~[0-9a-f]{8}-/
    expect(mcp.stderr()).not.toMatch(KEY)
    for (const answer of answers) expect(answer).not.toMatch(KEY)
  })
})
