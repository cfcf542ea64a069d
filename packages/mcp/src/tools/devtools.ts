/**
 * What a developer's tools show: `browser_evaluate` (a function run in the page, or on one
 * element), `browser_console_messages` and `browser_network_requests` / `browser_network_request`
 * (from the runtime's log of the page — the one behind `GET /v1/console` and `/v1/network`,
 * reached through the page with `pageLogOf`: what the page said and fetched since its tab opened).
 *
 * The function of `browser_evaluate` runs inside the page, in the errand's own context, as the
 * page's own scripts do; it cannot reach the server. (Playwright MCP's `browser_run_code_unsafe`,
 * which runs code in the server process, is not offered: docs/mcp.md.) URLs this package writes
 * lose their query and fragment (L7).
 *
 * @example
 * await client.callTool({ name: 'browser_evaluate', arguments: { function: '() => document.title' } })
 */
import { pageLogOf, type PageLogView, type PageRequest } from '@errands/runtime'
import { Effect } from 'effect'
import type { Page, Request } from 'playwright-core'
import { z } from 'zod'
import { ToolRefused } from '../errors.ts'
import { noFile } from './page.ts'
import { onTarget, pick, targetShape } from './target.ts'
import { shownUrl, text, tool } from './tool.ts'
import { onPlaywrightPage } from '../playwrightPage.ts'

const json = (v: unknown): string => {
  if (v === undefined) return 'undefined'
  try {
    return JSON.stringify(v, null, 2) ?? String(v)
  } catch {
    return String(v)
  }
}

/**
 * The model's function source as a function for Playwright, which sends a function's source to
 * the page and calls it there (with the element, for a locator); a plain string would be
 * evaluated as an expression, giving the function itself, not its result.
 */
const asFunction = (source: string) =>
  Object.assign(() => undefined, { toString: () => source }) as unknown as (el?: unknown) => unknown

/** `browser_evaluate`. @example browserEvaluate.run(ctx, { function: '() => document.title' }) */
export const browserEvaluate = tool({
  name: 'browser_evaluate',
  title: 'Evaluate JavaScript',
  description: 'Evaluate JavaScript expression on page or element',
  inputSchema: {
    ...targetShape,
    function: z
      .string()
      .min(1)
      .max(100_000)
      .describe('() => { /* code */ } or (element) => { /* code */ } when element is provided'),
    filename: z
      .string()
      .max(256)
      .optional()
      .describe('Not used here: the result is returned as text, never written to a file.'),
  },
  run: (ctx, args) =>
    Effect.gen(function* () {
      let result: unknown
      if (args.target !== undefined || args.ref !== undefined) {
        yield* onTarget(
          ctx,
          'evaluate',
          yield* pick(args),
          async (el) => void (result = await el.evaluate(asFunction(args.function))),
        )
      } else {
        result = yield* onPlaywrightPage(ctx.errand, 'evaluate', (page) => page.evaluate(asFunction(args.function)))
      }
      return text(`### Result\n${json(result).slice(0, 100_000)}${noFile(args.filename)}`)
    }),
})

/**
 * A console level as Playwright MCP names it, most severe first (each includes the more severe). @example
 * LEVELS.indexOf('info') // 2
 */
export const LEVELS = ['error', 'warning', 'info', 'debug'] as const

/** The runtime's log of the page; a page without one (no Chromium runtime) fails loudly. */
const logOf = (page: Page): PageLogView => {
  const log = pageLogOf(page)
  if (log === undefined)
    throw new TypeError("this page has no log of the runtime (MCP's devtools need a Chromium runtime)")
  return log
}

