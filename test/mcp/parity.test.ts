/**
 * Issue #25: one Playwright-MCP-shaped session script, run with the MCP SDK's own client against
 * Errands' `/mcp` (a real host, real Chromium) and against `@playwright/mcp` itself (its CLI,
 * spawned over stdio with our Chromium), must pass on both: `target` refs read off a snapshot, a
 * dialog the click opened answered with browser_handle_dialog, evaluate, console messages,
 * network requests, a form filled at once, a file uploaded from the allowed folder, a new tab at a
 * URL. What happened is judged by what the page shows (through browser_evaluate) and by what the
 * fixture site received — the same checks for both servers.
 *
 * The pin of the tool list (packages/mcp/src/pinned/playwright-mcp.json, compared with ours by
 * packages/mcp/src/pinned.test.ts) is checked here against the installed package: a bump of
 * `@playwright/mcp` that changes its tools fails until the pin is regenerated.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestHost, type TestHost } from '../host/harness.ts'
import { installed } from '../clients/matrix.ts'
import { httpClient, read, refOf, type Result } from './clients.ts'
import { REPORT, serveParitySite, type ParitySite } from './paritySite.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium'
const peerCli = installed('@playwright/mcp', 'playwright-mcp').bin
const pinned = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../packages/mcp/src/pinned/playwright-mcp.json'), 'utf8'),
) as {
  version: string
  default: ReadonlyArray<{ name: string; inputSchema: unknown }>
  caps: Record<string, ReadonlyArray<{ name: string; inputSchema: unknown }>>
}

/** One server as the script sees it: a tool call, and where its allowed file is. */
interface Side {
  readonly call: (name: string, args?: Record<string, unknown>) => Promise<Result>
  /** The absolute path of `upload.txt` in the folder this server may upload from. */
  readonly upload: string
  /** The bytes of the downloaded file called `name`, when it has landed (each server's own way). */
  readonly downloaded: (name: string) => Promise<string | undefined>
  readonly end: () => Promise<void>
}

/**
 * `@playwright/mcp` over stdio, as an agent's host starts it, on our Chromium; its workspace (the only folder it
 * uploads from) is `cwd`.
 */
const startPeer = async (cwd: string, extra: ReadonlyArray<string> = []) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      peerCli,
      '--isolated',
      '--headless',
      '--executable-path',
      CHROMIUM,
      '--no-sandbox',
      '--output-dir',
      join(cwd, 'out'),
      ...extra,
    ],
    cwd,
    env: { ...(process.env as Record<string, string>) },
    stderr: 'pipe',
  })
  const client = new Client({ name: 'errands-parity', version: '1.0.0' })
  await client.connect(transport)
  return client
}

let site: ParitySite
let host: TestHost
let peerDir: string
beforeAll(async () => {
  site = await serveParitySite('127.0.0.1')
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '4' })
  peerDir = mkdtempSync(join(tmpdir(), 'errands-parity-peer-'))
})
afterAll(async () => {
  await host?.stop()
  await site?.close()
  if (peerDir !== undefined) rmSync(peerDir, { recursive: true, force: true })
})

const sides: Record<string, () => Promise<Side>> = {
  errands: async () => {
    // The errand's own files folder (docs/files.md): staged over HTTP with the same key, named by name.
    const staged = await host
      .v1('parity')
      .stageFile({ query: { name: 'upload.txt' }, raw: new TextEncoder().encode('hello upload\n') })
    if (!staged.ok) throw new Error(`staging upload.txt: ${staged.status}`)
    const mcp = await httpClient(host.url, { key: 'parity' })
    return {
      call: mcp.call,
      upload: 'upload.txt',
      // Through the tool first (it lists the file), then its bytes through the resource.
      downloaded: async (name) => {
        const listed = ok(await mcp.call('browser_downloads'), 'downloads')
        if (!listed.includes(`- ${JSON.stringify(name)} (`)) return undefined
        const read = await mcp.client.readResource({ uri: `errands://downloads/${encodeURIComponent(name)}` })
        const c = read.contents[0] as { text?: string; blob?: string }
        return c.text ?? Buffer.from(c.blob ?? '', 'base64').toString('utf8')
      },
      end: mcp.end,
    }
  },
  '@playwright/mcp': async () => {
    writeFileSync(join(peerDir, 'upload.txt'), 'hello upload\n')
    const client = await startPeer(peerDir)
    return {
      call: async (name, args = {}) =>
        read(await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })),
      upload: join(peerDir, 'upload.txt'),
      // Playwright MCP saves downloads into its output folder (named after the suggested name).
      downloaded: async (name) => {
        const files = (
          existsSync(join(peerDir, 'out'))
            ? readdirSync(join(peerDir, 'out'), { recursive: true, encoding: 'utf8' })
            : []
        ).filter((f) => f.endsWith(name.split('.').pop()!) && f.includes(name.split('.')[0]!))
        return files.map((f) => readFileSync(join(peerDir, 'out', f), 'utf8')).find((t) => t === REPORT)
      },
      end: () => client.close(),
    }
  },
}

