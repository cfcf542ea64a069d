// biome-ignore-all lint/suspicious/noExplicitAny: a list holds tools of every input shape (Tool<any>)
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
import { onlyReads } from '@errands/runtime'
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { Cause, Effect, Exit, Runtime } from 'effect'
import type { ErrandBrowser } from './ErrandBrowser.ts'
import { listLikePlaywrightMcp } from './listing.ts'
import { PageLogs } from './pageLog.ts'
import type { RefBook } from './refs.ts'
import { registerDownloads } from './resources.ts'
import { devtoolsTools } from './tools/devtools.ts'
import { dialogTools } from './tools/dialog.ts'
import { formTools } from './tools/form.ts'
import { interactionTools } from './tools/interaction.ts'
import { navigationTools } from './tools/navigation.ts'
import { pageTools } from './tools/page.ts'
import { pdfTools } from './tools/pdf.ts'
import { tabTools } from './tools/tabs.ts'
import { personTools } from './tools/person.ts'
import { passwordTools } from './tools/passwords.ts'
import { fileTools } from './tools/files.ts'
import { failure, text, type Tool, type ToolContext } from './tools/tool.ts'
import { viewTools } from './tools/view.ts'
import { visionTools } from './tools/vision.ts'

/** The server's name and version as clients see them. @example SERVER_INFO.name // 'errands' */
export const SERVER_INFO = { name: 'errands', version: '0.1.0' } as const

/**
 * The browser tools every session has: Playwright MCP 0.0.86's default set (pinned in
 * pinned/playwright-mcp.json) but `browser_run_code_unsafe`, which runs code in the server
 * process, outside any errand (docs/mcp.md).
 *
 * @example
 * browserTools.map((t) => t.name)
 */
export const browserTools: ReadonlyArray<Tool<any>> = [
  ...navigationTools,
  ...pageTools,
  ...interactionTools,
  ...formTools,
  ...devtoolsTools,
  ...viewTools,
  ...tabTools,
  ...dialogTools,
  ...personTools,
  ...passwordTools,
  ...fileTools,
]

/**
 * The optional capabilities, as Playwright MCP's `--caps` names them. @example const caps: ReadonlyArray<Capability> =
 * ['vision']
 */
export type Capability = 'vision' | 'pdf'

/** The tools each capability adds. @example capabilityTools.vision.length // 6 */
export const capabilityTools: Readonly<Record<Capability, ReadonlyArray<Tool<any>>>> = {
  vision: visionTools,
  pdf: pdfTools,
}

/**
 * The capabilities a `--caps` value names (Playwright MCP's comma-separated list); an unknown
 * one is an error naming it. `devtools`, which Playwright MCP also has, is not offered.
 *
 * @example
 * parseCaps('vision,pdf') // { caps: ['vision', 'pdf'] }
 * parseCaps('devtools')   // { error: 'unknown capability "devtools" (known: vision, pdf)' }
 */
export const parseCaps = (value: string): { readonly caps: ReadonlyArray<Capability> } | { readonly error: string } => {
  const names = value
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '')
  const unknown = names.find((c) => !(c in capabilityTools))
  return unknown === undefined
    ? { caps: [...new Set(names as Array<Capability>)] }
    : { error: `unknown capability ${JSON.stringify(unknown)} (known: ${Object.keys(capabilityTools).join(', ')})` }
}

/**
 * The tools of a session with these capabilities.
 *
 * @example
 * toolsWith(['pdf']).at(-1)!.name // 'browser_pdf_save'
 */
export const toolsWith = (caps: ReadonlyArray<Capability> = []): ReadonlyArray<Tool<any>> => [
  ...browserTools,
  ...caps.flatMap((c) => capabilityTools[c]),
]

/**
 * What a session's server needs. @example makeErrandServer({ errand, refs: new RefBook(), log: console.error, daily })
 */
export interface ErrandServerOptions {
  readonly errand: ErrandBrowser
  /** The refs of snapshots, shared by every session of one engine (Playwright keeps them per page). */
  readonly refs: RefBook
  /** Receives one line per tool defect; never arguments, URLs or page content (L7). */
  readonly log: (line: string) => void
  /** The Daily Browser, when this engine has one: `browser_observe` for the key's lease (bot id = session key). */
  readonly daily?: DailyBrowserShape | undefined
  /** What each page said and fetched (shared by the engine's sessions, like `refs`; default: a fresh one). */
  readonly logs?: PageLogs | undefined
  /** Optional capabilities (`--caps vision,pdf`), as Playwright MCP offers them. */
  readonly caps?: ReadonlyArray<Capability> | undefined
  /** Runs the tools' Effects (default: a runtime with Effect's default services). */
  readonly runtime?: Runtime.Runtime<never> | undefined
}

