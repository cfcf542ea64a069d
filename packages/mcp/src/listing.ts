/**
 * The tool list as Playwright MCP lists it (docs/mcp.md, the pinned list `pinned/playwright-mcp.json`):
 * a field with a default is **required** in its JSON Schema — Playwright MCP converts its zod 4
 * schemas for their output, where a defaulted field is always there (`browser_take_screenshot`'s
 * `scale`) — while a call may still leave it out and get the default. The SDK converts ours for
 * their input (a defaulted field optional); this lists them as Playwright MCP does, and the
 * arguments are still parsed by the same zod schemas.
 *
 * @example
 * listLikePlaywrightMcp(server) // after every registerTool
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { ListToolsRequestSchema, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js'

type Handler = (request: unknown, extra: unknown) => Promise<unknown>

/**
 * A tool's input schema with every defaulted property required.
 *
 * @example
 * requireDefaults({ type: 'object', properties: { scale: { type: 'string', default: 'css' } } }).required // ['scale']
 */
export const requireDefaults = (schema: ListToolsResult['tools'][number]['inputSchema']) => {
  const properties = (schema.properties ?? {}) as Record<string, { readonly default?: unknown }>
  const defaulted = Object.keys(properties).filter((k) => properties[k]?.default !== undefined)
  if (defaulted.length === 0) return schema
  return { ...schema, required: [...new Set([...(schema.required ?? []), ...defaulted])] }
}

/**
 * Wraps the server's `tools/list` answer (the SDK's own, so tools enabled later are listed too) to
 * list defaulted fields as required. Call it once every tool is registered.
 *
 * @example
 * listLikePlaywrightMcp(server)
 */
export const listLikePlaywrightMcp = (server: McpServer): void => {
  // The SDK keeps its handlers in a map it does not export; its own list is the one to reshape.
  const handlers = (server.server as unknown as { readonly _requestHandlers?: Map<string, Handler> })._requestHandlers
  const original = handlers?.get('tools/list')
  if (original === undefined) return
  server.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const listed = (await original(request, extra)) as ListToolsResult
    return { ...listed, tools: listed.tools.map((t) => ({ ...t, inputSchema: requireDefaults(t.inputSchema) })) }
  })
}
