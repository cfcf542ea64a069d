/**
 * Where an MCP tool call runs (A2, issue #24). On one host, here: the tool drives the errand's
 * page through `Browsing.onPage`. In a cluster an errand may be held by another host, and a page
 * cannot cross a process, so the cluster replaces {@link McpRoute} with one that sends the whole
 * call to the errand's owner, which runs it with `toolRunner` (mcp.ts).
 *
 * @example
 * const route = yield* McpRoute
 * route.elsewhere(key, 'browser_snapshot', {}) // undefined: run it here
 */
import type { EngineFailure, ToolResult } from '@errands/mcp'
import { Context, type Effect, Layer } from 'effect'
import type { SessionKey } from './sessionKey.ts'

/** The service: a tool call for `key` run elsewhere, or `undefined` to run it here. */
export interface McpRouteShape {
  readonly elsewhere: (key: SessionKey, tool: string, args: unknown) => Effect.Effect<ToolResult, EngineFailure> | undefined
}

/** Where MCP tool calls run. @example Layer.succeed(McpRoute, { elsewhere: () => undefined }) */
export class McpRoute extends Context.Tag('@errands/host/McpRoute')<McpRoute, McpRouteShape>() {
  /** Every call runs here (a single host). @example McpRoute.here */
  static readonly here: Layer.Layer<McpRoute> = Layer.succeed(McpRoute, { elsewhere: () => undefined })
}