/** `browser_console_messages`. @example browserConsoleMessages.run(ctx, { level: 'warning' }) */
export const browserConsoleMessages = tool({
  name: 'browser_console_messages',
  title: 'Get console messages',
  description: 'Returns all console messages',
  inputSchema: {
    level: z
      .enum(['error', 'warning', 'info', 'debug'])
      .default('info')
      .describe(
        'Level of the console messages to return. Each level includes the messages of more severe levels. Defaults ' +
          'to "info".',
      ),
    all: z
      .boolean()
      .optional()
      .describe(
        'Return all console messages since the beginning of the session, not just since the last navigation. ' +
          'Defaults to false.',
      ),
    filename: z
      .string()
      .max(256)
      .optional()
      .describe('Not used here: messages are returned as text, never written to a file.'),
  },
  run: (ctx, { level, all, filename }) =>
    Effect.map(
      onPlaywrightPage(ctx.errand, 'console messages', async (page) => {
        const log = logOf(page)
        const nav = log.nav()
        const since = log.console().entries.filter((m) => all === true || m.nav === nav)
        const shown = since.filter((m) => LEVELS.indexOf(m.level ?? 'info') <= LEVELS.indexOf(level))
        const count = (l: string) => since.filter((m) => m.level === l).length
        return [
          '### Result',
          `Total messages: ${since.length} (Errors: ${count('error')}, Warnings: ${count('warning')})`,
          ...(shown.length === 0
            ? []
            : [
                '',
                ...shown.map((m) => {
                  const at = m.location ?? ''
                  const where =
                    at === '' ? '' : ` @ ${shownUrl(at.replace(/:\d+$/, ''))}:${/:(\d+)$/.exec(at)?.[1] ?? ''}`
                  const kind = m.type === 'pageerror' ? 'ERROR' : m.type.toUpperCase()
                  return `[${kind}] ${m.text.slice(0, 2_000)}${where}`
                }),
              ]),
        ].join('\n')
      }),
      (body) => text(`${body}${noFile(filename)}`),
    ),
})

const STATIC = new Set(['document', 'stylesheet', 'image', 'media', 'font', 'script', 'texttrack', 'manifest', 'other'])
const isStatic = (e: PageRequest) => STATIC.has(e.resourceType) && e.failure === null && (e.status ?? 0) < 400
const outcome = (e: PageRequest) =>
  e.failure !== null ? `[FAILED] ${e.failure}` : e.status === null ? '[pending]' : `[${e.status}] ${e.statusText ?? ''}`
const line = (e: PageRequest, i: number) => `${i}. [${e.method}] ${shownUrl(e.url)} => ${outcome(e)}`

/** `browser_network_requests`. @example browserNetworkRequests.run(ctx, { static: false }) */
export const browserNetworkRequests = tool({
  name: 'browser_network_requests',
  title: 'List network requests',
  description:
    'Returns a numbered list of network requests since loading the page. Use browser_network_request with the number ' +
    'to get full details.',
  inputSchema: {
    static: z
      .boolean()
      .default(false)
      .describe('Whether to include successful static resources like images, fonts, scripts, etc. Defaults to false.'),
    filter: z
      .string()
      .max(1_000)
      .optional()
      .describe('Only return requests whose URL matches this regexp (e.g. "/api/.*user").'),
    all: z
      .boolean()
      .optional()
      .describe(
        'Return all network requests since the beginning of the session, not just since the last navigation. ' +
          'Defaults to false.',
      ),
    filename: z
      .string()
      .max(256)
      .optional()
      .describe('Not used here: requests are returned as text, never written to a file.'),
  },
  run: (ctx, args) =>
    Effect.gen(function* () {
      const re =
        args.filter === undefined
          ? undefined
          : yield* Effect.try({
              try: () => new RegExp(args.filter!),
              catch: () =>
                new ToolRefused({
                  reason: 'invalid-argument',
                  message: `filter is not a valid regular expression: ${args.filter!.slice(0, 80)}`,
                }),
            })
      const body = yield* onPlaywrightPage(ctx.errand, 'network requests', async (page) => {
        const log = logOf(page)
        const nav = log.nav()
        const listed = log
          .network()
          .entries.map((e) => ({ e, n: e.seq ?? 0 }))
          .filter(({ e }) => args.all === true || e.nav === nav)
        const matching = listed.filter(({ e }) => re === undefined || re.test(e.url))
        const shown = matching.filter(({ e }) => args.static || !isStatic(e))
        const hidden = matching.length - shown.length
        return [
          '### Result',
          ...(shown.length === 0 ? ['No requests.'] : shown.map(({ e, n }) => line(e, n))),
          ...(hidden > 0
            ? [
                '',
                `Note: ${hidden} static request${hidden === 1 ? '' : 's'} not shown, run with "static" option to see ` +
                  `${hidden === 1 ? 'it' : 'them'}.`,
              ]
            : []),
        ].join('\n')
      })
      return text(`${body}${noFile(args.filename)}`)
    }),
})

