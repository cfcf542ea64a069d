/**
 * Looking at the page: `browser_snapshot` (the accessibility snapshot whose refs the element
 * tools take; of the page or of one element), `browser_find` (the lines of a snapshot that match,
 * under their path from the root), and `browser_take_screenshot` (image content; of the
 * viewport, the whole page, or one element). Nothing is written to disk here: a `filename` is
 * accepted, as Playwright MCP's schemas have it, and the answer says it was not used.
 *
 * @example
 * const { content } = await client.callTool({ name: 'browser_snapshot', arguments: {} })
 */
import { Effect } from 'effect'
import { z } from 'zod'
import { ToolRefused } from '../errors.ts'
import { ACTION_MS, describeNamed, onTarget, pick, targetField, targetShape } from './target.ts'
import { afterAction, text, tool } from './tool.ts'
import { onPlaywrightPage } from '../playwrightPage.ts'

/** The words a result adds when a `filename` was given. @example noFile('x.png') */
export const noFile = (filename: string | undefined): string =>
  filename === undefined ? '' : '\n(filename not used: the result is in this answer; this server writes no files)'

const filenameField = (what: string) =>
  z.string().max(256).optional().describe(`Not used here: ${what} is returned in the result, never written to a file.`)

/** `browser_snapshot`. @example browserSnapshot.run(ctx, {}) */
export const browserSnapshot = tool({
  name: 'browser_snapshot',
  title: 'Page snapshot',
  description: 'Capture accessibility snapshot of the current page, this is better than screenshot',
  inputSchema: {
    target: targetField(
      'Exact target element reference from the page snapshot, or a unique element selector: a snapshot of that ' +
        'element only',
    ),
    filename: filenameField('the snapshot'),
    depth: z.number().int().min(0).max(1_000).optional().describe('Limit the depth of the snapshot tree'),
    boxes: z
      .boolean()
      .optional()
      .describe("Include each element's bounding box as [box=x,y,width,height] in the snapshot"),
  },
  run: (ctx, { target, filename, depth, boxes }) =>
    Effect.gen(function* () {
      if (target === undefined && depth === undefined && boxes !== true) {
        const r = yield* afterAction(ctx, '')
        return filename === undefined ? r : text(`${(r.content[0] as { text: string }).text}${noFile(filename)}`)
      }
      const options = {
        mode: 'ai' as const,
        timeout: ACTION_MS,
        ...(depth === undefined ? {} : { depth }),
        ...(boxes === true ? { boxes } : {}),
      }
      let yaml = ''
      if (target !== undefined) {
        const n = yield* pick({ target })
        yield* onTarget(ctx, 'snapshot', n, async (el) => void (yaml = await el.ariaSnapshot(options)))
        return text(`### Snapshot of ${describeNamed(n)}\n\`\`\`yaml\n${yaml}\n\`\`\`${noFile(filename)}`)
      }
      yaml = yield* onPlaywrightPage(ctx.errand, 'snapshot', (page) => page.ariaSnapshot(options))
      return text(`### Snapshot\n\`\`\`yaml\n${yaml}\n\`\`\`${noFile(filename)}`)
    }),
})

/**
 * The snapshot lines that match, each under its path from the root, with the lines around it.
 *
 * @example
 * findIn('- main:\n  - button "Buy" [ref=e3]', (l) => l.includes('Buy')) // ['- main:\n  - button "Buy" [ref=e3]']
 */
export const findIn = (yaml: string, matches: (line: string) => boolean, max = Infinity): ReadonlyArray<string> => {
  const lines = yaml.split('\n')
  const indent = (l: string) => l.length - l.trimStart().length
  const found: Array<string> = []
  for (let i = 0; i < lines.length && found.length < max; i++) {
    if (!matches(lines[i]!)) continue
    const path: Array<string> = []
    for (let j = i - 1, at = indent(lines[i]!); j >= 0 && at > 0; j--) {
      if (indent(lines[j]!) < at) {
        path.unshift(lines[j]!)
        at = indent(lines[j]!)
      }
    }
    const after = lines.slice(i + 1, i + 3).filter((l) => indent(l) > indent(lines[i]!))
    found.push([...path, lines[i]!, ...after].join('\n'))
  }
  return found
}

