/**
 * A tool as this package defines it: Playwright MCP's name and input shape (a zod raw shape, as
 * the SDK takes it), and a `run` that is an Effect over the session's errand. Results and
 * failures are rendered the way Playwright MCP renders them (`### Page state` with the URL, the
 * title and a fresh snapshot after an action; `### Error` with a message otherwise), so agents
 * and prompts written for it carry over.
 *
 * URLs in what this package writes itself (page lines, tab lists) lose their query string and
 * fragment (L7: a query may carry a token); the page's own content is the page's.
 *
 * @example
 * const tool: Tool<{ url: z.ZodString }> = { name: 'browser_navigate', description: '…', inputSchema: { url: z.string() }, run }
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { Effect } from 'effect'
import type { Page } from 'playwright-core'
import type { z } from 'zod'
import type { EngineFailure, ErrandBrowser } from '../ErrandBrowser.ts'
import type { RefBook } from '../refs.ts'
import { onPlaywrightPage } from '../playwrightPage.ts'

/** What a tool works with: the session's errand and the refs of its pages' snapshots. @example browserSnapshot.run({ errand, refs: new RefBook() }, {}) */
export interface ToolContext {
  readonly errand: ErrandBrowser
  readonly refs: RefBook
}

/** One tool. @example server.registerTool(t.name, { description: t.description, inputSchema: t.inputSchema }, handler) */
export interface Tool<S extends z.ZodRawShape = z.ZodRawShape> {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: S
  readonly readOnly: boolean
  readonly run: (ctx: ToolContext, args: z.objectOutputType<S, z.ZodTypeAny>) => Effect.Effect<CallToolResult, EngineFailure>
}

/**
 * Declares a tool (keeps the argument types of `run` tied to its schema).
 *
 * @example
 * export const back = tool({ name: 'browser_navigate_back', title: 'Go back', description: '…', inputSchema: {}, readOnly: false, run })
 */
export const tool = <S extends z.ZodRawShape>(t: Tool<S>): Tool<S> => t

/**
 * A URL as this package writes it: without its query and fragment (`?…` marks that there was one).
 *
 * @example
 * shownUrl('https://shop.example/cart?token=abc#x') // 'https://shop.example/cart?…'
 */
export const shownUrl = (url: string): string => {
  try {
    const u = new URL(url)
    if (u.protocol === 'about:' || u.protocol === 'data:' || u.protocol === 'blob:') return `${u.protocol}${u.protocol === 'about:' ? u.pathname : '…'}`
    return `${u.origin}${u.pathname}${u.search !== '' || u.hash !== '' ? '?…' : ''}`
  } catch {
    return '(not a URL)'
  }
}

/**
 * A text result.
 *
 * @example
 * text('No open tabs.')
 */
export const text = (body: string): CallToolResult => ({ content: [{ type: 'text', text: body }] })

/**
 * An error result (the model reads `message` and acts on it).
 *
 * @example
 * failure({ _tag: 'AllBusy', message: 'All 4 browser slots are busy …; wait a minute and try again.' })
 */
export const failure = (e: { readonly message: string }): CallToolResult => ({ content: [{ type: 'text', text: `### Error\n${e.message}` }], isError: true })

/** Text of the active page: URL, title, and a fresh snapshot (its refs become the tab's latest). */
const pageState = (ctx: ToolContext, page: Page): Promise<string> =>
  (async () => {
    // A click may have started a navigation: give the new document a moment, never fail for it.
    await page.waitForLoadState('domcontentloaded', { timeout: 5_000 }).catch(() => undefined)
    const { yaml, truncated } = await ctx.refs.snapshot(page)
    const title = await page.title().catch(() => '')
    return [
      '### Page state',
      `- Page URL: ${shownUrl(page.url())}`,
      `- Page Title: ${title}`,
      '- Page Snapshot:',
      '```yaml',
      yaml,
      '```',
      ...(truncated ? ['(the snapshot was cut; it is too long to show whole)'] : []),
    ].join('\n')
  })()

/**
 * The result of an action: what was done, then the active tab's state with a fresh snapshot (its
 * refs are the ones to use next).
 *
 * @example
 * yield* afterAction(ctx, 'Clicked "Add apple" (ref e3).')
 */
export const afterAction = (ctx: ToolContext, done: string): Effect.Effect<CallToolResult, EngineFailure> =>
  Effect.map(onPlaywrightPage(ctx.errand, 'snapshot', (page) => pageState(ctx, page)), (state) => text(done === '' ? state : `${done}\n\n${state}`))