/**
 * A response's body, or why not: Playwright waits on the body of a fetch the page never read
 * (Playwright MCP hangs there), so this gives up after a few seconds instead of the whole deadline.
 */
const bodyOf = async (response: { text: () => Promise<string> }): Promise<string> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const gaveUp = new Promise<string>(
    (resolve) => (timer = setTimeout(() => resolve('(not available: the page has not read this body)'), 5_000)),
  )
  try {
    return await Promise.race([response.text().catch(() => '(not available)'), gaveUp])
  } finally {
    clearTimeout(timer)
  }
}

/** `browser_network_request`. @example browserNetworkRequest.run(ctx, { index: 2, part: 'response-body' }) */
export const browserNetworkRequest = tool({
  name: 'browser_network_request',
  title: 'Show network request details',
  description:
    'Returns full details (headers and body) of a single network request, or a single part if `part` is set. Use the ' +
    'number from browser_network_requests.',
  inputSchema: {
    index: z
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .describe('1-based index of the request, as printed by browser_network_requests.'),
    part: z
      .enum(['request-headers', 'request-body', 'response-headers', 'response-body'])
      .optional()
      .describe('Return only this part of the request. Omit to return full details.'),
    filename: z
      .string()
      .max(256)
      .optional()
      .describe('Not used here: the details are returned as text, never written to a file.'),
  },
  run: (ctx, { index, part, filename }) =>
    Effect.gen(function* () {
      const body = yield* onPlaywrightPage(ctx.errand, 'network request', async (page) => {
        const log = logOf(page)
        const e = log.network().entries.find((r) => r.seq === index)
        const request = log.request(index) as unknown as Request | undefined
        if (e === undefined || request === undefined) return undefined
        const headers = (h: Record<string, string>) =>
          Object.entries(h).map(
            ([k, v]) =>
              `    ${k}: ${/^(cookie|set-cookie|authorization|proxy-authorization)$/i.test(k) ? '(hidden)' : v}`,
          )
        const response = await request.response().catch(() => null)
        const sections: Record<string, () => Promise<Array<string>>> = {
          'request-headers': async () => [
            '  Request headers',
            ...headers(await request.allHeaders().catch(() => ({}))),
          ],
          'request-body': async () => ['  Request body', `    ${(request.postData() ?? '(none)').slice(0, 20_000)}`],
          'response-headers': async () => [
            '  Response headers',
            ...(response === null ? ['    (no response)'] : headers(await response.allHeaders().catch(() => ({})))),
          ],
          'response-body': async () => [
            '  Response body',
            `    ${response === null ? '(no response)' : (await bodyOf(response)).slice(0, 20_000)}`,
          ],
        }
        const parts = part === undefined ? ['request-headers', 'response-headers'] : [part]
        const out = [
          `#${index} ${line(e, index).replace(/^\d+\. /, '')}`,
          '',
          `  General`,
          `    type:      ${e.resourceType}`,
        ]
        for (const p of parts) out.push('', ...(await sections[p]!()))
        if (part === undefined)
          out.push('', 'Call browser_network_request with part="response-body" to read the response body.')
        return ['### Result', ...out].join('\n')
      })
      if (body === undefined)
        return yield* new ToolRefused({
          reason: 'invalid-argument',
          message: `There is no request ${index} on this tab; list them with browser_network_requests.`,
        })
      return text(`${body}${noFile(filename)}`)
    }),
})

/** The developer tools. @example devtoolsTools.map((t) => t.name) */
export const devtoolsTools = [
  browserEvaluate,
  browserConsoleMessages,
  browserNetworkRequests,
  browserNetworkRequest,
] as const
