/**
 * The runtime owns the page (docs/adr/0049-runtime-owns-the-page.md), on real Chromium through the real
 * host's HTTP route: `POST /v1/navigate` makes exactly ONE call at the runtime's seam (a counting
 * wrapper around the host's real runtime), whether the tab the verbs drive is the one of the last
 * call or another one became active meanwhile (a tab opened behind the verbs' back) —
 * and it navigates that new tab, fitted to the session's viewport. Before, a navigate made 4
 * runtime calls with the active tab known and 7 when it had changed.
 */
import { countingRuntime } from '@errands/runtime'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveSites, closeSites, type Site } from '../fixtures/sites.ts'
import { startTestHost, type TestHost } from './harness.ts'

let site: Site
let host: TestHost
let calls: Array<string> = []

beforeAll(async () => {
  ;[site] = (await serveSites(1)) as [Site]
  host = await startTestHost(
    // No debounced snapshot fires while a test counts (it would be a call of the supervisor's, not the verb's).
    { ERRANDS_LOCALHOST_PORTS: `${site.port}`, ERRANDS_SNAPSHOT_DEBOUNCE_MS: '60000' },
    undefined,
    0,
    {
      observeRuntime: (runtime) => {
        const counting = countingRuntime(runtime)
        calls = counting.calls
        return counting.runtime
      },
    },
  )
})
afterAll(async () => {
  await host?.stop()
  if (site) await closeSites([site])
})

/** The runtime calls one HTTP call makes. */
const counted = async (key: string, method: string, path: string, body?: unknown) => {
  calls.length = 0
  const reply = await host.call(key, method, path, body)
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return { body: reply.body, calls: [...calls] }
}

describe('POST /v1/navigate is one runtime call (docs/adr/0049-runtime-owns-the-page.md)', () => {
  it('with the active tab known, and after another tab became active; it drives the new one', async () => {
    const key = 'one-call'
    await counted(key, 'POST', '/v1/navigate', { url: site.url('/title?t=opened') }) // opens the errand
    await counted(key, 'POST', '/v1/viewport', { width: 640, height: 480 })

    const known = await counted(key, 'POST', '/v1/navigate', { url: site.url('/title?t=known') })
    expect(known.calls).toEqual(['pages.go'])
    expect(known.body).toMatchObject({ url: site.url('/title?t=known'), title: 'known' })

    // A tab opened behind the verbs' back (the runtime itself, not through the counted seam) becomes the active one.
    const context = host.supervisor.contextOf(`session:${key}`)!
    const behind = await host.run(host.chromium.openTab(context, 'about:blank'))
    const changed = await counted(key, 'POST', '/v1/navigate', { url: site.url('/title?t=changed') })
    expect(changed.calls).toEqual(['pages.go'])
    expect(changed.body).toMatchObject({ url: site.url('/title?t=changed'), title: 'changed' })
    expect(changed.body.tab).toMatch(new RegExp(`-${behind.id}$`))
    // The runtime fitted the new tab to the session's viewport when it became the driven one.
    expect(host.chromium.pageOf(context, behind.id)!.viewportSize()).toEqual({ width: 640, height: 480 })

    const tabs = (await host.call(key, 'GET', '/v1/tabs')).body.tabs as Array<{ id: string; url: string }>
    expect(tabs.map((t) => t.url)).toEqual([site.url('/title?t=known'), site.url('/title?t=changed')])
  })
})
