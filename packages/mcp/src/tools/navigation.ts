/**
 * Navigation and waiting: `browser_navigate` (the containment policy decides before any page is
 * touched: `file:`, `chrome:`, the engine's own ports … are refused with the rule that matched),
 * `browser_navigate_back`, `browser_wait_for`.
 *
 * @example
 * await client.callTool({ name: 'browser_navigate', arguments: { url: 'http://127.0.0.1:3000/' } })
 */
import { Duration, Effect } from 'effect'
import { z } from 'zod'
import { ToolRefused } from '../errors.ts'
import { afterAction, tool } from './tool.ts'
import { onPlaywrightPage } from '../playwrightPage.ts'

/** The longest `browser_wait_for` sleeps, and waits for a text (ms). @example Math.min(time * 1000, MAX_WAIT_MS) */
export const MAX_WAIT_MS = 30_000

/** `browser_navigate`. @example browserNavigate.run(ctx, { url: 'http://127.0.0.1:3000/' }) */
export const browserNavigate = tool({
  name: 'browser_navigate',
  title: 'Navigate to a URL',
  description: 'Navigate to a URL',
  inputSchema: { url: z.string().min(1).max(8_192).describe('The URL to navigate to') },
  run: (ctx, { url }) =>
    Effect.gen(function* () {
      // The page's log starts before the navigation, so the new document's console and requests are kept.
      yield* onPlaywrightPage(ctx.errand, 'watch', async (page) => void ctx.logs.watch(page))
      yield* ctx.errand.navigate(url)
      return yield* afterAction(ctx, 'Navigated.')
    }),
})

/** `browser_navigate_back`. @example browserNavigateBack.run(ctx, {}) */
export const browserNavigateBack = tool({
  name: 'browser_navigate_back',
  title: 'Go back',
  description: 'Go back to the previous page in the history',
  inputSchema: {},
  run: (ctx) => Effect.zipRight(ctx.errand.back(), afterAction(ctx, 'Went back.')),
})

/** `browser_wait_for`. @example browserWaitFor.run(ctx, { text: 'Added to basket' }) */
export const browserWaitFor = tool({
  name: 'browser_wait_for',
  title: 'Wait for',
  description:
    'Wait for text to appear or disappear or a specified time to pass. When both text and textGone are provided, ' +
    'waits for the first one to happen',
  inputSchema: {
    time: z
      .number()
      .min(0)
      .max(MAX_WAIT_MS / 1000)
      .optional()
      .describe(
        'The time to wait in seconds, at most 30. When combined with text or textGone, serves as a timeout for them ' +
          'instead of the default action timeout',
      ),
    text: z.string().min(1).max(1_000).optional().describe('The text to wait for'),
    textGone: z.string().min(1).max(1_000).optional().describe('The text to wait for to disappear'),
  },
  run: (ctx, { time, text, textGone }) =>
    Effect.gen(function* () {
      if (time === undefined && text === undefined && textGone === undefined) {
        return yield* new ToolRefused({
          reason: 'invalid-argument',
          message: 'browser_wait_for needs time, text or textGone; give at least one.',
        })
      }
      if (text === undefined && textGone === undefined) {
        // A plain sleep holds no page and does not drive the errand.
        yield* Effect.sleep(Duration.millis(time! * 1000))
        return yield* afterAction(ctx, `Waited for ${time} seconds`)
      }
      // With a text, `time` is how long to wait for it (Playwright MCP 0.0.86); the first to happen wins.
      const timeout = time === undefined ? MAX_WAIT_MS : time * 1000
      const done = yield* onPlaywrightPage(ctx.errand, 'wait for text', (page) =>
        Promise.any([
          ...(text === undefined
            ? []
            : [
                page
                  .getByText(text)
                  .first()
                  .waitFor({ state: 'visible', timeout })
                  .then(() => `${JSON.stringify(text.slice(0, 80))} appeared.`),
              ]),
          ...(textGone === undefined
            ? []
            : [
                page
                  .getByText(textGone)
                  .first()
                  .waitFor({ state: 'hidden', timeout })
                  .then(() => `${JSON.stringify(textGone.slice(0, 80))} is gone.`),
              ]),
        ]).catch((e: AggregateError) => Promise.reject(e.errors[0])),
      )
      return yield* afterAction(ctx, done)
    }),
})

/** The navigation tools. @example navigationTools.map((t) => t.name) */
export const navigationTools = [browserNavigate, browserNavigateBack, browserWaitFor] as const
