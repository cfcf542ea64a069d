/**
 * `@errands/mcp` — an MCP server (A2) on the official SDK: one errand per MCP session (a task's,
 * E1), tools named and shaped like Playwright MCP's core, over stdio and Streamable HTTP. The
 * engine side is an {@link ErrandBrowser} the host builds over its own page verbs (A3).
 *
 * @example
 * import { makeMcpHttp, RefBook } from '@errands/mcp'
 * const mcp = makeMcpHttp({ bind, refs: new RefBook(), log, idleMs: 900_000 })
 */
export * from './ErrandBrowser.ts'
export * from './errors.ts'
export * from './refs.ts'
export { onPlaywrightPage, playwrightPage } from './playwrightPage.ts'
export * from './pageLog.ts'
export * from './uploads.ts'
export * from './lifecycle.ts'
export * from './server.ts'
export * from './resources.ts'
export * from './http.ts'
export * from './stdio.ts'
export * from './remote.ts'
export { listTabs } from './tools/tabs.ts'
export { shownUrl, type Tool, type ToolContext } from './tools/tool.ts'
