/**
 * The `vision` capability's tools (Playwright MCP's, offered with `--caps vision`): the mouse by
 * coordinates of the viewport, for what the accessibility snapshot does not show — read the
 * coordinates off `browser_take_screenshot`.
 *
 * @example
 * await client.callTool({ name: 'browser_mouse_click_xy', arguments: { x: 120, y: 40 } })
 */
import { Effect } from 'effect'
import { z } from 'zod'
import { onActive } from './target.ts'
import { afterAction, tool } from './tool.ts'

const coord = (what: string) => z.number().min(-100_000).max(100_000).describe(what)
const button = (what: string) => z.enum(['left', 'right', 'middle']).optional().describe(what)

/** `browser_mouse_move_xy`. @example browserMouseMoveXy.run(ctx, { x: 10, y: 20 }) */
export const browserMouseMoveXy = tool({
  name: 'browser_mouse_move_xy',
  title: 'Move mouse',
  description: 'Move mouse to a given position',
  inputSchema: { x: coord('X coordinate'), y: coord('Y coordinate') },
  run: (ctx, { x, y }) =>
    Effect.zipRight(
      onActive(ctx, 'mouse move', (p) => p.mouse.move(x, y)),
      afterAction(ctx, `Moved the mouse to ${x}, ${y}.`),
    ),
})

/** `browser_mouse_click_xy`. @example browserMouseClickXy.run(ctx, { x: 10, y: 20 }) */
export const browserMouseClickXy = tool({
  name: 'browser_mouse_click_xy',
  title: 'Click',
  description: 'Click mouse button at a given position',
  inputSchema: {
    x: coord('X coordinate'),
    y: coord('Y coordinate'),
    button: button('Button to click, defaults to left'),
    clickCount: z.number().int().min(1).max(3).optional().describe('Number of clicks, defaults to 1'),
    delay: z
      .number()
      .min(0)
      .max(5_000)
      .optional()
      .describe('Time to wait between mouse down and mouse up in milliseconds, defaults to 0'),
  },
  run: (ctx, { x, y, button, clickCount, delay }) =>
    Effect.zipRight(
      onActive(ctx, 'mouse click', (p) => p.mouse.click(x, y, { button, clickCount, delay })),
      afterAction(ctx, `Clicked at ${x}, ${y}.`),
    ),
})

/** `browser_mouse_drag_xy`. @example browserMouseDragXy.run(ctx, { startX: 1, startY: 2, endX: 3, endY: 4 }) */
export const browserMouseDragXy = tool({
  name: 'browser_mouse_drag_xy',
  title: 'Drag mouse',
  description: 'Drag left mouse button to a given position',
  inputSchema: {
    startX: coord('Start X coordinate'),
    startY: coord('Start Y coordinate'),
    endX: coord('End X coordinate'),
    endY: coord('End Y coordinate'),
  },
  run: (ctx, { startX, startY, endX, endY }) =>
    Effect.zipRight(
      onActive(ctx, 'mouse drag', async (p) => {
        await p.mouse.move(startX, startY)
        await p.mouse.down()
        await p.mouse.move(endX, endY, { steps: 5 })
        await p.mouse.up()
      }),
      afterAction(ctx, `Dragged from ${startX}, ${startY} to ${endX}, ${endY}.`),
    ),
})

/** `browser_mouse_down`. @example browserMouseDown.run(ctx, {}) */
export const browserMouseDown = tool({
  name: 'browser_mouse_down',
  title: 'Press mouse down',
  description: 'Press mouse down',
  inputSchema: { button: button('Button to press, defaults to left') },
  run: (ctx, { button }) =>
    Effect.zipRight(
      onActive(ctx, 'mouse down', (p) => p.mouse.down({ button })),
      afterAction(ctx, 'Pressed the mouse button down.'),
    ),
})

/** `browser_mouse_up`. @example browserMouseUp.run(ctx, {}) */
export const browserMouseUp = tool({
  name: 'browser_mouse_up',
  title: 'Press mouse up',
  description: 'Press mouse up',
  inputSchema: { button: button('Button to press, defaults to left') },
  run: (ctx, { button }) =>
    Effect.zipRight(
      onActive(ctx, 'mouse up', (p) => p.mouse.up({ button })),
      afterAction(ctx, 'Released the mouse button.'),
    ),
})

/** `browser_mouse_wheel`. @example browserMouseWheel.run(ctx, { deltaX: 0, deltaY: 400 }) */
export const browserMouseWheel = tool({
  name: 'browser_mouse_wheel',
  title: 'Scroll mouse wheel',
  description: 'Scroll mouse wheel',
  inputSchema: {
    deltaX: z.number().min(-100_000).max(100_000).default(0).describe('X delta'),
    deltaY: z.number().min(-100_000).max(100_000).default(0).describe('Y delta'),
  },
  run: (ctx, { deltaX, deltaY }) =>
    Effect.zipRight(
      onActive(ctx, 'mouse wheel', (p) => p.mouse.wheel(deltaX, deltaY)),
      afterAction(ctx, `Scrolled by ${deltaX}, ${deltaY}.`),
    ),
})

/** The `vision` capability. @example visionTools.map((t) => t.name) */
export const visionTools = [
  browserMouseMoveXy,
  browserMouseClickXy,
  browserMouseDragXy,
  browserMouseDown,
  browserMouseUp,
  browserMouseWheel,
] as const
