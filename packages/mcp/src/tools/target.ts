/**
 * How a tool names an element, as Playwright MCP 0.0.86 does: `target`, "a reference from the
 * page snapshot, or a unique element selector", with `element` the model's description of it.
 * The older `ref` (Playwright MCP before `target`) is accepted too, so prompts written for
 * either carry over. A ref is checked against the latest snapshot of the tab first (`RefBook`):
 * a stale one fails at once, telling the model to take a new snapshot. A selector must match
 * exactly one element.
 *
 * @example
 * yield* onTarget(ctx, 'hover', pick(args), (el) => el.hover({ timeout: ACTION_MS }))
 */
import { Effect } from 'effect'
import type { Locator, Page } from 'playwright-core'
import { z } from 'zod'
import type { EngineFailure } from '../ErrandBrowser.ts'
import { StaleRef, ToolRefused } from '../errors.ts'
import type { ToolContext } from './tool.ts'
import { onPlaywrightPage } from '../playwrightPage.ts'

/** How long one action may wait for its element to be actionable. @example locator.click({ timeout: ACTION_MS }) */
export const ACTION_MS = 10_000

const ELEMENT = 'Human-readable element description used to obtain permission to interact with the element'
const TARGET = 'Exact target element reference from the page snapshot, or a unique element selector'

// Each field is a new schema: one schema used twice in a tool becomes a JSON Schema `$ref`,
// which some clients do not follow.
/** The `element` field. @example { element: elementField() } */
export const elementField = (what = ELEMENT) => z.string().max(1_000).optional().describe(what)
/** The `target` field (optional here: `ref` may stand in for it). @example { target: targetField() } */
export const targetField = (what = TARGET) => z.string().min(1).max(1_000).optional().describe(what)
/** The older name of `target`. @example { ref: refField() } */
export const refField = (what = `Deprecated: the older name of target. ${TARGET}`) =>
  z.string().min(1).max(1_000).optional().describe(what)

/** The usual pair of an element tool, plus the older `ref`. @example inputSchema: { ...targetShape, text } */
export const targetShape = { element: elementField(), target: targetField(), ref: refField() }

/** An element as the model named it. @example const el: Named = { target: 'e3', element: 'Add button' } */
export interface Named {
  readonly target: string
  readonly element: string
}

/**
 * The element the arguments name: `target`, else `ref`; neither is a refusal naming `field`.
 *
 * @example
 * const named = yield* pick({ element: 'Add', ref: 'e3' }) // { target: 'e3', element: 'Add' }
 */
export const pick = (
  args: {
    readonly element?: string | undefined
    readonly target?: string | undefined
    readonly ref?: string | undefined
  },
  field = 'target',
): Effect.Effect<Named, ToolRefused> => {
  const target = args.target ?? args.ref
  return target === undefined
    ? Effect.fail(
        new ToolRefused({
          reason: 'invalid-argument',
          message:
            `${field} is required: the ref of an element in the latest snapshot (like e5), ` + 'or a unique selector.',
        }),
      )
    : Effect.succeed({ target, element: args.element ?? '' })
}

/** `"Add button" (ref e3)`, how results name an element. @example named({ target: 'e3', element: 'Add' }) */
export const describeNamed = (n: Named): string =>
  n.element.trim() === ''
    ? `${isRef(n.target) ? 'ref' : 'selector'} ${n.target.slice(0, 80)}`
    : `${JSON.stringify(n.element.slice(0, 80))} (${isRef(n.target) ? 'ref' : 'selector'} ${n.target.slice(0, 80)})`

/** Whether a target is a snapshot ref (`e12`, `f2e12`) rather than a selector. @example isRef('f2e12') // true */
export const isRef = (target: string): boolean => /^(f\d+)?e\d+$/.test(target)

/**
 * The locator of a target on `page`, or why it names no single element now.
 *
 * @example
 * const found = await locate(ctx, page, { target: 'e3', element: 'Add' })
 */
export const locate = async (ctx: ToolContext, page: Page, n: Named): Promise<Locator | StaleRef | ToolRefused> => {
  if (isRef(n.target)) {
    const stale = await ctx.refs.check(page, n.target, n.element)
    return stale ?? ctx.refs.locator(page, n.target)
  }
  const locator = page.locator(n.target)
  const count = await locator.count().catch(() => -1)
  if (count === 1) return locator
  return new ToolRefused({
    reason: 'invalid-argument',
    message:
      count < 0
        ? `${describeNamed(n)} is neither a ref of the latest snapshot nor a valid selector; take a snapshot with ` +
          `browser_snapshot and use a ref from it.`
        : `${describeNamed(n)} matches ${count} elements, not one; use a ref from the latest snapshot ` +
          `(browser_snapshot).`,
  })
}

/**
 * Acts on the elements the targets name in the active tab, after checking every one; answers
 * when the action ends or opens a modal (a dialog, a file chooser).
 *
 * @example
 * yield* onTargets(ctx, 'drag', [from, to], ([a, b]) => a!.dragTo(b!, { timeout: ACTION_MS }))
 */
export const onTargets = (
  ctx: ToolContext,
  what: string,
  targets: ReadonlyArray<Named>,
  act: (found: ReadonlyArray<Locator>, page: Page) => Promise<unknown>,
): Effect.Effect<void, EngineFailure | StaleRef | ToolRefused> =>
  Effect.flatMap(
    onPlaywrightPage(ctx.errand, what, async (page) => {
      const log = ctx.logs.watch(page)
      const found: Array<Locator> = []
      for (const n of targets) {
        const l = await locate(ctx, page, n)
        if (l instanceof StaleRef || l instanceof ToolRefused) return l
        found.push(l)
      }
      await log.until(() => act(found, page))
      return undefined
    }),
    (refused) => (refused === undefined ? Effect.void : Effect.fail(refused)),
  )

/**
 * {@link onTargets} for one element.
 *
 * @example
 * yield* onTarget(ctx, 'hover', named, (el) => el.hover({ timeout: ACTION_MS }))
 */
export const onTarget = (
  ctx: ToolContext,
  what: string,
  n: Named,
  act: (target: Locator, page: Page) => Promise<unknown>,
): Effect.Effect<void, EngineFailure | StaleRef | ToolRefused> =>
  onTargets(ctx, what, [n], ([l], page) => act(l!, page))

/**
 * Runs `act` on the active page (no element), answering when it ends or opens a modal.
 *
 * @example
 * yield* onActive(ctx, 'press key', (page) => page.keyboard.press('Enter'))
 */
export const onActive = (
  ctx: ToolContext,
  what: string,
  act: (page: Page) => Promise<unknown>,
): Effect.Effect<void, EngineFailure> =>
  onPlaywrightPage(ctx.errand, what, (page) => ctx.logs.watch(page).until(() => act(page)))
