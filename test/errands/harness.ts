/**
 * The whole engine (real Chromium, sealed store on disk, supervisor) in-process on a temp data
 * dir, for the errand-level integration tests.
 *
 * @example
 * const e = await startEngine({ maxErrands: 4 })
 * const { contextId } = await e.run(e.supervisor.open({ id: 't', kind: 'task' }))
 * const page = await e.newPage(contextId, site.url('/'))
 * await e.stop()
 */
import { Chromium, engineLayer, type EngineOptions } from '@errands/engine'
import type { ContextId } from '@errands/runtime'
import { defaultSettings, Supervisor, type SupervisorSettings } from '@errands/supervisor'
import { Effect, ManagedRuntime } from 'effect'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'

export const startEngine = async (
  settings: Partial<SupervisorSettings> = {},
  options: Omit<EngineOptions, 'settings'> = {},
  dataDir = mkdtempSync(join(tmpdir(), 'errands-engine-')),
) => {
  const logs: string[] = []
  const managed = ManagedRuntime.make(
    engineLayer({
      ...options,
      settings: defaultSettings({ maxErrands: 4, snapshotDebounceMs: 300, ...settings, dataDir }),
      chromium: { log: (line) => logs.push(line), ...options.chromium },
    }),
  )
  const { supervisor, chromium } = await managed.runPromise(Effect.all({ supervisor: Supervisor, chromium: Chromium }))
  const run = <A, E>(effect: Effect.Effect<A, E>) => managed.runPromise(effect)
  /** Opens a tab in the context and loads `url`; returns its Playwright page. */
  const newPage = async (contextId: ContextId, url: string): Promise<Page> => {
    const tab = await run(chromium.openTab(contextId, url))
    return chromium.pageOf(contextId, tab.id)!
  }
  return {
    supervisor,
    chromium,
    dataDir,
    logs,
    run,
    newPage,
    /** Closes the engine (parks every open errand) and keeps the data dir. */
    close: () => managed.dispose(),
    /** Closes the engine and removes the data dir. */
    stop: async () => {
      await managed.dispose()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export type Engine = Awaited<ReturnType<typeof startEngine>>

/** The page's view of its own session: the cookie header its server saw and its localStorage. */
export const seen = async (page: Page, echoUrl: string) => {
  await page.goto(echoUrl)
  const echo = JSON.parse((await page.textContent('body')) ?? '{}') as { cookie?: string }
  const basket = await page.evaluate(() => localStorage.getItem('basket'))
  return { cookie: echo.cookie ?? '', localBasket: basket }
}
