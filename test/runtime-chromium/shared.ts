/**
 * One Chromium per vitest worker (issue #28, the model of Playwright's `browserTest.ts`): a
 * worker-scoped fixture starts one `ChromiumRuntime` the first time a file of the worker asks for
 * it, and every file after it in that worker leases the same one. Each test opens errands of its
 * own (a fresh browser context each), so what is shared is the browser process, never a context.
 *
 * A lease gives the file its own view: the log lines and runtime events from its own start, and a
 * `runtime` that remembers the contexts the file opened. Giving the lease back closes those
 * contexts, clears the person's main context (cookies, storage, extra tabs), so the next file finds
 * the browser as a fresh runtime leaves it. The browser is shut down when the worker ends.
 *
 * Who keeps a runtime of their own (docs/testing.md): files that kill the browser or its renderers,
 * count processes, shut the runtime down, or start it with other options (a guard policy, no warm
 * spare, a failing page factory) — and every test that starts a host, whose runtime holds the
 * person's profile and is what the test is about.
 *
 * @example
 * const shared = useSharedRuntime()
 * it('…', async () => { const { h } = shared(); await h.run(h.runtime.openContext(spec('a'))) })
 */
import type { ContextId, RuntimeEvent } from '@errands/runtime'
import type { ChromiumRuntime } from '@errands/runtime-chromium'
import { Effect } from 'effect'
import { afterAll, beforeAll, test as base } from 'vitest'
import { serveSite, type Site } from '../fixtures/sites.ts'
import { type Harness, startRuntime } from './harness.ts'

/** Where the shared runtime's words go: the file that holds the lease, or nowhere between files. */
interface Sinks {
  logs: Array<string> | undefined
  events: Array<RuntimeEvent> | undefined
}

/** The worker's browser, and how many files have leased it (a test checks the sharing). */
export interface SharedChromium {
  readonly lease: () => Promise<Lease>
  readonly leases: () => number
}

/** A file's hold on the worker's browser. */
export interface Lease {
  readonly h: Harness
  readonly release: () => Promise<void>
}

const MAIN = 'main'

/** Puts the person's main context back as a fresh runtime has it: no cookies, no storage, one blank tab. */
const resetMain = (runtime: ChromiumRuntime) =>
  Effect.gen(function* () {
    yield* runtime.removeCookies(MAIN, () => true)
    yield* runtime.clearOrigins(MAIN, () => true)
    const [first, ...rest] = yield* runtime.tabs(MAIN)
    for (const tab of rest) yield* runtime.closeTab(MAIN, tab.id)
    if (first !== undefined && first.url !== 'about:blank') yield* runtime.navigate(MAIN, first.id, 'about:blank')
  })

/** Starts the runtime every file of the worker leases. */
const startShared = async (): Promise<{ readonly shared: SharedChromium; readonly stop: () => Promise<void> }> => {
  const sinks: Sinks = { logs: undefined, events: undefined }
  const h = await startRuntime({ extra: { log: (line) => sinks.logs?.push(line) } })
  await h.run(h.runtime.subscribe((e) => sinks.events?.push(e)))
  let leases = 0
  let held = false
  const lease = async (): Promise<Lease> => {
    // Files of one worker run one after another; two holders would mix their logs and contexts.
    if (held) throw new Error('the shared runtime is already leased: files of a worker run one at a time')
    held = true
    leases += 1
    const opened = new Set<ContextId>()
    const logs: Array<string> = []
    const events: Array<RuntimeEvent> = []
    Object.assign(sinks, { logs, events })
    // The real runtime, except that the contexts this file opens are remembered for the release.
    const runtime = new Proxy(h.runtime, {
      get: (target, key, receiver) =>
        key === 'openContext'
          ? (...args: Parameters<ChromiumRuntime['openContext']>) =>
              target.openContext(...args).pipe(
                Effect.tap((id) => {
                  opened.add(id)
                }),
              )
          : Reflect.get(target, key, receiver),
    })
    const release = async () => {
      for (const id of opened) await h.run(runtime.closeContext(id))
      await h.run(resetMain(h.runtime).pipe(Effect.orDie))
      Object.assign(sinks, { logs: undefined, events: undefined })
      held = false
    }
    return {
      h: {
        ...h,
        runtime,
        logs,
        events,
        stop: () => Promise.reject(new Error('the shared runtime is stopped by its worker, not by a file')),
      },
      release,
    }
  }
  return { shared: { lease, leases: () => leases }, stop: h.stop }
}

/**
 * vitest's `test` with the worker's browser as the worker-scoped fixture `chromium`.
 *
 * @example
 * test('…', async ({ chromium }) => expect(chromium.leases()).toBeGreaterThan(0))
 */
export const test = base.extend('chromium', { scope: 'worker' }, async ({}, { onCleanup }) => {
  const { shared, stop } = await startShared()
  onCleanup(stop)
  return shared
})

/**
 * Leases the worker's browser before the file's tests and gives it back after them; the function
 * returned gives the tests the lease's harness.
 *
 * @example
 * const shared = useSharedRuntime()
 * it('…', async () => { const { h } = shared() })
 */
export const useSharedRuntime = (): (() => { readonly h: Harness; readonly chromium: SharedChromium }) => {
  let held: { lease: Lease; chromium: SharedChromium } | undefined
  test.beforeAll(async ({ chromium }) => {
    held = { lease: await chromium.lease(), chromium }
  })
  test.afterAll(async () => {
    await held?.lease.release()
  })
  return () => {
    if (held === undefined) throw new Error('useSharedRuntime: the lease is taken in beforeAll, which did not finish')
    return { h: held.lease.h, chromium: held.chromium }
  }
}

/**
 * Leases the worker's shared Chromium (`shared.ts`) and starts one fixture site before a test
 * file's tests, and gives both back after them; the returned function gives them to the tests.
 *
 * @example
 * const setup = useRuntimeAndSite()
 * it('…', async () => { const { h, site } = setup() })
 */
export const useRuntimeAndSite = (host = '127.0.0.1'): (() => { readonly h: Harness; readonly site: Site }) => {
  const shared = useSharedRuntime()
  let site: Site | undefined
  beforeAll(async () => {
    site = await serveSite(host)
  })
  afterAll(async () => {
    await site?.close()
  })
  return () => {
    if (!site) throw new Error('beforeAll did not finish')
    return { h: shared().h, site }
  }
}