/** `browser_find`. @example browserFind.run(ctx, { text: 'Checkout' }) */
export const browserFind = tool({
  name: 'browser_find',
  title: 'Find in page snapshot',
  description:
    'Search the accessibility snapshot of the current page for text or a regular expression. Returns matching ' +
    'snapshot nodes with a few lines of surrounding context, each shown under its path from the root of the tree, ' +
    'which is cheaper than capturing the whole snapshot when you only need part of it.',
  inputSchema: {
    text: z
      .string()
      .min(1)
      .max(1_000)
      .optional()
      .describe(
        'Plain text to search for in the page snapshot (case-insensitive substring match). Provide either text or ' +
          'regex, not both.',
      ),
    regex: z
      .string()
      .min(1)
      .max(1_000)
      .optional()
      .describe(
        'Regular expression to search for in the page snapshot. Matching is case-sensitive by default; wrap the ' +
          'pattern in slashes to add flags, e.g. "/error/i". Provide either text or regex, not both.',
      ),
    maxResults: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe('Maximum number of matching items to return. Defaults to returning all matches.'),
    filename: filenameField('what was found'),
  },
  run: (ctx, { text: needle, regex, maxResults, filename }) =>
    Effect.gen(function* () {
      if ((needle === undefined) === (regex === undefined)) {
        return yield* new ToolRefused({
          reason: 'invalid-argument',
          message: 'browser_find takes text or regex (one of them).',
        })
      }
      let test: (line: string) => boolean
      if (needle !== undefined) test = (l) => l.toLowerCase().includes(needle.toLowerCase())
      else {
        const slashed = /^\/(.*)\/([a-z]*)$/s.exec(regex!)
        const re = yield* Effect.try({
          try: () => (slashed === null ? new RegExp(regex!) : new RegExp(slashed[1]!, slashed[2]!.replace('g', ''))),
          catch: () =>
            new ToolRefused({
              reason: 'invalid-argument',
              message: `regex is not a valid regular expression: ${regex!.slice(0, 80)}`,
            }),
        })
        test = (l) => re.test(l)
      }
      // The search runs over a fresh snapshot of the page, whose refs become the tab's latest.
      const yaml = yield* onPlaywrightPage(ctx.errand, 'find', async (page) => (await ctx.refs.snapshot(page)).yaml)
      const found = findIn(yaml, test, maxResults)
      const what = JSON.stringify(needle ?? regex)
      const result =
        found.length === 0
          ? `No match for ${what}.`
          : `Found ${found.length} match${found.length === 1 ? '' : 'es'} for ${what}:\n\n${found.join('\n\n')}`
      return text(`### Result\n${result}${noFile(filename)}`)
    }),
})

/** `browser_take_screenshot`. @example browserTakeScreenshot.run(ctx, { fullPage: true }) */
export const browserTakeScreenshot = tool({
  name: 'browser_take_screenshot',
  title: 'Take a screenshot',
  description:
    'Take a screenshot of the current page. Use browser_snapshot for actions by default. With the vision capability ' +
    'enabled, use screenshot coordinates with the coordinate-based mouse tools for elements not exposed in the ' +
    'accessibility snapshot.',
  inputSchema: {
    ...targetShape,
    type: z.enum(['png', 'jpeg', 'webp']).optional().describe('Image format for the screenshot. Default is png.'),
    filename: filenameField('the image'),
    fullPage: z
      .boolean()
      .optional()
      .describe(
        'When true, takes a screenshot of the full scrollable page, instead of the currently visible viewport. ' +
          'Cannot be used with element screenshots.',
      ),
    scale: z
      .enum(['css', 'device'])
      .default('css')
      .describe(
        'Image resolution scale. "css" produces a screenshot sized in CSS pixels; "device" uses device pixels. ' +
          'Default is css.',
      ),
  },
  run: (ctx, args) =>
    Effect.gen(function* () {
      const element = args.target ?? args.ref
      if (element !== undefined && args.fullPage === true) {
        return yield* new ToolRefused({
          reason: 'invalid-argument',
          message: 'fullPage cannot be used with an element screenshot; leave out target, or fullPage.',
        })
      }
      const format = args.type ?? 'png'
      const options = {
        type: format,
        ...(format === 'png' ? {} : { quality: 80 }),
        scale: args.scale,
        timeout: 10_000,
      } as const
      let shot: Buffer | undefined
      let what = args.fullPage === true ? 'the full page' : 'the viewport'
      if (element !== undefined) {
        const n = yield* pick(args)
        what = `the element ${describeNamed(n)}`
        yield* onTarget(ctx, 'screenshot', n, async (el) => void (shot = await el.screenshot(options)))
      } else {
        shot = yield* onPlaywrightPage(ctx.errand, 'screenshot', (page) =>
          page.screenshot({ ...options, fullPage: args.fullPage === true }),
        )
      }
      return {
        content: [
          {
            type: 'text' as const,
            text: `### Result\nTook a ${format} screenshot of ${what}.${noFile(args.filename)}`,
          },
          { type: 'image' as const, data: Buffer.from(shot!).toString('base64'), mimeType: `image/${format}` },
        ],
      }
    }),
})

/** The page tools. @example pageTools.map((t) => t.name) */
export const pageTools = [browserSnapshot, browserFind, browserTakeScreenshot] as const
