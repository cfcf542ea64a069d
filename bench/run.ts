/**
 * `npm run bench [-- sections…] [--rounds N]` — side-by-side measurements, printed as a table of
 * medians and ratios. Each comparison runs its sides interleaved in one process, on one machine,
 * so the ratio holds even when the machine is noisy. Sections: open, resume, supervisor.
 *
 * @example
 * npm run bench -- resume --rounds 9
 */
import { Chromium, engineLayer } from '@errands/engine'
import type { StorageState } from '@errands/runtime'
import { CHROMIUM_ARGS, resolveExecutable } from '@errands/runtime-chromium'
import { defaultSettings, Supervisor } from '@errands/supervisor'
import CDP from 'chrome-remote-interface'
import { Effect, ManagedRuntime } from 'effect'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { closeSites, serveSites, type Site } from '../test/fixtures/sites.ts'
import { benchSupervisor } from './supervisor.ts'
import { median, printTable, type Row } from './table.ts'

const args = process.argv.slice(2)
const roundsAt = args.indexOf('--rounds')
const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 7
const wanted = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--rounds')
const sections = wanted.length > 0 ? wanted : ['open', 'resume', 'supervisor']
const pause = () => new Promise((r) => setTimeout(r, 300))
const timed = async (f: () => Promise<unknown>) => {
  const start = performance.now()
  await f()
  return performance.now() - start
}

const sites: Site[] = await serveSites(3)
const dataDir = mkdtempSync(join(tmpdir(), 'errands-bench-'))
const managed = ManagedRuntime.make(engineLayer({ settings: defaultSettings({ dataDir, maxErrands: 6, snapshotDebounceMs: 3_000 }) }))
const { supervisor, chromium: engine } = await managed.runPromise(Effect.all({ supervisor: Supervisor, chromium: Chromium }))
const run = <A, E>(e: Effect.Effect<A, E>) => managed.runPromise(e)

