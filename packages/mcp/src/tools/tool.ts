/**
 * A tool as this package defines it: Playwright MCP's name and input shape (a zod raw shape, as
 * the SDK takes it), and a `run` that is an Effect over the session's errand. Results and
 * failures are rendered the way Playwright MCP renders them (`### Result`, `### Page` with the URL
 * and the title, `### Modal state`, `### Snapshot` with a fresh snapshot after an action; `### Error` with a message
 * otherwise), so agents
 * and prompts written for it carry over.
 *
 * URLs in what this package writes itself (page lines, tab lists) lose their query string and
 * fragment (L7: a query may carry a token); the page's own content is the page's.
 *
 * @example
 * const tool: Tool<{ url: z.ZodString }> = { name: 'browser_navigate', description: '…', inputSchema: { url:
 * z.string() }, run }
 */
import { pageLogOf } from '@errands/runtime'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { Effect } from 'effect'
import type { Page } from 'playwright-core'
import type { z } from 'zod'
import type { EngineFailure, ErrandBrowser } from '../ErrandBrowser.ts'
import type { PageLogs } from '../pageLog.ts'
import type { RefBook } from '../refs.ts'
import { onPlaywrightPage } from '../playwrightPage.ts'

/**
 * What a tool works with: the session's errand and the refs of its pages' snapshots. @example browserSnapshot.run({
 * errand, refs: new RefBook() }, {})
 */
export interface ToolContext {
  readonly errand: ErrandBrowser
  readonly refs: RefBook
  /**
   * What each page waits on (modal state) and the downloads not shown yet; console and requests are the runtime's
   * (`pageLogOf`).
   */
  readonly logs: PageLogs
  /** Told when a download of a page this session saw has landed (its resource list changed). */
  readonly landed?: (() => void) | undefined
}

/**
 * One tool. @example server.registerTool(t.name, { description: t.description, inputSchema: t.inputSchema }, handler)
 */
export interface Tool<S extends z.ZodRawShape = z.ZodRawShape> {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: S
  readonly run: (
    ctx: ToolContext,
    args: z.objectOutputType<S, z.ZodTypeAny>,
  ) => Effect.Effect<CallToolResult, EngineFailure>
}

/**
 * Declares a tool (keeps the argument types of `run` tied to its schema).
 *
 * @example
 * export const back = tool({ name: 'browser_navigate_back', title: 'Go back', description: '…', inputSchema: {}, run })
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
    if (u.protocol === 'about:' || u.protocol === 'data:' || u.protocol === 'blob:')
      return `${u.protocol}${u.protocol === 'about:' ? u.pathname : '…'}`
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
export const failure = (e: { readonly message: string }): CallToolResult => ({
  content: [{ type: 'text', text: `### Error\n${e.message}` }],
  isError: true,
})

/**
 * The sections Playwright MCP prints after a tool ran, for the active page: `### Page` (URL,
 * title, console counts), `### Modal state` when a dialog or file chooser waits, and
 * `### Snapshot` with a fresh snapshot (its refs become the tab's latest). While a dialog blocks
 * the page's scripts there is no snapshot to take, as in Playwright MCP.
 */
const pageState = (ctx: ToolContext, page: Page): Promise<string> =>
  (async () => {
    const log = ctx.logs.watch(page)
    // A click may have started a navigation: give the new document a moment, never fail for it.
    if (log.modal?.kind !== 'dialog')
      await page.waitForLoadState('domcontentloaded', { timeout: 5_000 }).catch(() => undefined)
    let snap: { readonly yaml: string; readonly truncated: boolean } | undefined
    try {
      // A dialog this log saw may have been answered since (by the engine's deadline, a DevTools
      // client): a snapshot that succeeds says so; one that cannot finish says it still waits.
      snap = await ctx.refs.snapshot(page, log.modal?.kind === 'dialog' ? 1_000 : 10_000)
      if (log.modal?.kind === 'dialog') log.modal = undefined
    } catch (e) {
      if (log.modal?.kind !== 'dialog') throw e
    }
    const title = log.modal?.kind === 'dialog' ? '' : await page.title().catch(() => '')
    // The runtime's log of the page (the one behind /v1/console): this document's messages.
    const said = pageLogOf(page)
    const nav = said?.nav()
    const since = said?.console().entries.filter((m) => m.nav === nav) ?? []
    const errors = since.filter((m) => m.level === 'error').length
    const warnings = since.filter((m) => m.level === 'warning').length
    const modal = log.modal
    if (ctx.landed !== undefined) log.landed.add(ctx.landed)
    await log.downloadsEnded(5_000)
    const events = log.takeEvents()
    return [
      '### Page',
      `- Page URL: ${shownUrl(page.url())}`,
      ...(title === '' && modal?.kind === 'dialog' ? [] : [`- Page Title: ${title}`]),
      ...(errors + warnings > 0 ? [`- Console: ${errors} errors, ${warnings} warnings`] : []),
      ...(modal === undefined
        ? []
        : [
            '### Modal state',
            modal.kind === 'dialog'
              ? `- [${JSON.stringify(modal.type)} dialog with message ` +
                `${JSON.stringify(modal.message.slice(0, 500))}]: can be handled by browser_handle_dialog`
              : '- [File chooser]: can be handled by browser_file_upload',
          ]),
      // While a dialog blocks the page there is no snapshot to take: Playwright MCP still answers
      // its `### Snapshot` section, empty.
      ...(snap === undefined
        ? ['### Snapshot', '```yaml', '', '```']
        : [
            '### Snapshot',
            '```yaml',
            snap.yaml,
            '```',
            ...(snap.truncated ? ['(the snapshot was cut; it is too long to show whole)'] : []),
          ]),
      ...(events.length === 0 ? [] : ['### Events', ...events]),
    ].join('\n')
  })()

/**
 * The result of an action: what was done (`### Result`), then the active tab's sections with a
 * fresh snapshot (its refs are the ones to use next).
 *
 * @example
 * yield* afterAction(ctx, 'Clicked "Add apple" (ref e3).')
 */
export const afterAction = (ctx: ToolContext, done: string): Effect.Effect<CallToolResult, EngineFailure> =>
  Effect.map(
    onPlaywrightPage(ctx.errand, 'snapshot', (page) => pageState(ctx, page)),
    (state) => text(done === '' ? state : `### Result\n${done}\n${state}`),
  )
