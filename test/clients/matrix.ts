/**
 * The compatibility matrix's shared parts (issue #22): one agent task every client runs, the
 * site it runs on, a plain Chromium to run it against (launched with `--remote-debugging-port=0`
 * and our switches), the shipped host's errand to run it through, and the comparison.
 *
 * The task's steps, each `ok` or what went wrong: navigate, read, click, type, dialog (accept a
 * `confirm()`: the page must get `true`), newTab (a `target=_blank` link), switch, close,
 * screenshot, cdp (a raw CDP session of the client's own kind). A client's test runs the task
 * against both and expects the errand's results to equal Chromium's — except the steps named in
 * its `expectedRefused`, proxy items still being built (docs/devtools-endpoint.md): those must
 * still be refused through the errand (so the test turns red, to be updated, when they land).
 *
 * @example
 * const env = useMatrix()
 * const { plain, errand } = await both(env, { name: 'x', key: 'matrix-x', task: (wsUrl) => runTask({ navigate: …, … })
 * })
 * compare(plain, errand)
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { chromiumArgs } from '@errands/runtime-chromium'
import { afterAll, beforeAll, expect } from 'vitest'
import { startShippedHost, type ShippedHost } from '../fixtures/shippedHost.ts'
import { NOT_OFFERED, STEPS, type Outcome, type Step } from './task.ts'

export { firstLine, must, NOT_OFFERED, runTask, STEPS, type Outcome, type Step } from './task.ts'

/** The task site: `/task` (heading, button, field, confirm button, new-tab link) and `/other`. */
export interface TaskSite {
  readonly url: (path: string) => string
  readonly close: () => Promise<void>
}

const TASK = `<!doctype html><html><head><title>Task</title><link rel="icon" href="data:,"></head><body>
<h1 id="h">Hello task</h1>
<button id="b" style="position:absolute;left:20px;top:80px;width:120px;height:30px"
  onclick="document.getElementById('h').textContent='Clicked'">Click</button>
<input id="i" style="position:absolute;left:20px;top:130px;width:200px;height:30px">
<button id="c" style="position:absolute;left:20px;top:180px;width:120px;height:30px"
  onclick="document.title='confirm:'+confirm('Sure?')">Confirm</button>
<a id="n" href="/other" target="_blank" style="position:absolute;left:20px;top:230px">Open other</a>
</body></html>`
const OTHER =
  `<!doctype html><html><head><title>Other</title><link rel="icon" href="data:,"></head><body><p>Other ` +
  `page</p></body></html>`

/**
 * Serves the task site on a free loopback port.
 *
 * @example
 * const site = await serveTaskSite()
 */
export const serveTaskSite = async (): Promise<TaskSite> => {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    const body = path === '/task' ? TASK : path === '/other' ? OTHER : undefined
    if (body === undefined) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return {
    url: (p) => `http://127.0.0.1:${port}${p}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

/** A plain Chromium with a DevTools port, our switches. */
export interface PlainChromium {
  /** `ws://127.0.0.1:PORT/devtools/browser/<id>` */
  readonly wsUrl: string
  /** `http://127.0.0.1:PORT` */
  readonly httpUrl: string
  readonly close: () => Promise<void>
}

const launchPlain = async (): Promise<PlainChromium> => {
  const dir = mkdtempSync(join(tmpdir(), 'errands-plain-'))
  const executable = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium'
  const child: ChildProcess = spawn(
    executable,
    [...chromiumArgs(), '--remote-debugging-port=0', `--user-data-dir=${dir}`, 'about:blank'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  )
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  const wsUrl = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(line)
      if (m) resolve(m[1]!)
    })
    void exited.then(() => reject(new Error('plain Chromium exited before it listened')))
  })
  return {
    wsUrl,
    httpUrl: wsUrl.replace(/^ws:/, 'http:').replace(/\/devtools\/.*$/, ''),
    close: async () => {
      child.kill('SIGTERM')
      await exited
      // Its helper processes may still be writing the profile for a while after the browser
      // exits (seconds, on a loaded machine); a profile left in the temp dir fails no test.
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 30, retryDelay: 200 })
      } catch {}
    },
  }
}

/**
 * The `http://` endpoint of a DevTools URL, as a client given a browser URL uses it: plain
 * Chromium's port (`ws://…/devtools/browser/<id>` → `http://host:port`), an errand's own URL
 * (`ws://…/devtools/<token>` → `http://…/devtools/<token>`, discovery under it).
 *
 * @example
 * httpEndpoint('ws://127.0.0.1:9222/devtools/browser/ab') // 'http://127.0.0.1:9222'
 */
export const httpEndpoint = (wsUrl: string): string => {
  const http = wsUrl.replace(/^ws:/, 'http:')
  return /\/devtools\/browser\//.test(http) ? http.replace(/\/devtools\/browser\/.*$/, '') : http
}

/** What a client's test gets. */
export interface MatrixEnv {
  readonly host: ShippedHost
  readonly plain: PlainChromium
  readonly site: TaskSite
}

/**
 * One shipped host, one plain Chromium and the task site for the file (every client of the
 * matrix: starting the host is most of a client's cost); stopped after. Each client has an
 * errand of its own, so the host may keep one session per client.
 *
 * @example
 * const env = useMatrix()
 */
export const useMatrix = (): (() => MatrixEnv) => {
  let value: MatrixEnv | undefined
  beforeAll(async () => {
    const [host, plain, site] = await Promise.all([
      startShippedHost({ ERRANDS_MAX_SESSIONS: '12' }),
      launchPlain(),
      serveTaskSite(),
    ])
    value = { host, plain, site }
  })
  afterAll(async () => {
    await Promise.all([value?.host.stop(), value?.plain.close(), value?.site.close()])
  })
  return () => {
    if (value === undefined) throw new Error('useMatrix: not started yet')
    return value
  }
}

