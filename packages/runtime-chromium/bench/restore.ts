/**
 * Restore speed: an errand coming back with cookies + localStorage of 3 origins and 3 tabs on
 * those origins, until every tab has fired `load`.
 *
 * - baseline: Playwright's `browser.newContext({ storageState })` (one navigation per origin to
 *   write localStorage) + a page and a `goto` per tab, in parallel;
 * - ours: `ChromiumRuntime.openContext({ storage, tabs })` (cookies via `addCookies`,
 *   localStorage via an init script, tabs in parallel), guard included — with the warm spare
 *   context (the default) and without it (`warmSpare: false`).
 *
 * Run: `npx tsx packages/runtime-chromium/bench/restore.ts [rounds]`
 *
 * @example
 * // baseline median 1234.5 ms, ours median 456.7 ms, ratio 0.37×
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { StorageState } from '@errands/runtime'
import { Effect } from 'effect'
import { chromium } from 'playwright-core'
import { closeSites, serveSites } from '../../../test/fixtures/sites.ts'
import { ChromiumRuntime } from '../src/ChromiumRuntime.ts'
import { CHROMIUM_ARGS, resolveExecutable } from '../src/options.ts'
import { median, ms, timed } from './stats.ts'

const rounds = Number(process.argv[2] ?? '9')
const sites = await serveSites(3)
const state: StorageState = {
  cookies: sites.map((s, i) => ({
    name: 'session',
    value: `v${i}`,
    domain: s.host,
    path: '/',
    expires: -1,
    httpOnly: true,
    secure: false,
    sameSite: 'Lax' as const,
  })),
  origins: sites.map((s, i) => ({
    origin: s.origin,
    localStorage: Array.from({ length: 20 }, (_, k) => ({ name: `key${k}`, value: `value-${i}-${k}`.repeat(10) })),
  })),
}
const tabs = sites.map((s, i) => ({ url: s.url('/'), active: i === 1 }))

const server = await chromium.launchServer({
  executablePath: resolveExecutable(),
  args: [...CHROMIUM_ARGS],
  headless: true,
  handleSIGINT: false,
  handleSIGTERM: false,
  handleSIGHUP: false,
})
const browser = await chromium.connect(server.wsEndpoint())
const dataDir = mkdtempSync(join(tmpdir(), 'errands-bench-'))
const runtime = await Effect.runPromise(ChromiumRuntime.make({ dataDir }))
const coldDir = mkdtempSync(join(tmpdir(), 'errands-bench-'))
const cold = await Effect.runPromise(ChromiumRuntime.make({ dataDir: coldDir, warmSpare: false }))

const baseline = async () => {
  const context = await browser.newContext({
    storageState: {
      cookies: state.cookies.map((c) => ({ ...c })),
      origins: state.origins.map((o) => ({ origin: o.origin, localStorage: [...o.localStorage] })),
    },
  })
  await Promise.all(tabs.map(async (t) => (await context.newPage()).goto(t.url, { waitUntil: 'load' })))
  return context
}
const restoreWith = (rt: ChromiumRuntime) => async () => {
  const id = await Effect.runPromise(
    rt.openContext({ errandId: 'bench', label: { reason: 'task', lentSites: [] }, storage: state, tabs }),
  )
  await Promise.all(['t1', 't2', 't3'].map((t) => rt.pageOf(id, t)!.waitForLoadState('load')))
  return id
}
const ours = restoreWith(runtime)
const oursCold = restoreWith(cold)

// Check both restore the same thing before timing anything.
{
  const id = await ours()
  const page = runtime.pageOf(id, 't3')!
  const got = await page.evaluate(() => localStorage.getItem('key19'))
  if (got !== state.origins[2]!.localStorage[19]!.value) throw new Error(`ours restored ${got}`)
  await Effect.runPromise(runtime.closeContext(id))
  const ctx = await baseline()
  await ctx.close()
}

// Let the previous round's processes finish exiting, so neither side pays for the other's teardown.
const settle = () => new Promise((r) => setTimeout(r, 500))
const base: Array<number> = []
const mine: Array<number> = []
const mineCold: Array<number> = []
for (let i = 0; i < rounds; i++) {
  let ctx: Awaited<ReturnType<typeof baseline>> | undefined
  base.push(
    await timed(async () => {
      ctx = await baseline()
    }),
  )
  await ctx?.close()
  await settle()
  let id = ''
  mine.push(
    await timed(async () => {
      id = await ours()
    }),
  )
  await Effect.runPromise(runtime.closeContext(id))
  await settle()
  mineCold.push(
    await timed(async () => {
      id = await oursCold()
    }),
  )
  await Effect.runPromise(cold.closeContext(id))
  await settle()
}

const b = median(base)
const o = median(mine)
const c = median(mineCold)
console.log(`restore 3 origins (cookies + 20 localStorage items each) + 3 tabs, until load; ${rounds} rounds`)
console.log(`  playwright newContext({ storageState }) + goto per tab:  median ${ms(b)}`)
console.log(`  ChromiumRuntime.openContext, warm spare (default):      median ${ms(o)}  ratio ${(o / b).toFixed(2)}×`)
console.log(`  ChromiumRuntime.openContext, warmSpare: false:          median ${ms(c)}  ratio ${(c / b).toFixed(2)}×`)

await Effect.runPromise(runtime.shutdown)
await Effect.runPromise(cold.shutdown)
rmSync(coldDir, { recursive: true, force: true })
await browser.close()
await server.close()
await closeSites(sites)
rmSync(dataDir, { recursive: true, force: true })
