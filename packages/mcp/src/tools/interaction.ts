/**
 * The tools that act on an element of the latest snapshot, by its ref: click, type, select,
 * hover — and `browser_press_key`, which acts on whatever has focus. Every ref is checked first
 * (`RefBook.check`): a stale one fails at once, telling the model to take a new snapshot.
 *
 * @example
 * await client.callTool({ name: 'browser_click', arguments: { element: 'Add apple button', ref: 'e3' } })
 */
import { Effect } from 'effect'
import type { Locator, Page } from 'playwright-core'
import { z } from 'zod'
import type { EngineFailure } from '../ErrandBrowser.ts'
import type { StaleRef } from '../errors.ts'
import { afterAction, tool, type ToolContext } from './tool.ts'
import { onPlaywrightPage } from '../playwrightPage.ts'

/** How long one action may wait for its element to be actionable. @example locator.click({ timeout: ACTION_MS }) */
export const ACTION_MS = 10_000

const element = z.string().describe('Human-readable element description used to obtain permission to interact with the element')
const ref = z.string().min(1).max(64).describe('Exact target element reference from the page snapshot')

const named = (el: string, r: string) => `${JSON.stringify(el.slice(0, 80))} (ref ${r})`

/**
 * Acts on the element `ref` names in the active tab, after checking that the ref is current.
 *
 * @example
 * yield* onRef(ctx, 'hover', 'e3', 'Menu', (el) => el.hover({ timeout: ACTION_MS }))
 */
export const onRef = (
  ctx: ToolContext,
  what: string,
  r: string,
  el: string,
  act: (target: Locator, page: Page) => Promise<unknown>,
): Effect.Effect<void, EngineFailure | StaleRef> =>
  Effect.flatMap(
    onPlaywrightPage(ctx.errand, what, async (page) => {
      const stale = await ctx.refs.check(page, r, el)
      if (stale !== undefined) return stale
      await act(ctx.refs.locator(page, r), page)
      return undefined
    }),
    (stale) => (stale === undefined ? Effect.void : Effect.fail(stale)),
  )

/** `browser_click`. @example browserClick.run(ctx, { element: 'Add', ref: 'e3' }) */
export const browserClick = tool({
  name: 'browser_click',
  title: 'Click',
  description: 'Perform click on a web page',
  inputSchema: {
    element,
    ref,
    doubleClick: z.boolean().optional().describe('Whether to perform a double click instead of a single click'),
    button: z.enum(['left', 'right', 'middle']).optional().describe('Button to click, defaults to left'),
  },
  readOnly: false,
  run: (ctx, { element: el, ref: r, doubleClick, button }) =>
    Effect.zipRight(
      onRef(ctx, 'click', r, el, (target) =>
        doubleClick === true ? target.dblclick({ button, timeout: ACTION_MS }) : target.click({ button, timeout: ACTION_MS })),
      afterAction(ctx, `${doubleClick === true ? 'Double-clicked' : 'Clicked'} ${named(el, r)}.`),
    ),
})

/** `browser_type`. @example browserType.run(ctx, { element: 'Search', ref: 'e4', text: 'apples', submit: true }) */
export const browserType = tool({
  name: 'browser_type',
  title: 'Type text',
  description: 'Type text into editable element',
  inputSchema: {
    element,
    ref,
    text: z.string().max(100_000).describe('Text to type into the element'),
    submit: z.boolean().optional().describe('Whether to submit entered text (press Enter after)'),
    slowly: z.boolean().optional().describe('Whether to type one character at a time. Useful for triggering key handlers in the page. By default entire text is filled in at once.'),
  },
  readOnly: false,
  run: (ctx, { element: el, ref: r, text, submit, slowly }) =>
    Effect.zipRight(
      onRef(ctx, 'type', r, el, async (target) => {
        if (slowly === true) await target.pressSequentially(text, { timeout: ACTION_MS })
        else await target.fill(text, { timeout: ACTION_MS })
        if (submit === true) await target.press('Enter', { timeout: ACTION_MS })
      }),
      // What was typed is not repeated: it may be a password (L7); the page shows what it shows.
      afterAction(ctx, `Typed ${text.length} characters into ${named(el, r)}${submit === true ? ' and pressed Enter' : ''}.`),
    ),
})

/** `browser_press_key`. @example browserPressKey.run(ctx, { key: 'ArrowDown' }) */
export const browserPressKey = tool({
  name: 'browser_press_key',
  title: 'Press a key',
  description: 'Press a key on the keyboard',
  inputSchema: { key: z.string().min(1).max(64).describe('Name of the key to press or a character to generate, such as `ArrowLeft` or `a`') },
  readOnly: false,
  run: (ctx, { key }) =>
    Effect.zipRight(
      onPlaywrightPage(ctx.errand, 'press key', (page) => page.keyboard.press(key)),
      afterAction(ctx, `Pressed ${JSON.stringify(key)}.`),
    ),
})

/** `browser_select_option`. @example browserSelectOption.run(ctx, { element: 'Size', ref: 'e5', values: ['M'] }) */
export const browserSelectOption = tool({
  name: 'browser_select_option',
  title: 'Select option',
  description: 'Select an option in a dropdown',
  inputSchema: {
    element,
    ref,
    values: z.array(z.string()).min(1).max(100).describe('Array of values to select in the dropdown. This can be a single value or multiple values.'),
  },
  readOnly: false,
  run: (ctx, { element: el, ref: r, values }) =>
    Effect.zipRight(
      onRef(ctx, 'select option', r, el, (target) => target.selectOption(values, { timeout: ACTION_MS })),
      afterAction(ctx, `Selected ${values.map((v) => JSON.stringify(v.slice(0, 80))).join(', ')} in ${named(el, r)}.`),
    ),
})

/** `browser_hover`. @example browserHover.run(ctx, { element: 'Menu', ref: 'e7' }) */
export const browserHover = tool({
  name: 'browser_hover',
  title: 'Hover mouse',
  description: 'Hover over element on page',
  inputSchema: { element, ref },
  readOnly: true,
  run: (ctx, { element: el, ref: r }) =>
    Effect.zipRight(
      onRef(ctx, 'hover', r, el, (target) => target.hover({ timeout: ACTION_MS })),
      afterAction(ctx, `Hovered over ${named(el, r)}.`),
    ),
})

/** The element tools. @example interactionTools.map((t) => t.name) */
export const interactionTools = [browserClick, browserType, browserPressKey, browserSelectOption, browserHover] as const