/** Which browser a task runs against. */
export type Side = 'plain' | 'errand'

/** One client of the matrix: a module of test/clients/, run by matrix.test.ts. */
export interface MatrixClient {
  /** The package and how it connects, e.g. `playwright-core (connectOverCDP)`. */
  readonly name: string
  /** Its errand's session key. */
  readonly key: string
  /**
   * The task against `wsUrl`. `side` names which browser, for clients that keep state per name
   * (daemons, sockets).
   */
  readonly task: (wsUrl: string, side: Side, site: TaskSite) => Promise<Outcome>
  /** Steps the errand refuses on purpose (step → why); see `compare`. */
  readonly refused?: Partial<Record<Step, string>>
}

/**
 * Runs `client`'s task against the plain Chromium and through its errand of the host at the
 * same time (two browsers, independent): the wall time is the slower of the two, not their sum.
 *
 * @example
 * const { plain, errand } = await both(env, client)
 */
export const both = async (
  env: () => MatrixEnv,
  client: MatrixClient,
): Promise<{ plain: Outcome; errand: Outcome }> => {
  const { host, plain: chromium, site } = env()
  const [plain, errand] = await Promise.all([
    client.task(chromium.wsUrl, 'plain', site),
    host.devtoolsUrl(client.key).then((url) => client.task(url, 'errand', site)),
  ])
  return { plain, errand }
}

/**
 * The comparison: every step the client offers works against Chromium; through the errand each equals Chromium's,
 * except `expectedRefused` (step → why), which must still fail there.
 *
 * @example
 * compare(plain, errand, { cdp: 'Target.attachToBrowserTarget: proxy item in progress' })
 */
export const compare = (plain: Outcome, errand: Outcome, expectedRefused: Partial<Record<Step, string>> = {}): void => {
  // MATRIX_LOG=1 prints both rows (what docs/devtools-endpoint.md's table is written from).
  if (process.env.MATRIX_LOG === '1') console.log(JSON.stringify({ plain, errand }, null, 1))
  const offered = (s: Step) => !plain[s].startsWith(NOT_OFFERED)
  expect(plain, 'the task against plain Chromium').toEqual(
    Object.fromEntries(STEPS.map((s) => [s, offered(s) ? 'ok' : plain[s]])),
  )
  const expected = Object.fromEntries(
    STEPS.map((s) => [s, !offered(s) ? plain[s] : s in expectedRefused ? errand[s] : 'ok']),
  )
  expect(errand, 'the task through the errand').toEqual(expected)
  for (const [step, why] of Object.entries(expectedRefused)) {
    expect(errand[step as Step], `${step} is listed as refused (${why}); it works now: update the matrix`).not.toBe(
      'ok',
    )
  }
}

/**
 * A package's installed version and the path of one of its `bin` scripts (read from its
 * package.json in the repo's node_modules; most of these packages export neither).
 *
 * @example
 * installed('@playwright/mcp', 'playwright-mcp') // { version: '0.0.86', bin: '/…/cli.js' }
 */
export const installed = (pkg: string, bin?: string): { version: string; bin: string } => {
  const dir = join(import.meta.dirname, '../../node_modules', pkg)
  const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    version: string
    bin?: string | Record<string, string>
  }
  const path = typeof json.bin === 'string' ? json.bin : bin !== undefined ? json.bin?.[bin] : undefined
  return { version: json.version, bin: path === undefined ? '' : join(dir, path) }
}

/** An MCP server spawned over stdio, as an agent's host spawns it. */
export interface McpServer {
  /** Calls tool `name`; resolves with its text (and images), rejects with the text of an `isError` result. */
  readonly call: (name: string, args?: Record<string, unknown>) => Promise<McpResult>
  /** What the server wrote on stderr so far. */
  readonly stderr: () => string
  readonly close: () => Promise<void>
}

/** A tool's answer: its text parts joined, and its image parts. */
export interface McpResult {
  readonly text: string
  readonly images: ReadonlyArray<{ readonly mimeType: string; readonly data: string }>
}

/**
 * Spawns `node <script> ...args` as an MCP stdio server with the official SDK client and
 * initializes it.
 *
 * @example
 * const mcp = await startMcpServer(require.resolve('@playwright/mcp/cli.js'), ['--cdp-endpoint', url])
 * const { text } = await mcp.call('browser_snapshot')
 */
export const startMcpServer = async (
  script: string,
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
): Promise<McpServer> => {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script, ...args],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  })
  let err = ''
  transport.stderr?.on('data', (d) => (err += d))
  const client = new Client({ name: 'errands-matrix', version: '1.0.0' })
  await client.connect(transport)
  return {
    call: async (name, toolArgs = {}) => {
      const result = (await client.callTool({ name, arguments: toolArgs }, undefined, { timeout: 30_000 })) as {
        content?: Array<{ type: string; text?: string; data?: string; mimeType?: string }>
        isError?: boolean
      }
      const content = result.content ?? []
      const text = content
        .filter((c) => c.type === 'text')
        .map((c) => c.text ?? '')
        .join('\n')
      if (result.isError === true) throw new Error(`${name}: ${text.replace(/^#+ ?Error\s*/i, '').trim()}`)
      const images = content
        .filter((c) => c.type === 'image')
        .map((c) => ({ mimeType: c.mimeType ?? '', data: c.data ?? '' }))
      return { text, images }
    },
    stderr: () => err,
    close: () => client.close(),
  }
}
