/**
 * Forty small tasks — each opens an isolated context, loads a fixture page, reads its title, sets
 * a cookie and closes — four at a time, four ways: raw CDP (the baseline), raw Playwright
 * contexts, puppeteer-cluster (`CONCURRENCY_CONTEXT`, `maxConcurrency: 4`, puppeteer-core on the
 * same Chromium and flags) and Errands (four parallel errands through the supervisor).
 *
 * @example
 * rows.push(...(await benchForty(bench)))
 */
import { CHROMIUM_ARGS, resolveExecutable } from '@errands/runtime-chromium'
import puppeteer from 'puppeteer-core'
import { Cluster } from 'puppeteer-cluster'
import { cdpErrand, interleave, launchRaw, type Bench } from './common.ts'
import { errandOpenLoadClose } from './open.ts'
import { median, type Row } from './table.ts'

const TASKS = 40
const PARALLEL = 4
const SECTION = `${TASKS} tasks (open, load, read title, set cookie, close), ${PARALLEL} at a time`

/** Runs `task(0..count-1)` on `PARALLEL` workers; counts failures instead of stopping. */
const fourAtATime = async (
  task: (k: number) => Promise<void>,
  failures: { n: number; last?: string },
  count: number,
): Promise<void> => {
  let next = 0
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let k = next++; k < count; k = next++) {
        await task(k).catch((e: unknown) => {
          failures.n++
          failures.last = e instanceof Error ? e.message.split('\n')[0] : String(e)
        })
      }
    }),
  )
}

export const benchForty = async (bench: Bench, rounds: number, noEgress?: Bench): Promise<Row[]> => {
  const raw = await launchRaw()
  const cluster: Cluster<string, void> = await Cluster.launch({
    concurrency: Cluster.CONCURRENCY_CONTEXT,
    maxConcurrency: PARALLEL,
    puppeteer,
    puppeteerOptions: {
      executablePath: resolveExecutable(),
      args: [...CHROMIUM_ARGS],
      headless: true,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    },
    retryLimit: 0,
    timeout: 60_000,
  })
  await cluster.task(async ({ page, data: url }) => {
    await page.goto(url, { waitUntil: 'load' })
    const title = await page.title()
    await page.browserContext().setCookie({ name: 'seen', value: title, domain: new URL(url).hostname, path: '/' })
  })
  const urlOf = (k: number) => bench.sites[k % bench.sites.length]!.url(`/title?t=task-${k}`)
  const cookieFor = (k: number, title: string) => ({
    name: 'seen',
    value: title,
    domain: new URL(urlOf(k)).hostname,
    path: '/',
  })
  let n = 0
  const baseline = 'raw CDP: 4 workers on one browser connection'
  const direct = 'Errands with the egress off (measurement only, issue #21)'
  const names = [
    baseline,
    'raw Playwright: 4 workers, newContext per task',
    'puppeteer-cluster: CONCURRENCY_CONTEXT, maxConcurrency 4',
    'Errands: 4 parallel errands through the supervisor',
    ...(noEgress ? [direct] : []),
  ] as const
  const failures = Object.fromEntries(names.map((k) => [k, { n: 0 } as { n: number; last?: string }]))
  const sides = (count: number) => ({
    [names[0]]: () =>
      fourAtATime(
        async (k) => {
          const e = await cdpErrand(raw.cdp)
          await e.load(urlOf(k))
          const { result } = await raw.cdp.send(
            'Runtime.evaluate',
            { expression: 'document.title', returnByValue: true },
            e.sessionId,
          )
          await raw.cdp.send('Storage.setCookies', {
            cookies: [cookieFor(k, String(result.value))],
            browserContextId: e.browserContextId,
          })
          await e.close()
        },
        failures[names[0]]!,
        count,
      ),
    [names[1]]: () =>
      fourAtATime(
        async (k) => {
          const context = await raw.browser.newContext()
          const page = await context.newPage()
          await page.goto(urlOf(k))
          await context.addCookies([cookieFor(k, await page.title())])
          await context.close()
        },
        failures[names[1]]!,
        count,
      ),
    [names[2]]: () => fourAtATime((k) => cluster.execute(urlOf(k)), failures[names[2]]!, count),
    [names[3]]: () => fourAtATime((k) => errandTask(bench, k), failures[names[3]]!, count),
    ...(noEgress ? { [direct]: () => fourAtATime((k) => errandTask(noEgress, k), failures[direct]!, count) } : {}),
  })
  const errandTask = async (on: Bench, k: number): Promise<void> => {
    await errandOpenLoadClose(on, `bench-forty-${n++}`, urlOf(k), async (contextId) => {
      const [tab] = await on.run(on.engine.tabs(contextId))
      await on.run(
        on.engine.addCookies(contextId, [
          { ...cookieFor(k, tab!.title), expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' },
        ]),
      )
    })
  }
  // Warm-up: one batch of 4 per side (a whole batch of 40 would double the section's time).
  const times = await interleave(sides(TASKS), rounds, 1_000, sides(PARALLEL))
  await cluster.close()
  await raw.close()
  const base = median(times[baseline]!)
  return names.map((name) => {
    const f = failures[name]!
    const label = f.n > 0 ? `${name} [${f.n} of ${TASKS * rounds + PARALLEL} tasks failed: ${f.last}]` : name
    return { section: SECTION, name: label, median: median(times[name]!), ratio: median(times[name]!) / base }
  })
}
