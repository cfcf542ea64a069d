/**
 * A tool call run where the errand is (issue #24, A2 in a cluster): the tools work on a live
 * Playwright page, which cannot cross a process, so when an errand is held by another host the
 * whole call goes there — its name and arguments one way, its result the other, each through a
 * Schema — and the owner runs it on its own page with {@link runBrowserTool}.
 *
 * @example
 * const result = yield* runBrowserTool('browser_snapshot', { errand, refs }, {})
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { Effect, Schema } from 'effect'
import { z } from 'zod'
import { toolsWith } from './server.ts'
import { failure, type ToolContext } from './tools/tool.ts'

/**
 * A tool's result as it crosses between hosts: the text and image parts our tools answer with.
 *
 * @example
 * Schema.decodeUnknownSync(ToolResult)({ content: [{ type: 'text', text: 'ok' }] })
 */
export const ToolResult = Schema.Struct({
  content: Schema.Array(
    Schema.Union(
      Schema.Struct({ type: Schema.Literal('text'), text: Schema.String }),
      Schema.Struct({ type: Schema.Literal('image'), data: Schema.String, mimeType: Schema.String }),
    ),
  ),
  isError: Schema.optional(Schema.Boolean),
})
/** A tool's result. */
export type ToolResult = typeof ToolResult.Type

/**
 * Runs one of the browser tools by name on `ctx`'s errand, checking its arguments with the tool's
 * own input schema as the MCP server does; an unknown tool, bad arguments and the engine's
 * failures all come back as error results the model reads, never as a failure of the call.
 *
 * @example
 * yield* runBrowserTool('browser_navigate', ctx, { url: 'https://example.com/' })
 */
export const runBrowserTool = (name: string, ctx: ToolContext, args: unknown): Effect.Effect<ToolResult> => {
  const t = toolsWith(['vision', 'pdf']).find((tool) => tool.name === name)
  if (t === undefined)
    return Effect.succeed(
      failure({ message: `There is no tool ${JSON.stringify(name.slice(0, 100))} on this browser.` }) as ToolResult,
    )
  const parsed = z.object(t.inputSchema).safeParse(args ?? {})
  if (!parsed.success)
    return Effect.succeed(
      failure({
        message: `${name}: the arguments do not fit its schema (${parsed.error.issues
          .map((i) => i.path.join('.') || i.message)
          .join(', ')
          .slice(0, 300)}).`,
      }) as ToolResult,
    )
  return t.run(ctx, parsed.data as never).pipe(
    Effect.catchAll((e) => Effect.succeed(failure(e))),
    Effect.map((result: CallToolResult) => result as ToolResult),
  )
}
