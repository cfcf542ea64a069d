/**
 * G3 (docs/containment.md, "Lanes are the engine's own"): an errand's egress lane is a loopback
 * port, and any local process can connect to it. Before, it found an open proxy there, with the
 * errand's upstream proxy and its credentials attached. Through the host on its real port: the
 * errand's page reaches its site and its upstream through its lane, while another local process
 * (not one the engine started: orphaned, so its parent is not ours) sending a plain proxy request
 * and a CONNECT through the same lane gets a 403 and nothing reaches the site or the upstream.
 */
import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:net'
import type { ChromiumRuntime } from '@errands/runtime-chromium'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loggingProxy } from '../fixtures/proxies.ts'
import { enginePortListener, hostileSite, type HostileSite, startHostileHost } from './harness.ts'

let engine: Awaited<ReturnType<typeof enginePortListener>>
let site: HostileSite
let proxy: Awaited<ReturnType<typeof loggingProxy>>
let host: Awaited<ReturnType<typeof startHostileHost>>

beforeAll(async () => {
  engine = await enginePortListener()
  site = await hostileSite()
  proxy = await loggingProxy('L', 'lane', 'pw-lane-8d21')
  host = await startHostileHost({ enginePort: engine.port, egress: true })
})
afterAll(async () => {
  await host?.stop()
  await Promise.all([site?.close(), proxy?.close(), engine?.close()])
})

/**
 * What a process that is none of ours reads back from `port` after sending `request`: the script
 * runs in a node whose parent, a shell, exits at once, so it is nobody's child of ours. It
 * reports to a collector of the test's.
 */
const strangerSends = async (port: number, request: string): Promise<string> => {
  let answer = ''
  const done = new Promise<void>((resolve) => {
    collector.once('connection', (s) => {
      s.on('data', (d: Buffer) => (answer += d.toString('latin1')))
      s.on('end', () => resolve())
    })
  })
  const script =
    `const net = require('net'); const out = net.connect(${collectorPort}, '127.0.0.1');` +
    `const s = net.connect(${port}, '127.0.0.1', () => s.write(${JSON.stringify(request)}));` +
    `let got = ''; s.on('data', (d) => (got += d)); s.on('error', (e) => (got += 'error ' + e.code));` +
    `s.on('close', () => out.end(got || 'closed with nothing'));`
  const shell = spawn('sh', ['-c', `"${process.execPath}" -e "$0" </dev/null >/dev/null 2>&1 &`, script], {
    stdio: 'ignore',
  })
  await new Promise((r) => shell.once('exit', r))
  await done
  return answer
}
let collector: Server
let collectorPort = 0
beforeAll(async () => {
  collector = createServer()
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', () => r()))
  collectorPort = (collector.address() as { port: number }).port
})
afterAll(() => new Promise<void>((r) => collector.close(() => r())))

describe("an errand's egress lane (G3)", () => {
  it("carries its own browser's pages, and refuses a plain local socket of another process", async () => {
    const page = `http://127.0.0.1:${site.port}/redirect?to=/worker.js`
    expect((await host.call('lane-1', 'PUT', '/v1/session/proxy', { url: proxy.url })).status).toBe(200)
    expect((await host.call('lane-1', 'POST', '/v1/navigate', { url: page })).status).toBe(200)
    await proxy.reached('/worker.js')
    const egress = (host.chromium as ChromiumRuntime).egress!
    const seenBefore = proxy.seen.length
    const strangersBefore = egress.stats().strangers

    for (const lanePort of egress.ports()) {
      const plain = await strangerSends(
        lanePort,
        `GET http://127.0.0.1:${site.port}/stranger HTTP/1.1\r\nhost: 127.0.0.1:${site.port}\r\n\r\n`,
      )
      expect(plain, `lane ${lanePort}`).toMatch(/^HTTP\/1\.1 403 /)
      const tunnel = await strangerSends(
        lanePort,
        `CONNECT 127.0.0.1:${site.port} HTTP/1.1\r\nhost: 127.0.0.1:${site.port}\r\n\r\n`,
      )
      expect(tunnel, `lane ${lanePort}`).toMatch(/^HTTP\/1\.1 403 /)
    }
    expect(egress.ports().length).toBeGreaterThan(0)
    expect(proxy.seen.slice(seenBefore)).toEqual([])
    expect(egress.stats().strangers - strangersBefore).toBe(2 * egress.ports().length)
    // The errand's own browser still goes through: its lanes admitted it before and after.
    expect((await host.call('lane-1', 'POST', '/v1/navigate', { url: `${page}&again=1` })).status).toBe(200)
    expect(engine.seen.tcpBytes).toBe(0)
  })
})
