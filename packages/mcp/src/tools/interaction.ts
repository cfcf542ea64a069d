/**
 * The tools that act on an element of the latest snapshot, by its `target` (or the older `ref`):
 * click, type, select, hover, drag — and `browser_press_key`, which acts on whatever has focus.
 * Every target is checked first (tools/target.ts): a stale ref fails at once, telling the model
 * to take a new snapshot. An action that opens a dialog or a file chooser answers with the
 * `### Modal state` section, as Playwright MCP does.
 *
 * @example
 * await client.callTool({ name: 'browser_click', arguments: { element: 'Add apple button', target: 'e3' } })
 */
import { Effect } from 'effect'
import { z } from 'zod'
import { afterAction, tool } from './tool.ts'
import {
  ACTION_MS,
  describeNamed,
  elementField,
  onActive,
  onTarget,
  onTargets,
  pick,
  refField,
  targetField,
  targetShape,
} from './target.ts'

export { ACTION_MS, onTarget } from './target.ts'

/** `browser_click`. @example browserClick.run(ctx, { element: 'Add', target: 'e3' }) */
export const browserClick = tool({
  name: 'browser_click',
  title: 'Click',
  description: 'Perform click on a web page',
  inputSchema: {
    ...targetShape,
    doubleClick: z.boolean().optional().describe('Whether to perform a double click instead of a single click'),
    button: z.enum(['left', 'right', 'middle']).optional().describe('Button to click, defaults to left'),
    modifiers: z
      .array(z.enum(['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift']))
      .max(5)
      .optional()
      .describe('Modifier keys to press'),
  },
  run: (ctx, args) =>
    Effect.gen(function* () {
      const n = yield* pick(args)
      const o = { button: args.button, modifiers: args.modifiers, timeout: ACTION_MS }
      yield* onTarget(ctx, 'click', n, (target) => (args.doubleClick === true ? target.dblclick(o) : target.click(o)))
      return yield* afterAction(ctx, `${args.doubleClick === true ? 'Double-clicked' : 'Clicked'} ${describeNamed(n)}.`)
    }),
})

/** `browser_type`. @example browserType.run(ctx, { element: 'Search', target: 'e4', text: 'apples', submit: true }) */
export const browserType = tool({
  name: 'browser_type',
  title: 'Type text',
  description: 'Type text into editable element',
  inputSchema: {
    ...targetShape,
    text: z.string().max(100_000).describe('Text to type into the element'),
    submit: z.boolean().optional().describe('Whether to submit entered text (press Enter after)'),
    slowly: z
      .boolean()
      .optional()
      .describe(
        'Whether to type one character at a time. Useful for triggering key handlers in the page. By default entire ' +
          'text is filled in at once.',
      ),
  },
  run: (ctx, args) =>
    Effect.gen(function* () {
      const n = yield* pick(args)
      yield* onTarget(ctx, 'type', n, async (target) => {
        if (args.slowly === true) await target.pressSequentially(args.text, { timeout: ACTION_MS })
        else await target.fill(args.text, { timeout: ACTION_MS })
        if (args.submit === true) await target.press('Enter', { timeout: ACTION_MS })
      })
      // What was typed is not repeated: it may be a password (L7); the page shows what it shows.
      return yield* afterAction(
        ctx,
        `Typed ${args.text.length} characters into ` +
          `${describeNamed(n)}${args.submit === true ? ' and pressed Enter' : ''}.`,
      )
    }),
})

/** `browser_press_key`. @example browserPressKey.run(ctx, { key: 'ArrowDown' }) */
export const browserPressKey = tool({
  name: 'browser_press_key',
  title: 'Press a key',
  description: 'Press a key on the keyboard',
  inputSchema: {
    key: z
      .string()
      .min(1)
      .max(64)
      .describe('Name of the key to press or a character to generate, such as `ArrowLeft` or `a`'),
  },
  run: (ctx, { key }) =>
    Effect.zipRight(
      onActive(ctx, 'press key', (page) => page.keyboard.press(key)),
      afterAction(ctx, `Pressed ${JSON.stringify(key)}.`),
    ),
})

/** `browser_select_option`. @example browserSelectOption.run(ctx, { element: 'Size', target: 'e5', values: ['M'] }) */
export const browserSelectOption = tool({
  name: 'browser_select_option',
  title: 'Select option',
  description: 'Select an option in a dropdown',
  inputSchema: {
    ...targetShape,
    values: z
      .array(z.string().max(10_000))
      .min(1)
      .max(100)
      .describe('Array of values to select in the dropdown. This can be a single value or multiple values.'),
  },
  run: (ctx, args) =>
    Effect.gen(function* () {
      const n = yield* pick(args)
      yield* onTarget(ctx, 'select option', n, (target) => target.selectOption(args.values, { timeout: ACTION_MS }))
      return yield* afterAction(
        ctx,
        `Selected ${args.values.map((v) => JSON.stringify(v.slice(0, 80))).join(', ')} in ${describeNamed(n)}.`,
      )
    }),
})

/** `browser_hover`. @example browserHover.run(ctx, { element: 'Menu', target: 'e7' }) */
export const browserHover = tool({
  name: 'browser_hover',
  title: 'Hover mouse',
  description: 'Hover over element on page',
  inputSchema: targetShape,
  run: (ctx, args) =>
    Effect.gen(function* () {
      const n = yield* pick(args)
      yield* onTarget(ctx, 'hover', n, (target) => target.hover({ timeout: ACTION_MS }))
      return yield* afterAction(ctx, `Hovered over ${describeNamed(n)}.`)
    }),
})

/**
 * `browser_drag`. @example browserDrag.run(ctx, { startElement: 'Card', startTarget: 'e3', endElement: 'Done',
 * endTarget: 'e9' })
 */
export const browserDrag = tool({
  name: 'browser_drag',
  title: 'Drag mouse',
  description: 'Perform drag and drop between two elements',
  inputSchema: {
    startElement: elementField(
      'Human-readable source element description used to obtain the permission to interact with the element',
    ),
    startTarget: targetField(),
    endElement: elementField(
      'Human-readable target element description used to obtain the permission to interact with the element',
    ),
    endTarget: targetField(),
    startRef: refField('Deprecated: the older name of startTarget.'),
    endRef: refField('Deprecated: the older name of endTarget.'),
  },
  run: (ctx, args) =>
    Effect.gen(function* () {
      const from = yield* pick(
        { element: args.startElement, target: args.startTarget, ref: args.startRef },
        'startTarget',
      )
      const to = yield* pick({ element: args.endElement, target: args.endTarget, ref: args.endRef }, 'endTarget')
      yield* onTargets(ctx, 'drag', [from, to], ([a, b]) => a!.dragTo(b!, { timeout: ACTION_MS }))
      return yield* afterAction(ctx, `Dragged ${describeNamed(from)} to ${describeNamed(to)}.`)
    }),
})

/** The element tools. @example interactionTools.map((t) => t.name) */
export const interactionTools = [
  browserClick,
  browserType,
  browserPressKey,
  browserSelectOption,
  browserHover,
  browserDrag,
] as const