const holdsLease = (view: LeaseView | undefined): boolean => view?.state === 'awaiting' || view?.state === 'shared'

const INSTRUCTIONS =
  'This browser is an errand of its own: its cookies, storage and tabs belong to this session and no other. ' +
  'Take a snapshot (browser_snapshot) and act on elements by the refs of the latest snapshot; every action returns a ' +
  'fresh one. ' +
  'When the session ends, a browser bound to a session key (X-Browser-Session, --session) is parked and comes back ' +
  'as it was when that key connects again; ' +
  'one without a key is forgotten. browser_close sets the browser aside the same way.'

/**
 * Builds the MCP server of one session. The returned `close` stops listening for lease changes.
 *
 * @example
 * const { server, close } = makeErrandServer(options)
 */
export const makeErrandServer = (
  options: ErrandServerOptions,
): { readonly server: McpServer; readonly close: () => void } => {
  const { errand, refs, log } = options
  const runtime = options.runtime ?? Runtime.defaultRuntime
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: true } },
    instructions: INSTRUCTIONS,
  })
  // A download landed: the session's resource list (its errand's downloads) changed.
  const landed = () => server.sendResourceListChanged()
  const ctx: ToolContext = { errand, refs, logs: options.logs ?? new PageLogs(), landed }
  registerDownloads(server, errand, runtime)

  const settle = async (
    name: string,
    effect: Effect.Effect<CallToolResult, { readonly message: string; readonly _tag: string }>,
    signal: AbortSignal,
  ): Promise<CallToolResult> => {
    const exit = await Runtime.runPromiseExit(runtime)(effect, { signal })
    if (Exit.isSuccess(exit)) return exit.value
    const failed = Cause.failureOption(exit.cause)
    if (failed._tag === 'Some') return failure(failed.value)
    if (Cause.isInterruptedOnly(exit.cause))
      return failure({
        message: 'The call was cancelled (the client cancelled it or the server is stopping); call again.',
      })
    log(
      `mcp: ${name} failed unexpectedly ` +
        `(${Cause.squash(exit.cause) instanceof Error ? (Cause.squash(exit.cause) as Error).name : 'defect'})`,
    )
    return failure({
      message: `${name} failed unexpectedly inside the server; try again, or take a new snapshot first.`,
    })
  }

  for (const t of toolsWith(options.caps)) {
    // One list says which calls only read, for the host's verbs and these tools (@errands/runtime).
    const reads = onlyReads(t.name)
    server.registerTool(
      t.name,
      {
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: { title: t.title, readOnlyHint: reads, destructiveHint: !reads, openWorldHint: true },
      },
      // Held by another host: the whole call runs there, on its page (remote.ts).
      (args: unknown, extra: { signal: AbortSignal }) => {
        // P1: while a person has the wheel, the tools that act are refused in the host's words;
        // reads and the tools that ask the person still answer.
        const driving = errand.wheelRefusal?.(t.name)
        if (driving !== undefined) return Promise.resolve(failure({ message: driving }))
        const away = errand.elsewhere?.(t.name, args)
        return settle(
          t.name,
          away === undefined ? t.run(ctx, args as never) : Effect.map(away, (r) => r as CallToolResult),
          extra.signal,
        )
      },
    )
  }

  let stopWatching: () => void = () => undefined
  const daily = options.daily
  if (daily !== undefined) {
    const observe: RegisteredTool = server.registerTool(
      'browser_observe',
      {
        title: 'Observe the shared tab',
        description: browserObserveTool.description,
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      (extra: { signal: AbortSignal }) =>
        settle(
          'browser_observe',
          Effect.map(observeForModel(daily, errand.key), (r) => (r.ok ? text(r.text) : failure({ message: r.text }))),
          extra.signal,
        ),
    )
    const offer = (on: boolean) => {
      if (on !== observe.enabled) on ? observe.enable() : observe.disable()
    }
    offer(holdsLease(Runtime.runSync(runtime)(daily.status(errand.key))))
    stopWatching = daily.onChange((view) => {
      if (view.botId === errand.key) offer(holdsLease(view))
    }) as () => void
  }
  // Playwright MCP's pinned list requires its defaulted fields (listing.ts).
  listLikePlaywrightMcp(server)
  return {
    server,
    close: () => {
      stopWatching()
      ctx.logs.forget(landed)
    },
  }
}
