/**
 * The SDK's own MCP `Client` for the tests, over Streamable HTTP (against a real host's `/mcp`)
 * or stdio (spawning the real CLI entry point, as a desktop agent does), and a reader of tool
 * results.
 *
 * @example
 * const mcp = await httpClient(host.url, { key: 'task-42' })
 * const r = await mcp.call('browser_navigate', { url: shop.url('/') })
 * await mcp.end()
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { join, resolve } from 'node:path'
import { eventually } from '../fixtures/processes.ts'

/** A tool result, read. @example const { isError, text, images } = await mcp.call('browser_take_screenshot') */
export interface Result {
  readonly isError: boolean
  /** Every text part, joined. */
  readonly text: string
  readonly images: ReadonlyArray<{ readonly data: Buffer; readonly mimeType: string }>
}

/** A connected client. @example await mcp.call('browser_click', { element: 'Add', ref: mcp.refOf(text, /Add/) }) */
export interface McpClient {
  readonly client: Client
  readonly call: (name: string, args?: Record<string, unknown>) => Promise<Result>
  /** The ref of the first snapshot line matching `pattern` in `text` (e.g. /button "Add apple"/). */
  readonly refOf: (text: string, pattern: RegExp) => string
  /** Ends the session the way a client that leaves does. */
  readonly end: () => Promise<void>
}

/** A tool call's raw answer as text and images. @example read(await client.callTool({ name: 'browser_snapshot' })) */
export const read = (raw: unknown): Result => {
  const r = raw as {
    isError?: boolean
    content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>
  }
  return {
    isError: r.isError === true,
    text: r.content
      .filter((c) => c.type === 'text')
      .map((c) => c.text)
      .join('\n'),
    images: r.content
      .filter((c) => c.type === 'image')
      .map((c) => ({ data: Buffer.from(c.data!, 'base64'), mimeType: c.mimeType! })),
  }
}

/**
 * The ref of the first snapshot line that matches.
 *
 * @example
 * refOf(text, /button "Add apple"/) // 'e5'
 */
export const refOf = (text: string, pattern: RegExp): string => {
  const line = text.split('\n').find((l) => pattern.test(l))
  const ref = line === undefined ? undefined : /\[ref=([A-Za-z0-9]+)\]/.exec(line)?.[1]
  if (ref === undefined) throw new Error(`no ref for ${pattern} in:\n${text}`)
  return ref
}

const wrap = (client: Client, end: () => Promise<void>): McpClient => ({
  client,
  call: async (name, args = {}) => read(await client.callTool({ name, arguments: args })),
  refOf,
  end,
})

/**
 * Connects over Streamable HTTP to `${base}/mcp`, bound to `key` when given.
 *
 * @example
 * const mcp = await httpClient(host.url, { key: 'k1' })
 */
export const httpClient = async (
  base: string,
  o: { readonly key?: string; readonly headers?: Record<string, string> } = {},
) => {
  const headers = { ...(o.key !== undefined ? { 'x-browser-session': o.key } : {}), ...o.headers }
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } })
  const client = new Client({ name: 'errands-test', version: '1.0.0' })
  await client.connect(transport)
  return {
    ...wrap(client, async () => {
      // A client that leaves well: it ends its MCP session (DELETE), then closes.
      await transport.terminateSession()
      await client.close()
    }),
    transport,
  }
}

const repo = resolve(import.meta.dirname, '../..')

/**
 * Spawns `errands mcp` — the CLI's entry point, or `npm start -- mcp` — and connects over its stdio.
 *
 * @example
 * const mcp = await stdioClient({ ERRANDS_DATA_DIR: dir }, ['--session', 'k1'])
 */
export const stdioClient = async (
  env: Record<string, string>,
  args: ReadonlyArray<string> = [],
  via: 'cli' | 'npm' = 'cli',
) => {
  const transport = new StdioClientTransport({
    // The issue's own command. npm prints its banner on stdout first; the SDK's client skips
    // lines that are not JSON-RPC (docs/mcp.md tells stricter clients to add --silent).
    command: via === 'npm' ? 'npm' : process.execPath,
    args: via === 'npm' ? ['start', '--', 'mcp', ...args] : [join(repo, 'packages/cli/dist/main.js'), 'mcp', ...args],
    cwd: repo,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (d) => (stderr += d))
  const client = new Client({ name: 'errands-test', version: '1.0.0' })
  await client.connect(transport)
  const pid = transport.pid!
  const alive = () => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }
  return {
    ...wrap(client, async () => {
      // What a desktop agent does: close stdin (the SDK then waits for the process to exit).
      await client.close()
      await eventually(() => !alive(), 15_000)
    }),
    stderr: () => stderr,
    alive,
  }
}
