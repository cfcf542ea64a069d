/**
 * Looking at the page: `browser_snapshot` (the accessibility snapshot whose refs the element
 * tools take) and `browser_take_screenshot` (image content; of the viewport, the whole page, or
 * one element by ref).
 *
 * @example
 * const { content } = await client.callTool({ name: 'browser_snapshot', arguments: {} })
 */
import { Effect } from 'effect'
import { z } from 'zod'
import { ToolRefused } from '../errors.ts'
import { onRef } from './interaction.ts'
import { afterAction, tool } from './tool.ts'
import { onPlaywrightPage } from '../playwrightPage.ts'

/** `browser_snapshot`. @example browserSnapshot.run(ctx, {}) */
export const browserSnapshot = tool({
  name: 'browser_snapshot',
  title: 'Page snapshot',
  description: 'Capture accessibility snapshot of the current page, this is better than screenshot',
  inputSchema: {},
  readOnly: true,
  run: (ctx) => afterAction(ctx, ''),
})

/** `browser_take_screenshot`. @example browserTakeScreenshot.run(ctx, { fullPage: true }) */
export const browserTakeScreenshot = tool({
  name: 'browser_take_screenshot',
  title: 'Take a screenshot',
  description: "Take a screenshot of the current page. You can't perform actions based on the screenshot, use browser_snapshot for actions.",
  inputSchema: {
    type: z.enum(['png', 'jpeg']).optional().describe('Image format for the screenshot. Default is png.'),
    filename: z.string().max(256).optional().describe('Not supported here: the image is returned in the result, never written to a file.'),
    element: z.string().optional().describe('Human-readable element description used to obtain permission to screenshot the element. If not provided, the screenshot will be taken of viewport. If element is provided, ref must be provided too.'),
    ref: z.string().min(1).max(64).optional().describe('Exact target element reference from the page snapshot. If not provided, the screenshot will be taken of viewport. If ref is provided, element must be provided too.'),
    fullPage: z.boolean().optional().describe('When true, takes a screenshot of the full scrollable page, instead of the currently visible viewport. Cannot be used with element screenshots.'),
  },
  readOnly: true,
  run: (ctx, { type, filename, element, ref, fullPage }) =>
    Effect.gen(function* () {
      if ((element === undefined) !== (ref === undefined)) {
        return yield* new ToolRefused({ reason: 'invalid-argument', message: 'browser_take_screenshot takes element and ref together (or neither, for the viewport).' })
      }
      if (ref !== undefined && fullPage === true) {
        return yield* new ToolRefused({ reason: 'invalid-argument', message: 'fullPage cannot be used with an element screenshot; leave out element and ref, or fullPage.' })
      }
      const format = type ?? 'png'
      const options = { type: format, ...(format === 'jpeg' ? { quality: 80 } : {}), timeout: 10_000 } as const
      let shot: Buffer | undefined
      if (ref !== undefined) {
        yield* onRef(ctx, 'screenshot', ref, element ?? '', async (target) => {
          shot = await target.screenshot(options)
        })
      } else {
        shot = yield* onPlaywrightPage(ctx.errand, 'screenshot', (page) => page.screenshot({ ...options, fullPage: fullPage === true }))
      }
      const what = ref !== undefined ? `the element ${JSON.stringify((element ?? '').slice(0, 80))} (ref ${ref})` : fullPage === true ? 'the full page' : 'the viewport'
      const note = filename === undefined ? '' : ' (filename ignored: the image is in this result, nothing is written to disk)'
      return {
        content: [
          { type: 'text' as const, text: `Took a ${format} screenshot of ${what}${note}.` },
          { type: 'image' as const, data: Buffer.from(shot!).toString('base64'), mimeType: `image/${format}` },
        ],
      }
    }),
})

/** The page tools. @example pageTools.map((t) => t.name) */
export const pageTools = [browserSnapshot, browserTakeScreenshot] as const
