/**
 * One MCP server per MCP session, over one errand (E1: the session's errand is a task's; the
 * agent cannot choose another context or leave it). The tools are registered with Playwright
 * MCP's names and input shapes; the SDK validates arguments against them (a wrong type is an
 * error result naming the field), and every failure of a tool — a stale ref, a refused URL,
 * `AllBusy`'s "wait a minute and try again", a timeout — is an error result too, never a crash.
 *
 * The Daily Browser's `browser_observe` (D4) is offered only while the session's key holds a
 * lease (paired or shared); the server tells the client when the tool list changes.
 *
 * @example
 * const server = makeErrandServer({ errand, refs: new RefBook(), log: console.error })
 * await server.connect(new StdioServerTransport())
 */
import { browserObserveTool, observeForModel, type DailyBrowserShape, type LeaseView } from '@errands/daily'
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { Cause, Effect, Exit, Runtime } from 'effect'
import type { ErrandBrowser } from './ErrandBrowser.ts'
import type { RefBook } from './refs.ts'
import { interactionTools } from './tools/interaction.ts'
import { navigationTools } from './tools/navigation.ts'
import { dialogTools } from './tools/dialog.ts'
import { pageTools } from './tools/page.ts'
import { tabTools } from './tools/tabs.ts'
import { personTools } from './tools/person.ts'
import { failure, text, type Tool, type ToolContext } from './tools/tool.ts'

/** The server's name and version as clients see them. @example SERVER_INFO.name // 'errands' */
export const SERVER_INFO = { name: 'errands', version: '0.1.0' } as const

/** Every browser tool, in the order clients list them. @example browserTools.map((t) => t.name) */
export const browserTools: ReadonlyArray<Tool<any>> = [...navigationTools, ...pageTools, ...interactionTools, ...tabTools, ...dialogTools, ...personTools]

/** What a session's server needs. @example makeErrandServer({ errand, refs: new RefBook(), log: console.error, daily }) */
export interface ErrandServerOptions {
  readonly errand: ErrandBrowser
  /** The refs of snapshots, shared by every session of one engine (Playwright keeps them per page). */
  readonly refs: RefBook
  /** Receives one line per tool defect; never arguments, URLs or page content (L7). */
  readonly log: (line: string) => void
  /** The Daily Browser, when this engine has one: `browser_observe` for the key's lease (bot id = session key). */
  readonly daily?: DailyBrowserShape | undefined
  /** Runs the tools' Effects (default: a runtime with Effect's default services). */
  readonly runtime?: Runtime.Runtime<never> | undefined
}

const holdsLease = (view: LeaseView | undefined): boolean => view?.state === 'awaiting' || view?.state === 'shared'

const INSTRUCTIONS =
  'This browser is an errand of its own: its cookies, storage and tabs belong to this session and no other. ' +
  'Take a snapshot (browser_snapshot) and act on elements by the refs of the latest snapshot; every action returns a fresh one. ' +
  'When the session ends, a browser bound to a session key (X-Browser-Session, --session) is parked and comes back as it was when that key connects again; ' +
  'one without a key is forgotten. browser_close sets the browser aside the same way.'

/**
 * Builds the MCP server of one session. The returned `close` stops listening for lease changes.
 *
 * @example
 * const { server, close } = makeErrandServer(options)
 */
export const makeErrandServer = (options: ErrandServerOptions): { readonly server: McpServer; readonly close: () => void } => {
  const { errand, refs, log } = options
  const runtime = options.runtime ?? Runtime.defaultRuntime
  const ctx: ToolContext = { errand, refs }
  const server = new McpServer(SERVER_INFO, { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS })

  const settle = async (name: string, effect: Effect.Effect<CallToolResult, { readonly message: string; readonly _tag: string }>, signal: AbortSignal): Promise<CallToolResult> => {
    const exit = await Runtime.runPromiseExit(runtime)(effect, { signal })
    if (Exit.isSuccess(exit)) return exit.value
    const failed = Cause.failureOption(exit.cause)
    if (failed._tag === 'Some') return failure(failed.value)
    if (Cause.isInterruptedOnly(exit.cause)) return failure({ message: 'The call was cancelled (the client cancelled it or the server is stopping); call again.' })
    log(`mcp: ${name} failed unexpectedly (${Cause.squash(exit.cause) instanceof Error ? (Cause.squash(exit.cause) as Error).name : 'defect'})`)
    return failure({ message: `${name} failed unexpectedly inside the server; try again, or take a new snapshot first.` })
  }

  for (const t of browserTools) {
    server.registerTool(
      t.name,
      { title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: { title: t.title, readOnlyHint: t.readOnly, destructiveHint: false, openWorldHint: true } },
      // Held by another host: the whole call runs there, on its page (remote.ts).
      (args: unknown, extra: { signal: AbortSignal }) => {
        const away = errand.elsewhere?.(t.name, args)
        return settle(t.name, away === undefined ? t.run(ctx, args as never) : Effect.map(away, (r) => r as CallToolResult), extra.signal)
      },
    )
  }

  let stopWatching = () => undefined as void
  const daily = options.daily
  if (daily !== undefined) {
    const observe: RegisteredTool = server.registerTool(
      'browser_observe',
      { title: 'Observe the shared tab', description: browserObserveTool.description, annotations: { readOnlyHint: true, openWorldHint: true } },
      (extra: { signal: AbortSignal }) =>
        settle('browser_observe', Effect.map(observeForModel(daily, errand.key), (r) => (r.ok ? text(r.text) : failure({ message: r.text }))), extra.signal),
    )
    const offer = (on: boolean) => {
      if (on !== observe.enabled) (on ? observe.enable() : observe.disable())
    }
    offer(holdsLease(Runtime.runSync(runtime)(daily.status(errand.key))))
    stopWatching = daily.onChange((view) => {
      if (view.botId === errand.key) offer(holdsLease(view))
    }) as () => void
  }
  return { server, close: () => stopWatching() }
}

