// Issue #13 (A1, C2, E4, H2): a DevTools connection follows its errand. Park closes it with a
// reason and revokes the URL (resume hands out a new one); release revokes it; after a SIGKILL of
// the errands' browser a client reconnects with the same URL and finds its tabs back. An open
// connection drives its errand (never parked to make room), and an idle one does not pin it.
import { makeDevTools } from '@errands/devtools'
import { defaultPolicy } from '@errands/guard'
import { Effect, Exit, Scope } from 'effect'
import * as http from 'node:http'
import * as net from 'node:net'
import type { AddressInfo } from 'node:net'
import { chromium } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { eventually } from '../fixtures/processes.ts'
import { useDevToolsHost } from './harness.ts'

const env = useDevToolsHost(1, { ERRANDS_MAX_SESSIONS: '2' })

/** A raw client: resolves `closed` with the close frame's code and reason. */
const rawClient = (url: string) =>
  new Promise<{ readonly ws: WebSocket; readonly closed: Promise<{ code: number; reason: string }> }>(
    (resolve, reject) => {
      const ws = new WebSocket(url)
      const closed = new Promise<{ code: number; reason: string }>((r) =>
        ws.on('close', (code, reason) => r({ code, reason: reason.toString() })),
      )
      ws.once('open', () => resolve({ ws, closed }))
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
      ws.once('error', reject)
    },
  )

/** The HTTP status an upgrade to `url` is refused with (101 when it is taken). */
const upgradeStatus = (url: string) =>
  rawClient(url).then(
    ({ ws }) => (ws.close(), 101),
    (e: Error) => Number(/HTTP (\d+)/.exec(e.message)?.[1] ?? 0),
  )

const view = (key: string) => env().host.run(env().host.supervisor.view(`session:${key}`))

