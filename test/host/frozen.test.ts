import type { ChromiumRuntime } from '@errands/runtime-chromium'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { beats, beatsHeld, closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { serveFixture, type Fixture } from './fixtures.ts'
import { startTestHost, type TestHost, until } from './harness.ts'

// Setting aside in two steps through the real host (C4, docs/parking.md): an idle session is
// frozen — its context kept, its pages held — and its next /v1 call thaws it on the same context,
// the page's own memory, cookies and storage as they were. Idle limits of milliseconds, which no
// variable may set, so the sweep is waited on rather than a quarter of an hour.

let site: Fixture
let host: TestHost
/** Sites whose `/worker-page` starts a worker that beacons every 10 ms (counted in `hits`). */
let beating: Array<Site>

beforeAll(async () => {
  site = await serveFixture('127.0.0.1')
  beating = await serveSites(2)
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '2' }, undefined, 0, {}, (s) => ({
    ...s,
    supervisor: { ...s.supervisor, idleMs: 500, parkIdleMs: 3_600_000, sweepEveryMs: 100 },
  }))
})
afterAll(async () => {
  await host?.stop()
  await site?.close()
  await closeSites(beating ?? [])
})

const lifecycle = async (key: string) => (await host.call(key, 'GET', '/v1/state')).body.lifecycle as string

describe('a frozen session through the host (C4)', () => {
  it('goes frozen when idle, reads do not wake it, and its next verb answers on the same page, as it was', async () => {
    await host.call('fz', 'POST', '/v1/navigate', { url: site.url('/store?v=apple') })
    await host.call('fz', 'POST', '/v1/navigate', { url: site.url('/show') })
    const contextId = host.supervisor.contextOf('session:fz')!
    const runtime = host.runtime as ChromiumRuntime
    const [tab] = await host.run(runtime.tabs(contextId))
    const page = runtime.pageOf(contextId, tab!.id)!
    // Memory only the page holds: a reload or a reopened context would lose it.
    await page.evaluate(() => {
      ;(window as unknown as { kept: string }).kept = 'in the page'
    })

    expect(await until(async () => (await lifecycle('fz')) === 'frozen', 20_000)).toBe(true)
    // Reading the state is not use: it stays frozen, and says where it is from its last snapshot.
    const state = (await host.call('fz', 'GET', '/v1/state')).body
    expect(state).toMatchObject({ lifecycle: 'frozen', url: site.url('/show') })
    expect(await lifecycle('fz')).toBe('frozen')
    expect((await host.call(undefined, 'GET', '/health')).body).toMatchObject({ open: 1, frozen: 1 })

    const started = performance.now()
    const url = await host.call('fz', 'GET', '/v1/url')
    const took = performance.now() - started
    expect(url.status).toBe(200)
    expect(url.body.url).toBe(site.url('/show'))
    expect(await lifecycle('fz')).toBe('active')
    expect(host.supervisor.contextOf('session:fz')).toBe(contextId)
    expect(await page.evaluate(() => (window as unknown as { kept: string }).kept)).toBe('in the page')
    expect((await host.call('fz', 'GET', '/v1/text')).body.text).toContain('cookie=basket=apple storage=apple')
    host.logs.push(`frozen resume through the host: ${took.toFixed(1)} ms`)
  })

  it('at the cap a frozen session is parked before an active one is', async () => {
    await host.call('fz-a', 'POST', '/v1/navigate', { url: site.url('/page?t=a') })
    expect(await until(async () => (await lifecycle('fz-a')) === 'frozen', 20_000)).toBe(true)
    // `fz` (from above) is frozen too by now unless used: use it so it is the active one.
    await host.call('fz', 'GET', '/v1/url')
    await host.call('fz-b', 'POST', '/v1/navigate', { url: site.url('/page?t=b') })
    expect(await lifecycle('fz-a')).toBe('parked')
    expect(await lifecycle('fz-b')).toBe('active')
  })

  it("a hostile page's worker cannot work on while its errand is frozen: no beacon until the next verb", async () => {
    const [hostile, witness] = [beating[0]!, beating[1]!]
    expect((await host.call('fzw', 'POST', '/v1/navigate', { url: hostile.url('/worker-page') })).status).toBe(200)
    // The witness beats in the person's own browser of the same Chromium, which is never frozen.
    await host.run(host.runtime.openTab(host.runtime.mainContext, witness.url('/worker-page')))
    expect(await until(async () => beats(hostile) > 5 && beats(witness) > 5)).toBe(true)
    expect(await until(async () => (await lifecycle('fzw')) === 'frozen', 20_000)).toBe(true)
    const held = await beatsHeld(hostile, witness)
    expect(held).toBeDefined()
    // The next verb thaws it: the page and its worker run again, on the same context.
    expect((await host.call('fzw', 'GET', '/v1/url')).body.url).toBe(hostile.url('/worker-page'))
    expect(await until(async () => beats(hostile) > held! + 5)).toBe(true)
  })
})
