/**
 * G2: "the machine" is every address of its own interfaces, not loopback alone. A service bound
 * to every address (`::`, which answers IPv4 too, as `0.0.0.0` does) answers on the machine's
 * non-loopback addresses; before, a page's `fetch('http://<eth0 address>:port/')` (also
 * `[::ffff:…]`), `/v1/fetch` and `/v1/navigate` reached it, since such an address is public to
 * the guard, and an upstream proxy named by that address or by a name for it carried the pages'
 * bytes there. Through the host on its real port, against real Chromium and the egress.
 *
 * The address is one the test gives an interface it makes itself (a veth pair, `ip` from
 * iproute2, as root): 198.51.100.77 and 2001:db8:e::77, documentation ranges, so no traffic ever
 * leaves the machine. Where the test may not make interfaces, it uses an address the machine
 * already has. Judged on the wire: the service counts every byte — 0.
 */
import { execFileSync } from 'node:child_process'
import { networkInterfaces } from 'node:os'
import type { EgressDecision } from '@errands/egress'
import type { ChromiumRuntime } from '@errands/runtime-chromium'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loggingProxy } from '../fixtures/proxies.ts'
import { until } from '../host/harness.ts'
import { ENGINE_SECRET, enginePortListener, hostileSite, type HostileSite, startHostileHost } from './harness.ts'
import type { Attack } from './page.ts'

const LINK = `errm${process.pid % 100_000}`
let v4 = '198.51.100.77'
let v6: string | undefined = '2001:db8:e::77'

/** A veth pair holding the test's addresses; false where interfaces cannot be made (not root). */
const makeInterface = (): boolean => {
  try {
    execFileSync('ip', ['link', 'add', LINK, 'type', 'veth', 'peer', 'name', `${LINK}p`], { stdio: 'pipe' })
    execFileSync('ip', ['addr', 'add', `${v4}/32`, 'dev', LINK], { stdio: 'pipe' })
    execFileSync('ip', ['addr', 'add', `${v6}/128`, 'dev', LINK, 'nodad'], { stdio: 'pipe' })
    for (const link of [LINK, `${LINK}p`]) execFileSync('ip', ['link', 'set', link, 'up'], { stdio: 'pipe' })
    return true
  } catch {
    return false
  }
}

let engine: Awaited<ReturnType<typeof enginePortListener>>
let service: Awaited<ReturnType<typeof enginePortListener>>
let site: HostileSite
let proxy: Awaited<ReturnType<typeof loggingProxy>>
let host: Awaited<ReturnType<typeof startHostileHost>>
let made = false
const decisions: Array<EgressDecision> = []

beforeAll(async () => {
  made = makeInterface()
  if (!made) {
    const own = Object.values(networkInterfaces())
      .flatMap((l) => l ?? [])
      .find((i) => i.family === 'IPv4' && !i.internal)
    if (own === undefined) throw new Error('this machine has no non-loopback IPv4 address to test with')
    v4 = own.address
    v6 = undefined
  }
  engine = await enginePortListener()
  service = await enginePortListener()
  site = await hostileSite()
  proxy = await loggingProxy('P', 'pat', 'pw-upstream-3c1e')
  host = await startHostileHost({
    enginePort: engine.port,
    egress: true,
    resolverRules: `MAP machine.test ${v4}`,
  })
  ;(host.chromium as ChromiumRuntime).egress!.observe((d) => decisions.push(d))
})
afterAll(async () => {
  await host?.stop()
  await Promise.all([site?.close(), proxy?.close(), engine?.close(), service?.close()])
  if (made) execFileSync('ip', ['link', 'del', LINK], { stdio: 'pipe' })
})

