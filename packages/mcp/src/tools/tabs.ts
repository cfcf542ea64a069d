/**
 * Tabs and closing: `browser_tabs` (list / new — at a URL when given / select / close, by index
 * in the list) and
 * `browser_close`. The agent cannot leave its errand (E1): `browser_close` parks it — sign-ins
 * and tabs kept, sealed — and the next call reopens it as it was; only the backend's task
 * status ends it (E3).
 *
 * @example
 * await client.callTool({ name: 'browser_tabs', arguments: { action: 'new' } })
 */
import { Effect } from 'effect'
import { z } from 'zod'
import type { EngineFailure, TabAt } from '../ErrandBrowser.ts'
import { ToolRefused } from '../errors.ts'
import { afterAction, shownUrl, text, tool, type ToolContext } from './tool.ts'
import { onPlaywrightPage } from '../playwrightPage.ts'

/**
 * The tab list as Playwright MCP (0.0.86) writes it: `- 1: (current) [Title](url)`.
 *
 * @example
 * listTabs([{ id: 'x-t1', url: 'http://a/', title: 'A', active: true }]) // '### Open tabs\n- 0: (current)
 * [A](http://a/)'
 */
export const listTabs = (tabs: ReadonlyArray<TabAt>): string =>
  tabs.length === 0
    ? '### Open tabs\nNo open tabs. Use browser_navigate or browser_tabs with action "new" to open one.'
    : [
        '### Open tabs',
        ...tabs.map((t, i) => `- ${i}: ${t.active ? '(current) ' : ''}[${t.title}](${shownUrl(t.url)})`),
      ].join('\n')

const byIndex = (ctx: ToolContext, index: number | undefined): Effect.Effect<TabAt, EngineFailure> =>
  Effect.flatMap(ctx.errand.tabs(), (tabs) => {
    const tab = index === undefined ? (tabs.find((t) => t.active) ?? tabs[0]) : tabs[index]
    return tab !== undefined
      ? Effect.succeed(tab)
      : Effect.fail(
          new ToolRefused({
            reason: 'invalid-argument',
            message:
              `There is no tab ${index ?? '(current)'}: this browser has ${tabs.length} ` +
              `tab${tabs.length === 1 ? '' : 's'} (indexes 0–${Math.max(0, tabs.length - 1)}); list them with ` +
              `browser_tabs action "list".`,
          }),
        )
  })

/** `browser_tabs`. @example browserTabs.run(ctx, { action: 'select', index: 1 }) */
export const browserTabs = tool({
  name: 'browser_tabs',
  title: 'Manage tabs',
  description: 'List, create, close, or select a browser tab.',
  inputSchema: {
    action: z.enum(['list', 'new', 'close', 'select']).describe('Operation to perform'),
    index: z
      .number()
      .int()
      .min(0)
      .max(1_000)
      .optional()
      .describe('Tab index, used for close/select. If omitted for close, current tab is closed.'),
    url: z.string().min(1).max(8_192).optional().describe('URL to navigate to in the new tab, used for new.'),
    isolatedContext: z
      .string()
      .max(256)
      .optional()
      .describe(
        'Not offered here: this browser is one errand, one context of its own; only "default" (or omitted) is ' +
          'accepted.',
      ),
  },
  run: (ctx, { action, index, url, isolatedContext }) =>
    Effect.gen(function* () {
      switch (action) {
        case 'list':
          return text(listTabs(yield* ctx.errand.tabs()))
        case 'new': {
          if (isolatedContext !== undefined && isolatedContext !== 'default') {
            return yield* new ToolRefused({
              reason: 'invalid-argument',
              message:
                'This browser is one errand with one context of its own (E1): isolatedContext can only be "default"; ' +
                'open the tab without it.',
            })
          }
          yield* ctx.errand.openTab('about:blank')
          if (url === undefined) return text(`### Result\nOpened a new tab.\n${listTabs(yield* ctx.errand.tabs())}`)
          // The log of the new page starts before it loads, so its console and requests are kept;
          // the containment policy decides on the URL as for browser_navigate.
          yield* onPlaywrightPage(ctx.errand, 'watch', async (page) => void ctx.logs.watch(page))
          yield* ctx.errand.navigate(url)
          const state = yield* afterAction(ctx, 'Opened a new tab.')
          return {
            content: [
              {
                type: 'text' as const,
                text: `${listTabs(yield* ctx.errand.tabs())}\n${(state.content[0] as { text: string }).text}`,
              },
            ],
          }
        }
        case 'select': {
          if (index === undefined)
            return yield* new ToolRefused({
              reason: 'invalid-argument',
              message: 'browser_tabs "select" needs the index of the tab (see action "list").',
            })
          const tab = yield* byIndex(ctx, index)
          yield* ctx.errand.activateTab(tab.id)
          const state = yield* afterAction(ctx, `Selected tab ${index}.`)
          return { content: [...state.content, { type: 'text' as const, text: listTabs(yield* ctx.errand.tabs()) }] }
        }
        case 'close': {
          const tab = yield* byIndex(ctx, index)
          const left = yield* ctx.errand.closeTab(tab.id)
          return text(`### Result\nClosed tab ${index ?? '(current)'}.\n${listTabs(left)}`)
        }
      }
    }),
})

/** `browser_close`. @example browserClose.run(ctx, {}) */
export const browserClose = tool({
  name: 'browser_close',
  title: 'Close browser',
  description: 'Close the page',
  inputSchema: {},
  run: (ctx) =>
    Effect.as(
      ctx.errand.park(),
      // A `###` section, as Playwright MCP answers every tool.
      text(
        '### Result\nThe browser is set aside (parked): its sign-ins and tabs are kept, sealed. The next browser_* ' +
          'call reopens it as it was.',
      ),
    ),
})

/** The tab tools. @example tabTools.map((t) => t.name) */
export const tabTools = [browserTabs, browserClose] as const
