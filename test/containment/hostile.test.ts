/**
 * Issue #21 (G3, G4): a hostile page in an errand, driven through the host on its real port,
 * tries every channel it has — speculation-rules prefetch and prerender, fetch, XHR, iframe, form,
 * redirect, beacon, EventSource, image, WebSockets from the main frame, a sandboxed srcdoc
 * iframe, a dedicated, a shared and a service worker, WebRTC (STUN, TURN over UDP and TCP) and
 * WebTransport — against the engine's port under every spelling (127.0.0.1, 127.1, 0x7f000001,
 * [::ffff:127.0.0.1], 0.0.0.0, localhost., a name mapped to loopback by --host-resolver-rules,
 * and `vm`, which /etc/hosts maps to 127.0.0.1), and a name that resolves to a private address.
 *
 * Judged on the wire: a TCP and a UDP listener on the engine port (every local address) count
 * what reaches them — 0 bytes — and the page's report holds nothing of the engine's. The private
 * name is refused by the egress's decision before any connect: no traffic is ever sent to it.
 * no-egress.test.ts runs the same page with the egress off and finds the leaks.
 */
import type { EgressDecision } from '@errands/egress'
import type { ChromiumRuntime } from '@errands/runtime-chromium'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from '../host/harness.ts'
import {
  ENGINE_SECRET,
  enginePortListener,
  hostileSite,
  spellings,
  startHostileHost,
  type HostileSite,
} from './harness.ts'
import type { Attack } from './page.ts'

let engine: Awaited<ReturnType<typeof enginePortListener>>
let site: HostileSite
let host: Awaited<ReturnType<typeof startHostileHost>>
const decisions: Array<EgressDecision> = []

beforeAll(async () => {
  engine = await enginePortListener()
  site = await hostileSite()
  host = await startHostileHost({ enginePort: engine.port, egress: true })
  ;(host.chromium as ChromiumRuntime).egress!.observe((d) => decisions.push(d))
})
afterAll(async () => {
  await host?.stop()
  await site?.close()
  await engine?.close()
})

describe('a hostile page behind the egress (G3, G4)', () => {
  it(
    'reaches 0 bytes of the engine port by any channel or spelling, nor a private address, and learns ' + 'nothing',
    async () => {
      const attack: Attack = {
        targets: spellings(engine.port),
        udpTargets: [`127.0.0.1:${engine.port}`, `[::1]:${engine.port}`],
        privateTargets: ['intranet.test:80'],
      }
      const url = `http://127.0.0.1:${site.port}/hostile?attack=${encodeURIComponent(JSON.stringify(attack))}`
      const opened = await host.call('hostile-1', 'POST', '/v1/navigate', { url })
      expect(opened.status).toBe(200)
      // Part 1 (every channel but the workers'), then part 2 — or the tab closed by the runtime
      // when a worker's WebSocket to a blocked address showed up (contexts.ts).
      const settled = await until(
        () =>
          site.reports.length >= 2 ||
          (site.reports.length === 1 && host.logs.some((l) => l.includes('escaped routing'))),
        60_000,
      )
      expect(settled, `reports: ${JSON.stringify(site.reports)}\nlogs:\n${host.logs.slice(-30).join('\n')}`).toBe(true)
      const report = JSON.stringify(site.reports)
      console.log(`hostile page report: ${report}`)

      expect(engine.seen, `reached the engine port: ${engine.seen.lines.join(' | ')}\nreport: ${report}`).toEqual({
        tcpConnections: 0,
        tcpBytes: 0,
        udpBytes: 0,
        lines: [],
      })
      expect(report).not.toContain(ENGINE_SECRET)
      // The channels ran (the positive): the page's own site was reached through the egress, for the errand (its lane).
      const errands = new Set(decisions.filter((d) => d.target.endsWith(`:${site.port}`)).map((d) => d.errand))
      expect([...errands], "the hostile site is reached through one errand's lane").toHaveLength(1)
      expect([...errands][0]).not.toMatch(/^(main|spare)$/)
      expect(decisions.some((d) => d.allow && d.target.endsWith(`:${site.port}`))).toBe(true)
      // Names are resolved and judged by the egress: loopback names on the engine port by own-port …
      for (const name of ['engine.test', 'vm']) {
        expect(
          decisions.some((d) => !d.allow && d.rule === 'own-port' && d.target.includes(`//${name}:${engine.port}`)),
          name,
        ).toBe(true)
      }
      // … and the private name by its address, before any connect: it was never allowed to dial.
      expect(decisions.some((d) => !d.allow && d.rule === 'private' && d.target.includes('intranet.test'))).toBe(true)
      expect(decisions.filter((d) => d.allow && d.target.includes('intranet.test'))).toEqual([])
      // Each decision was logged once, scheme://host:port only (L7).
      const errand = [...errands][0]!
      const egressLines = host.logs.filter((l) => l.startsWith('egress: ') && l.includes(` for ${errand} `))
      expect(egressLines.length).toBe(decisions.filter((d) => d.errand === errand).length)
      expect(egressLines.filter((l) => /\/(fetch|xhr|ws|prefetch|private|events|beacon)\b|\?/.test(l))).toEqual([])
      // Health says a page was refused something: counts by rule on the open door, and no errand named (X1).
      const health = await (await fetch(`${host.url}/health`)).text()
      const egress = JSON.parse(health).runtime.egress
      expect(egress).toMatchObject({ on: true, remoteBypasses: false })
      expect(egress.refused).toBeGreaterThan(0)
      expect(egress.byRule['own-port']).toBeGreaterThan(0)
      expect(egress.lastRefusedAt).toEqual(expect.any(Number))
      expect(health).not.toContain(errand)
      expect(health).not.toContain('hostile-1')
    },
  )
})
