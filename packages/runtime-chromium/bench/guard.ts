/**
 * What the guard costs: a page with 100 sub-resources, loaded in a fresh context, with
 * - no interception at all,
 * - the guard as the runtime wires it (browser-level CDP `Fetch` pausing only URLs the policy
 *   might block — this loopback site on a port that is not the engine's is not paused),
 * - the same, pausing every request (what a URL the policy might block pays),
 * - the guard through Playwright's `context.route('**\/*')` (which also disables the HTTP cache),
 * and how many of 3 fetches of a cacheable URL reach the server in each.
 *
 * Run: `npx tsx packages/runtime-chromium/bench/guard.ts [rounds]`
 *
 * @example
 * // none 530 ms, patterns 540 ms (1.0×), Fetch pausing all 1140 ms (2.1×), context.route 810 ms (1.5×)
 */
import { decide, defaultPolicy } from '@errands/guard'
import { chromium, type Browser, type BrowserContext } from 'playwright-core'
import { closeSites, serveSites } from '../../../test/fixtures/sites.ts'
import { guardBrowserRequests } from '../src/containment.ts'
import { CHROMIUM_ARGS, resolveExecutable } from '../src/options.ts'
import { median, ms, timed } from './stats.ts'

const rounds = Number(process.argv[2] ?? '9')
const [site] = await serveSites(1)
const policy = defaultPolicy([{ host: '127.0.0.1', port: 7070 }])

type Mode = 'none' | 'browser-fetch' | 'browser-fetch-all' | 'context-route'

const measure = async (mode: Mode) => {
  const server = await chromium.launchServer({
    executablePath: resolveExecutable(),
    args: [...CHROMIUM_ARGS],
    headless: true,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  })
  const browser: Browser = await chromium.connect(server.wsEndpoint())
  if (mode === 'browser-fetch') await guardBrowserRequests(browser, policy, () => undefined, 'bench')
  if (mode === 'browser-fetch-all') await guardBrowserRequests(browser, policy, () => undefined, 'bench', ['*'])
  const open = async (): Promise<BrowserContext> => {
    const context = await browser.newContext()
    if (mode === 'context-route') {
      await context.route('**/*', (route) =>
        decide(route.request().url(), policy).allow ? route.continue() : route.abort('blockedbyclient'),
      )
    }
    return context
  }
  const times: Array<number> = []
  for (let i = 0; i < rounds + 1; i++) {
    const context = await open()
    const page = await context.newPage()
    const t = await timed(() => page.goto(site!.url('/assets?n=100'), { waitUntil: 'load' }))
    if (i > 0) times.push(t) // the first round warms the browser up
    await context.close()
  }
  const context = await open()
  const page = await context.newPage()
  await page.goto(site!.url('/title?t=cache'))
  const before = site!.hits.get('/cached') ?? 0
  for (let i = 0; i < 3; i++) await page.evaluate((u) => fetch(u).then((r) => r.text()), site!.url('/cached'))
  const cacheHits = (site!.hits.get('/cached') ?? 0) - before
  await context.close()
  await browser.close()
  await server.close()
  return { time: median(times), cacheHits }
}

const none = await measure('none')
const fetchMode = await measure('browser-fetch')
const fetchAll = await measure('browser-fetch-all')
const route = await measure('context-route')
console.log(`page with 100 sub-resources until load, median of ${rounds}; server hits for 3 fetches of a cacheable URL`)
console.log(`  no interception:                   ${ms(none.time)}  1.00×  hits ${none.cacheHits}`)
console.log(
  `  guard, runtime default (patterns): ${ms(fetchMode.time)}  ${(fetchMode.time / none.time).toFixed(2)}×  hits ` +
    `${fetchMode.cacheHits}`,
)
console.log(
  `  guard, browser Fetch pausing all:  ${ms(fetchAll.time)}  ${(fetchAll.time / none.time).toFixed(2)}×  hits ` +
    `${fetchAll.cacheHits}`,
)
console.log(
  `  guard via context.route('**/*'):   ${ms(route.time)}  ${(route.time / none.time).toFixed(2)}×  hits ` +
    `${route.cacheHits}`,
)
console.log(
  `  per paused request: Fetch +${((fetchAll.time - none.time) / 101).toFixed(2)} ms, route ` +
    `+${((route.time - none.time) / 101).toFixed(2)} ms`,
)
await closeSites([site!])