const rule = (reply: { body: { error?: { message?: string } } }) =>
  /\(rule ([a-z-]+):/.exec(reply.body.error?.message ?? '')?.[1]

describe("the machine's own non-loopback addresses (G2)", () => {
  it('give a page, in every spelling and by a name, nothing of a service bound to every address', async () => {
    const spellings = [v4, `[::ffff:${v4}]`, 'machine.test', ...(v6 ? [`[${v6}]`] : [])]
    const attack: Attack = {
      targets: spellings.map((h) => `${h}:${service.port}`),
      udpTargets: [],
      privateTargets: [],
    }
    const url = `http://127.0.0.1:${site.port}/hostile?attack=${encodeURIComponent(JSON.stringify(attack))}`
    expect((await host.call('own-1', 'POST', '/v1/navigate', { url })).status).toBe(200)
    const settled = await until(
      () =>
        site.reports.length >= 2 || (site.reports.length === 1 && host.logs.some((l) => l.includes('escaped routing'))),
      60_000,
    )
    expect(settled, `reports: ${JSON.stringify(site.reports)}`).toBe(true)
    const report = JSON.stringify(site.reports)
    expect(service.seen, `reached the service: ${service.seen.lines.join(' | ')}\n${report}`).toMatchObject({
      tcpConnections: 0,
      tcpBytes: 0,
    })
    expect(report).not.toContain(ENGINE_SECRET)
    // Refused by its own rule, for what the page asked and for the name that resolves to it.
    for (const h of [v4, 'machine.test'])
      expect(
        decisions.some((d) => !d.allow && d.rule === 'own-address' && d.target.includes(`//${h}:${service.port}`)),
        h,
      ).toBe(true)
  })

  it('give /v1/fetch and /v1/navigate a 403 naming the rule, in every spelling', async () => {
    for (const h of [v4, `[::ffff:${v4}]`, 'machine.test', ...(v6 ? [`[${v6}]`] : [])]) {
      const target = `http://${h}:${service.port}/`
      const navigated = await host.call('own-2', 'POST', '/v1/navigate', { url: target })
      expect(navigated.status, `${h}: ${JSON.stringify(navigated.body)}`).toBe(403)
      expect(rule(navigated), h).toBe('own-address')
      // `/v1/fetch` resolves by the system's resolver, which knows no `machine.test` (Chromium's rule).
      if (h === 'machine.test') continue
      const fetched = await host.call('own-2', 'POST', '/v1/fetch', { url: target })
      expect(fetched.status, `${h}: ${JSON.stringify(fetched.body)}`).toBe(403)
      expect(rule(fetched), h).toBe('own-address')
    }
    expect(service.seen.tcpBytes).toBe(0)
  })

  it('are no upstream proxy, by address or by name, nor is an engine port by a loopback name (G2)', async () => {
    const page = `http://127.0.0.1:${site.port}/redirect?to=/worker.js`
    // The control: an upstream proxy on loopback, on a port not the engine's, carries the page.
    expect((await host.call('own-3', 'PUT', '/v1/session/proxy', { url: proxy.url })).status).toBe(200)
    expect((await host.call('own-3', 'POST', '/v1/navigate', { url: page })).status).toBe(200)
    await proxy.reached('/worker.js')
    const upstreams = [
      `http://${v4}:${service.port}`,
      `http://machine.test:${service.port}`,
      `http://vm:${engine.port}`,
      `http://engine.test:${engine.port}`,
    ]
    for (const [i, upstream] of upstreams.entries()) {
      const key = `own-up-${i}`
      expect((await host.call(key, 'PUT', '/v1/session/proxy', { url: upstream })).status, upstream).toBe(200)
      await host.call(key, 'POST', '/v1/navigate', { url: page })
      const refused = (d: EgressDecision) =>
        !d.allow && d.target === `upstream ${upstream}` && (d.rule === 'own-address' || d.rule === 'own-port')
      expect(await until(() => decisions.some(refused), 20_000), upstream).toBe(true)
    }
    expect(service.seen.tcpBytes).toBe(0)
    expect(engine.seen).toEqual({ tcpConnections: 0, tcpBytes: 0, udpBytes: 0, lines: [] })
  })
})
