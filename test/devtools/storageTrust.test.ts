/**
 * The runtime reads an errand's localStorage only for origins a document of has existed since
 * its last read (docs/runtime-chromium.md, Storage). A DevTools client can change storage out of
 * its sight: through a page session it clears an origin no tab shows. Tried as that client would,
 * with chrome-remote-interface against the host `npm start` runs: what it cleared must not come
 * back from the errand's sealed record when the errand is parked and resumed.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import CDP from 'chrome-remote-interface'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from '../fixtures/processes.ts'
import { startShippedHost, type ShippedHost } from '../fixtures/shippedHost.ts'
import { serveFixture, type Fixture } from '../host/fixtures.ts'

let host: ShippedHost
let a: Fixture
let b: Fixture

beforeAll(async () => {
  ;[host, a, b] = await Promise.all([
    startShippedHost({ ERRANDS_SNAPSHOT_DEBOUNCE_MS: '300' }),
    serveFixture('127.0.0.1'),
    serveFixture('127.0.0.2'),
  ])
})
afterAll(async () => {
  await Promise.all([host?.stop(), a?.close(), b?.close()])
})

const shown = async (key: string, site: Fixture) => {
  expect((await host.call(key, 'POST', '/v1/navigate', { url: site.url('/show') })).status).toBe(200)
  return (await host.call(key, 'GET', '/v1/text')).body.text as string
}

describe("a DevTools client changes storage out of the runtime's sight", () => {
  it('an origin it clears with no tab showing it stays cleared after park and resume', async () => {
    const key = 'trust'
    expect((await host.call(key, 'POST', '/v1/navigate', { url: a.url('/store?v=from-a') })).status).toBe(200)
    expect((await host.call(key, 'POST', '/v1/navigate', { url: b.url('/store?v=from-b') })).status).toBe(200)
    // The snapshot after b's load has read a (its document is gone): the runtime knows a's items.
    const token = readFileSync(join(host.dataDir, 'host-token'), 'utf8').trim()
    expect(
      await eventually(async () => {
        const res = await fetch(`${host.url}/v1/person/sessions`, { headers: { authorization: `Bearer ${token}` } })
        const { sessions } = (await res.json()) as { sessions: Array<{ conversationId: string; detail: string }> }
        return sessions.find((s) => s.conversationId === `session:${key}`)?.detail.includes('snapshot=clean') === true
      }, 20_000),
    ).toBe(true)

    const client = await CDP({ target: await host.devtoolsUrl(key), local: true })
    try {
      const { targetInfos } = await client.send('Target.getTargets')
      const page = targetInfos.find((t) => t.type === 'page' && t.url.startsWith(b.origin))!
      const { sessionId } = await client.send('Target.attachToTarget', { targetId: page.targetId, flatten: true })
      await client.send('Storage.clearDataForOrigin', { origin: a.origin, storageTypes: 'local_storage' }, sessionId)
    } finally {
      await client.close()
    }

    expect((await host.call(key, 'POST', '/v1/session/task', { status: 'interrupted' })).body).toEqual({
      lifecycle: 'parked',
    })
    // Resumed by the next call: a shows nothing of its own any more, b still has its item.
    expect(await shown(key, a)).toMatch(/storage=$/m)
    expect(await shown(key, b)).toContain('storage=from-b')
  })
})
