/**
 * Proof the hostile-page suite can fail (issue #21): the same page and the same targets as
 * hostile.test.ts, with the egress switched off (`egress: false`, a setting for tests). The CDP
 * guard alone misses names that resolve to loopback, speculation-rules prefetch, workers'
 * WebSockets, WebRTC and WebTransport — the listener on the engine port sees them arrive.
 * The private name is left out here: without the egress, Chromium would really connect to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from '../host/harness.ts'
import { enginePortListener, hostileSite, spellings, startHostileHost, type HostileSite } from './harness.ts'
import type { Attack } from './page.ts'

let engine: Awaited<ReturnType<typeof enginePortListener>>
let site: HostileSite
let host: Awaited<ReturnType<typeof startHostileHost>>

beforeAll(async () => {
  engine = await enginePortListener()
  site = await hostileSite()
  host = await startHostileHost({ enginePort: engine.port, egress: false })
})
afterAll(async () => {
  await host?.stop()
  await site?.close()
  await engine?.close()
})

describe('the same hostile page with the egress off', () => {
  it('reaches the engine port: the suite finds leaks when the egress is missing', async () => {
    const attack: Attack = {
      targets: spellings(engine.port),
      udpTargets: [`127.0.0.1:${engine.port}`, `[::1]:${engine.port}`],
      privateTargets: [],
    }
    const url = `http://127.0.0.1:${site.port}/hostile?attack=${encodeURIComponent(JSON.stringify(attack))}`
    expect((await host.call('leaky-1', 'POST', '/v1/navigate', { url })).status).toBe(200)
    // Part 1 (every channel but the workers'), then part 2 — or the tab closed by the runtime
    // when a worker's WebSocket to a blocked address showed up (contexts.ts).
    const settled = await until(
      () =>
        site.reports.length >= 2 || (site.reports.length === 1 && host.logs.some((l) => l.includes('escaped routing'))),
      60_000,
    )
    expect(settled, `reports: ${JSON.stringify(site.reports)}\nlogs:\n${host.logs.slice(-30).join('\n')}`).toBe(true)
    console.log(
      `without the egress: ${engine.seen.tcpConnections} TCP connections, ${engine.seen.tcpBytes} TCP bytes, ` +
        `${engine.seen.udpBytes} UDP bytes; ${engine.seen.lines.join(' | ')}`,
    )
    expect(engine.seen.tcpBytes + engine.seen.udpBytes).toBeGreaterThan(0)
  })
})
