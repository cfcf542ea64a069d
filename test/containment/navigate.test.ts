/**
 * Issue #21 (G2, G3): an agent's own `POST /v1/navigate` (and `POST /v1/tabs`) to a name that
 * resolves to an engine port is refused like the address itself — the same 403
 * `BlockedByPolicy` naming the rule — before any page is touched, and 0 bytes reach the port.
 * Before, the host judged the URL's text only: `http://vm:<port>/` (/etc/hosts: 127.0.0.1)
 * answered 200 while `/v1/fetch` refused it.
 *
 * The names: `vm` (the system resolver, /etc/hosts), `engine.test` (Chromium's
 * --host-resolver-rules, which the host resolves with too) and `localhost.`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { enginePortListener, hostileSite, startHostileHost, type HostileSite } from './harness.ts'

let engine: Awaited<ReturnType<typeof enginePortListener>>
let site: HostileSite
let host: Awaited<ReturnType<typeof startHostileHost>>

beforeAll(async () => {
  engine = await enginePortListener()
  site = await hostileSite()
  host = await startHostileHost({ enginePort: engine.port, egress: true })
})
afterAll(async () => {
  await host?.stop()
  await site?.close()
  await engine?.close()
})

/** What a refusal says, without the URL it names. */
const shape = (reply: { status: number; body: { error?: { code?: string; message?: string } } }) => ({
  status: reply.status,
  code: reply.body.error?.code,
  rule: /\(rule ([a-z-]+):/.exec(reply.body.error?.message ?? '')?.[1],
})

describe('an agent navigating to a name that resolves to an engine port (G2, G3)', () => {
  it('is refused like the literal address, by /v1/navigate and /v1/tabs, and the port receives nothing', async () => {
    const literal = await host.call('nav-1', 'POST', '/v1/navigate', { url: `http://127.0.0.1:${engine.port}/` })
    expect(shape(literal)).toEqual({ status: 403, code: 'BlockedByPolicy', rule: 'own-port' })
    for (const name of ['vm', 'engine.test', 'localhost.']) {
      const url = `http://${name}:${engine.port}/health?token=x`
      const navigated = await host.call('nav-1', 'POST', '/v1/navigate', { url })
      expect(shape(navigated), `${name}: ${JSON.stringify(navigated.body)}`).toEqual(shape(literal))
      expect(navigated.body.error.message).toContain(`${name}:${engine.port}`)
      expect(navigated.body.error.message).not.toContain('token=x')
      const tab = await host.call('nav-1', 'POST', '/v1/tabs', { url })
      expect(shape(tab), name).toEqual(shape(literal))
    }
    // The control: the same session navigates to an allowed loopback site through the same door.
    const allowed = await host.call('nav-1', 'POST', '/v1/navigate', {
      url: `http://vm:${site.port}/redirect?to=/worker.js`,
    })
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200)
    expect(engine.seen).toEqual({ tcpConnections: 0, tcpBytes: 0, udpBytes: 0, lines: [] })
  })
})