const ok = (r: Result, what: string): string => {
  if (r.isError) throw new Error(`${what} failed: ${r.text.slice(0, 500)}`)
  return r.text
}

describe(`one Playwright MCP session script passes on Errands and on @playwright/mcp ${pinned.version} (#25)`, () => {
  for (const [name, start] of Object.entries(sides)) {
    it(`on ${name}`, async () => {
      const s = await start()
      const evaluate = async (fn: string) => ok(await s.call('browser_evaluate', { function: fn }), `evaluate ${fn}`)
      try {
        ok(await s.call('browser_navigate', { url: site.url('/') }), 'navigate')
        let snap = ok(await s.call('browser_snapshot'), 'snapshot')
        // Refs in Playwright's format, as both print them.
        expect(refOf(snap, /button "Say hi"/)).toMatch(/^(f\d+)?e\d+$/)
        const before = site.log.filter((l) => l.path === '/api/ping' && l.query.get('from') === 'click').length
        ok(await s.call('browser_click', { element: 'Say hi button', target: refOf(snap, /button "Say hi"/) }), 'click')
        await expect
          .poll(() => site.log.filter((l) => l.path === '/api/ping' && l.query.get('from') === 'click').length)
          .toBe(before + 1)

        const info = ok(await s.call('browser_console_messages', { level: 'info' }), 'console')
        expect(info).toMatch(/Total messages: \d+ \(Errors: \d+, Warnings: \d+\)/)
        expect(info).toContain('[LOG] parity loaded')
        expect(info).toContain('[WARNING] parity warning')
        expect(info).toContain('[LOG] hi clicked')
        const errors = ok(await s.call('browser_console_messages', { level: 'warning' }), 'console warnings')
        expect(errors).toContain('[WARNING] parity warning')
        expect(errors).not.toContain('hi clicked')

        await expect
          .poll(
            async () =>
              ok(await s.call('browser_network_requests', { static: false }), 'requests').match(
                /\[GET\] http:\/\/127\.0\.0\.1:\d+\/api\/ping\S* => \[200\] OK/g,
              )?.length ?? 0,
          )
          .toBe(2)
        const requests = ok(await s.call('browser_network_requests', { static: false }), 'requests')
        expect(requests).toMatch(/^\d+\. \[GET\] /m)
        expect(requests).not.toMatch(/\[GET\] http:\/\/127\.0\.0\.1:\d+\/ =>/) // the document is a static request
        expect(ok(await s.call('browser_network_requests', { static: true }), 'all requests')).toMatch(
          /\[GET\] http:\/\/127\.0\.0\.1:\d+\/ => \[200\]/,
        )
        // One request's details by its number: its answer's headers as the site sent them. (Its
        // body is not asked for: Playwright waits on a fetch's body the page never read, on both.)
        const pingNumber = /^(\d+)\. \[GET\] \S+\/api\/ping/m.exec(requests)?.[1]
        expect(pingNumber).toBeDefined()
        expect(
          ok(
            await s.call('browser_network_request', { index: Number(pingNumber), part: 'response-headers' }),
            'request details',
          ),
        ).toMatch(/content-type: application\/json/i)

        // A click that opens confirm(): the answer shows the modal state; the dialog is answered.
        const asked = ok(
          await s.call('browser_click', { element: 'Ask button', target: refOf(snap, /button "Ask"/) }),
          'click Ask',
        )
        expect(asked).toContain('### Modal state')
        expect(asked).toContain('["confirm" dialog with message "Proceed?"]: can be handled by browser_handle_dialog')
        // The page's script is blocked, yet the answer has its snapshot section (empty), as Playwright MCP's has.
        expect(asked).toContain('### Snapshot')
        ok(await s.call('browser_handle_dialog', { accept: true }), 'handle dialog')
        expect(await evaluate("() => document.getElementById('answer').textContent")).toContain('"Answer: true"')

        snap = ok(await s.call('browser_snapshot'), 'snapshot')
        expect(
          ok(
            await s.call('browser_evaluate', {
              element: 'Ask button',
              target: refOf(snap, /button "Ask"/),
              function: '(el) => el.id',
            }),
            'evaluate element',
          ),
        ).toContain('"ask"')
        ok(
          await s.call('browser_fill_form', {
            fields: [
              { name: 'Name', type: 'textbox', target: refOf(snap, /textbox "Name"/), value: 'Ann' },
              { name: 'Agree', type: 'checkbox', target: refOf(snap, /checkbox "Agree"/), value: 'true' },
              { name: 'Size', type: 'combobox', target: refOf(snap, /combobox "Size"/), value: 'M' },
            ],
          }),
          'fill form',
        )
        expect(await evaluate("() => document.getElementById('form').textContent")).toContain('"Form: Ann|true|M"')

        // The file input opens a chooser; a file outside the allowed folder is refused, the one in it is uploaded.
        snap = ok(await s.call('browser_snapshot'), 'snapshot')
        const chooser = ok(
          await s.call('browser_click', { element: 'Attachment', target: refOf(snap, /button "Attachment"/) }),
          'click file input',
        )
        expect(chooser).toContain('[File chooser]: can be handled by browser_file_upload')
        const outside = await s.call('browser_file_upload', { paths: ['/etc/hostname'] })
        expect(outside.isError, outside.text).toBe(true)
        ok(await s.call('browser_file_upload', { paths: [s.upload] }), 'file upload')
        await expect
          .poll(() => evaluate("() => document.getElementById('filetext').textContent"))
          .toContain('"File: upload.txt hello upload"')

        // A link that downloads: the answer says so in an Events section, the file lands, and the
        // session goes on (Playwright MCP issue #1768: a download must not end it).
        snap = ok(await s.call('browser_snapshot'), 'snapshot')
        let events = ok(
          await s.call('browser_click', { element: 'Get report link', target: refOf(snap, /link "Get report"/) }),
          'click download',
        )
        // The download may start just after the click's answer: the next answer carries it then.
        if (!events.includes('### Events')) events = ok(await s.call('browser_snapshot'), 'snapshot after download')
        expect(events).toContain('### Events')
        expect(events).toMatch(/- Download(ing|ed) file "?report\.txt"? /)
        await expect.poll(() => s.downloaded('report.txt'), { timeout: 15_000 }).toBe(REPORT)

        // A new tab at a URL: it opens there and becomes the current tab.
        const opened = ok(await s.call('browser_tabs', { action: 'new', url: site.url('/other') }), 'tabs new')
        expect(opened).toMatch(/- 1: \(current\) \[Other\]\(http:\/\/127\.0\.0\.1:\d+\/other\)/)
        expect(site.log.some((l) => l.path === '/other')).toBe(true)
        expect(await evaluate('() => document.title')).toContain('"Other"')
        const listed = ok(await s.call('browser_tabs', { action: 'list' }), 'tabs list')
        expect(listed).toMatch(/- 0: \[Parity\]\(http:\/\/127\.0\.0\.1:\d+\/\)/)

        // Closing answers with a ### section like every tool (ours parks the errand, theirs closes the browser).
        expect(ok(await s.call('browser_close', {}), 'close')).toMatch(/^### Result\n/)
      } finally {
        await s.end()
      }
    })
  }
})

describe(`the pinned tool list is what the installed @playwright/mcp lists (${pinned.version})`, () => {
  it('default set, and the vision and pdf capabilities', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'errands-parity-pin-'))
    try {
      const listed = async (extra: ReadonlyArray<string>) => {
        const client = await startPeer(dir, extra)
        try {
          return (await client.listTools()).tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema }))
        } finally {
          await client.close()
        }
      }
      const base = await listed([])
      expect(base).toEqual(pinned.default.map((t) => ({ name: t.name, inputSchema: t.inputSchema })))
      const names = new Set(base.map((t) => t.name))
      for (const cap of ['vision', 'pdf']) {
        const added = (await listed(['--caps', cap])).filter((t) => !names.has(t.name))
        expect(added, cap).toEqual(pinned.caps[cap]!.map((t) => ({ name: t.name, inputSchema: t.inputSchema })))
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