// A plain Chromium with a DevTools port: raw Playwright (connectOverCDP) and raw CDP share it.
const launchRaw = async (): Promise<{ browser: Browser; port: number; browserWs: string; close: () => Promise<void> }> => {
  const dir = mkdtempSync(join(tmpdir(), 'errands-bench-raw-'))
  const child = spawn(resolveExecutable(), [...CHROMIUM_ARGS, '--remote-debugging-port=0', `--user-data-dir=${dir}`, 'about:blank'], { stdio: 'ignore' })
  const portFile = join(dir, 'DevToolsActivePort')
  for (let i = 0; i < 200 && !existsSync(portFile); i++) await new Promise((r) => setTimeout(r, 50))
  const [portLine, wsPath] = readFileSync(portFile, 'utf8').split('\n')
  const port = Number(portLine)
  const browserWs = `ws://127.0.0.1:${port}${wsPath}`
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`)
  return {
    browser, port, browserWs,
    close: async () => {
      await browser.close()
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGKILL')
      await exited
      // Chromium's helper processes may still be writing for a moment; a leftover temp dir is harmless.
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
      } catch {
        // left in the temp dir
      }
    },
  }
}

const rows: Row[] = []

if (sections.includes('open')) {
  const raw = await launchRaw()
  const page = sites[0]!.url('/title?t=bench')
  let n = 0
  const sides: Record<string, () => Promise<unknown>> = {
    'raw CDP: createBrowserContext + target + load': async () => {
      const client = await CDP({ target: raw.browserWs })
      const { browserContextId } = await client.send('Target.createBrowserContext', { disposeOnDetach: true })
      const { targetId } = await client.send('Target.createTarget', { url: 'about:blank', browserContextId })
      const { sessionId } = await client.send('Target.attachToTarget', { targetId, flatten: true })
      await client.send('Page.enable', undefined, sessionId)
      const loaded = new Promise<void>((resolve) => client.on('Page.loadEventFired', () => resolve()))
      await client.send('Page.navigate', { url: page }, sessionId)
      await loaded
      await client.send('Target.disposeBrowserContext', { browserContextId })
      await client.close()
    },
    'raw Playwright: newContext + newPage + goto': async () => {
      const context = await raw.browser.newContext()
      await (await context.newPage()).goto(page)
      await context.close()
    },
    'a browser launched per errand': async () => {
      const browser = await chromium.launch({ executablePath: resolveExecutable(), args: [...CHROMIUM_ARGS], handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false })
      await (await browser.newPage()).goto(page)
      await browser.close()
    },
    'Errands: open errand + tab + load (guarded)': async () => {
      const id = `bench-open-${n++}`
      const { contextId } = await run(supervisor.open({ id, kind: 'task' }))
      await run(engine.openTab(contextId, page))
      await run(supervisor.taskChanged(id, 'done'))
    },
  }
  const times = Object.fromEntries(Object.keys(sides).map((k) => [k, [] as number[]]))
  for (const f of Object.values(sides)) await f() // warm-up, each side once
  for (let i = 0; i < rounds; i++) {
    for (const [name, f] of Object.entries(sides)) {
      times[name]!.push(await timed(f))
      await pause()
    }
  }
  const base = median(times['raw CDP: createBrowserContext + target + load']!)
  for (const [name, xs] of Object.entries(times)) rows.push({ section: 'open an errand, load a local page', name, median: median(xs), ratio: median(xs) / base })
  await raw.close()
}

if (sections.includes('resume')) {
  const raw = await launchRaw()
  const tabs = sites.map((s) => s.url('/title?t=tab'))
  const state: StorageState = {
    cookies: sites.map((s, i) => ({ name: 'session', value: `v${i}`, domain: s.host, path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Lax' as const })),
    origins: sites.map((s, i) => ({ origin: s.origin, localStorage: Array.from({ length: 10 }, (_, k) => ({ name: `k${k}`, value: `v-${i}-${k}` })) })),
  }
  // The errand to park and resume: 3 tabs on 3 sites, cookies and localStorage on each.
  const { contextId } = await run(supervisor.open({ id: 'bench-resume', kind: 'task' }))
  await run(engine.addCookies(contextId, state.cookies))
  // Exactly 3 tabs, like the Playwright side: the errand's first (blank) tab takes the first site.
  const [first] = await run(engine.tabs(contextId))
  for (const [i, url] of tabs.entries()) {
    const tab = i === 0 ? await run(engine.navigate(contextId, first!.id, url)) : await run(engine.openTab(contextId, url))
    await engine.pageOf(contextId, tab.id)!.evaluate((items) => { for (const it of items) localStorage.setItem(it.name, it.value) }, state.origins[i]!.localStorage)
  }
  if ((await run(engine.tabs(contextId))).length !== 3) throw new Error('the resume bench needs exactly 3 tabs on each side')
  const ours: number[] = []
  const oursParkResume: number[] = []
  const playwright: number[] = []
  for (let i = 0; i < rounds; i++) {
    await run(supervisor.park('bench-resume'))
    ours.push(await timed(async () => {
      const b = await run(supervisor.resume('bench-resume'))
      const open = await run(engine.tabs(b.contextId))
      await Promise.all(open.map((t) => engine.pageOf(b.contextId, t.id)!.waitForLoadState('load')))
    }))
    await pause()
    oursParkResume.push(await timed(async () => {
      await run(supervisor.park('bench-resume'))
      const b = await run(supervisor.resume('bench-resume'))
      const open = await run(engine.tabs(b.contextId))
      await Promise.all(open.map((t) => engine.pageOf(b.contextId, t.id)!.waitForLoadState('load')))
    }))
    await pause()
    playwright.push(await timed(async () => {
      const context = await raw.browser.newContext({ storageState: { cookies: state.cookies.map((c) => ({ ...c })), origins: state.origins.map((o) => ({ ...o, localStorage: [...o.localStorage] })) } })
      for (const url of tabs) await (await context.newPage()).goto(url)
      await context.close()
    }))
    await pause()
  }
  const base = median(playwright)
  const section = 'resume 3 tabs on 3 sites (cookies + localStorage)'
  rows.push({ section, name: 'Playwright: newContext({ storageState }) + goto per tab', median: base, ratio: 1 })
  rows.push({ section, name: 'Errands: resume (unseal + restore + tabs loaded)', median: median(ours), ratio: median(ours) / base })
  rows.push({ section, name: 'Errands: park + resume', median: median(oursParkResume), ratio: median(oursParkResume) / base })
  await raw.close()
}

await managed.dispose()
rmSync(dataDir, { recursive: true, force: true })
await closeSites(sites)

if (sections.includes('supervisor')) rows.push(...(await benchSupervisor()))

printTable(rows, { rounds, node: process.version, chromium: resolveExecutable() })
