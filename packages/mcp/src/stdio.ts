/**
 * MCP over stdio — the way desktop agents launch servers (`npx errands mcp`): one MCP session
 * for the life of the process, over one errand. Stdout is the protocol; every log line goes to
 * stderr. The session ends when the client closes stdin (or the process is told to stop); the
 * caller then ends the errand ({@link endErrand}) and shuts the engine down (E5: what is open
 * is parked).
 *
 * @example
 * await serveStdio({ errand, refs: new RefBook(), log })
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { Readable, Writable } from 'node:stream'
import { makeErrandServer, type ErrandServerOptions } from './server.ts'

/**
 * What the stdio session needs: the server's options, and the streams (default the process's). @example serveStdio({
 * errand, refs, log, stdin: process.stdin, stdout: process.stdout })
 */
export interface StdioOptions extends ErrandServerOptions {
  readonly stdin?: Readable | undefined
  readonly stdout?: Writable | undefined
  /** Resolves when the process is told to stop (a signal): the session ends as when stdin closes. */
  readonly stop?: Promise<unknown> | undefined
}

/**
 * Serves one MCP session on stdio; resolves when it ended (stdin closed, or `stop`).
 *
 * @example
 * await serveStdio({ errand, refs, log, stop: signalled })
 */
export const serveStdio = async (options: StdioOptions): Promise<void> => {
  const stdin = options.stdin ?? process.stdin
  const stdout = options.stdout ?? process.stdout
  const { server, close } = makeErrandServer(options)
  const transport = new StdioServerTransport(stdin, stdout)
  // The SDK's stdio transport does not notice that stdin ended: the client left.
  const left = new Promise<void>((resolve) => {
    stdin.once('end', resolve)
    stdin.once('close', resolve)
    transport.onclose = () => resolve()
  })
  await server.connect(transport)
  await Promise.race([left, ...(options.stop ? [options.stop] : [])])
  close()
  await server.close().catch(() => undefined)
}