describe('a DevTools connection follows its errand', () => {
  it('park closes it with the reason and revokes the URL; resume gives a new one; release revokes that', async () => {
    const { host } = env()
    const first = await env().endpoint('park')
    const { ws, closed } = await rawClient(first)
    expect(await eventually(async () => (await view('park')).driven)).toBe(true)
    // A tab the client opens is the errand's: parked with it, back after resume (E4).
    const tabUrl = env().sites[0]!.url('/title?t=opened-by-the-client')
    ws.send(JSON.stringify({ id: 1, method: 'Target.createTarget', params: { url: tabUrl } }))
    const tabs = async () =>
      ((await host.call('park', 'GET', '/v1/tabs')).body.tabs as Array<{ url: string }>).map((t) => t.url)
    expect(await eventually(async () => (await tabs()).includes(tabUrl))).toBe(true)

    expect((await host.call('park', 'POST', '/v1/session/task', { status: 'interrupted' })).body.lifecycle).toBe(
      'parked',
    )
    const why = await closed
    expect(why.code).toBe(4001)
    expect(why.reason).toMatch(/parked.*new URL/)
    expect(await upgradeStatus(first)).toBe(404)

    // Resumed by the next call (here: asking for the endpoint again): a new URL, the old one still refused.
    const second = await env().endpoint('park')
    expect(second).not.toBe(first)
    expect((await view('park')).state).toBe('active')
    expect(await tabs()).toContain(tabUrl)
    expect(await upgradeStatus(first)).toBe(404)
    const again = await rawClient(second)
    expect((await host.call('park', 'DELETE', '/v1/session')).status).toBe(200)
    expect((await again.closed).code).toBe(4002)
    expect(await upgradeStatus(second)).toBe(404)
  })

  it('drives its errand while open (never parked to make room, C2) and lets it go when closed', async () => {
    const { host } = env()
    const browser = await chromium.connectOverCDP(await env().endpoint('driver'))
    try {
      expect(await eventually(async () => (await view('driver')).driven)).toBe(true)
      // Two slots: `driver` is the least recently used, but it is driven, so `other` makes room.
      expect((await host.call('other', 'GET', '/v1/url')).status).toBe(200)
      expect((await host.call('third', 'GET', '/v1/url')).status).toBe(200)
      expect((await view('driver')).state).toBe('active')
      expect((await view('other')).state).toBe('parked')
      expect(browser.isConnected()).toBe(true)
    } finally {
      await browser.close()
    }
    expect(await eventually(async () => !(await view('driver')).driven)).toBe(true)
    await Promise.all(['driver', 'other', 'third'].map((k) => host.call(k, 'DELETE', '/v1/session')))
  })

  it('lets the errand go when the client leaves while its connection is being set up', async () => {
    const { host } = env()
    const url = new URL(await env().endpoint('leaver'))
    const socket = net.connect(host.port, '127.0.0.1')
    await new Promise<void>((r) => socket.once('connect', () => r()))
    socket.write(
      `GET ${url.pathname} HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    )
    socket.destroy()
    expect(
      await eventually(() => host.logs.some((l) => l === 'devtools: a client of session:leaver disconnected (1006)')),
    ).toBe(true)
    expect((await view('leaver')).driven).toBe(false)
    await host.call('leaver', 'DELETE', '/v1/session')
  })

  it('closes an idle connection after the idle limit, so it does not pin the errand', async () => {
    const { host } = env()
    // A second endpoint on the same engine with a short idle limit, served by a server of its own.
    const scope = Effect.runSync(Scope.make())
    const server = http.createServer()
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as AddressInfo).port
    try {
      const devtools = await Effect.runPromise(
        makeDevTools({
          baseUrl: () => `ws://127.0.0.1:${port}`,
          policy: defaultPolicy([]),
          log: () => undefined,
          idleMs: 400,
        }).pipe(Effect.provide(host.services), Scope.extend(scope)),
      )
      server.on('upgrade', (req, socket, head) => void (devtools.upgrade(req, socket, head) || socket.destroy()))
      expect((await host.call('idle', 'GET', '/v1/url')).status).toBe(200)
      const { url } = await Effect.runPromise(devtools.endpoint('session:idle'))
      const { closed } = await rawClient(url)
      expect(await eventually(async () => (await view('idle')).driven)).toBe(true)
      expect((await closed).code).toBe(4003)
      expect(await eventually(async () => !(await view('idle')).driven)).toBe(true)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      server.close()
      await host.call('idle', 'DELETE', '/v1/session')
    }
  })

  it(
    "after a SIGKILL of the errands' browser, a client reconnects with the same URL and finds its tabs back " + '(H2)',
    async () => {
      const { host, sites } = env()
      const site = sites[0]!
      const url = await env().endpoint('heal')
      let browser = await chromium.connectOverCDP(url)
      const page = await browser.contexts()[0]!.newPage()
      await page.goto(site.url('/title?t=before-the-crash'))
      // Healing restores the last snapshot: wait until it holds the client's tab.
      expect(
        await eventually(() =>
          (host.supervisor.lastSnapshot('session:heal')?.tabs ?? []).some((t) => t.url.includes('before-the-crash')),
        ),
      ).toBe(true)
      const disconnected = new Promise((r) => browser.once('disconnected', r))
      process.kill(host.chromium.errandsBrowserPid()!, 'SIGKILL')
      await disconnected

      let reconnected: typeof browser | undefined
      expect(
        await eventually(
          async () => {
            reconnected = await chromium.connectOverCDP(url).catch(() => undefined)
            return reconnected !== undefined
          },
          30_000,
          200,
        ),
      ).toBe(true)
      browser = reconnected!
      try {
        expect(
          browser
            .contexts()[0]!
            .pages()
            .map((p) => p.url()),
        ).toContain(site.url('/title?t=before-the-crash'))
        expect((await view('heal')).state).toBe('active')
      } finally {
        await browser.close()
      }
    },
  )
})
