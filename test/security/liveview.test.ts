/**
 * The live view attacked from the same machine (issue 23, X4, V1): the person signs in with a
 * real browser; a dev server on another loopback port that the person's browser opens records
 * every Cookie header it is sent; a plain process replays what that server saw — a cookie, with
 * the live view's own Origin and Host forged — to the JSON API, to close, and to the screencast
 * socket. The sign-in sets no cookie, so the other port sees nothing; and a cookie holding the very
 * sign-in id (what the old cookie sign-in set, put into the person's browser here) gives nothing
 * either: 401 on the API and on the socket, the errand left running. The control: the same id in
 * the page's header, or the socket's subprotocol, opens it — the refusals are the cookie path's.
 */
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocket } from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from '../host/harness.ts'
import { startLiveHarness, type LiveHarness } from '../liveview/harness.ts'

let h: LiveHarness
let dev: http.Server
/** The Cookie header of each request the dev server received (undefined: none sent). */
const devSaw: Array<string | undefined> = []
const key = 'sec-live'
const conversation = `session:${key}`

beforeAll(async () => {
  h = await startLiveHarness({ ERRANDS_MAX_SESSIONS: '2' })
  await h.navigate(key, h.site.url('/page?t=sec-live'))
  // A local dev server the person opens in the same browser: another port of 127.0.0.1.
  dev = http.createServer((req, res) => {
    devSaw.push(req.headers.cookie)
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>dev server</title><p>hello')
  })
  await new Promise<void>((r) => dev.listen(0, '127.0.0.1', r))
})
afterAll(async () => {
  await new Promise((r) => dev?.close(r))
  await h?.stop()
})

/** The answer to a WebSocket upgrade of the live socket: the status a refusal carries, or 'open'. */
const upgrade = (headers: Record<string, string>, protocols?: ReadonlyArray<string>): Promise<number | 'open'> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(
      `ws://127.0.0.1:${h.host.port}/live/socket`,
      protocols === undefined ? [] : [...protocols],
      { headers },
    )
    ws.on('open', () => {
      resolve('open')
      ws.close()
    })
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0)
      res.resume()
    })
    ws.on('error', (e) => reject(e))
  })

describe('the live view opens only with a secret no other loopback port receives (X4)', () => {
  it(
    'a dev server on another port the person opens receives no sign-in; a replayed cookie with a forged Origin ' +
      'gives no state, no close and no socket',
    async () => {
      const viewer = await h.signedIn()
      try {
        const liveId = viewer.liveId!
        expect(liveId).toMatch(/^[A-Za-z0-9_-]{43}$/)
        const own = `127.0.0.1:${h.host.port}`
        const devUrl = `http://127.0.0.1:${(dev.address() as AddressInfo).port}/`

        // 1. The sign-in as it ships: the person's browser holds no cookie, and sends none to the dev server.
        expect(await viewer.context.cookies()).toEqual([])
        const tab = await viewer.context.newPage()
        await tab.goto(devUrl)
        expect(devSaw.length).toBeGreaterThanOrEqual(1)
        expect(devSaw.filter((c) => c !== undefined)).toEqual([])

        // 2. The old design's cookie, `errands_live=<the sign-in id>` (HttpOnly, SameSite=Strict,
        // for 127.0.0.1): cookies ignore ports, so the dev server receives it — the premise is real.
        await viewer.context.addCookies([
          { name: 'errands_live', value: liveId, domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Strict' },
        ])
        devSaw.length = 0
        await tab.reload()
        const seen = devSaw.find((c) => c?.includes('errands_live='))
        expect(seen).toBe(`errands_live=${liveId}`)

        // 3. A plain process replays what the dev server saw, forging the live view's Origin and Host.
        const forged = { host: own, origin: `http://${own}`, cookie: seen!, 'sec-fetch-site': 'same-origin' }
        const state = await request(h.host.port, { path: '/live/api/state', headers: forged })
        expect(state.status).toBe(401)
        expect(state.body.error.code).toBe('Unauthorized')
        expect(JSON.stringify(state.body)).not.toContain(conversation)
        const close = await request(h.host.port, {
          method: 'POST',
          path: `/live/api/conversations/${encodeURIComponent(conversation)}/close`,
          headers: { ...forged, 'content-type': 'application/json' },
          body: '{}',
        })
        expect(close.status).toBe(401)
        expect((await h.host.run(h.host.supervisor.view(conversation))).state).toBe('active')
        // The screencast socket: the cookie with the forged Origin, with the bare protocol, or with
        // the cookie's value guessed into another header, is refused at the upgrade.
        expect(await upgrade(forged)).toBe(401)
        expect(await upgrade(forged, ['errands-live'])).toBe(401)
        expect(await upgrade({ ...forged, 'x-errands-live': liveId })).toBe(401)
        // Even in the person's own live-view page, where the browser attaches the cookie itself, a
        // call without the page's header is refused: the cookie carries no authority anywhere.
        expect(
          await viewer.page.evaluate(async () => (await fetch('/live/api/state', { credentials: 'include' })).status),
        ).toBe(401)

        // 4. The control: the same id where the page's script puts it opens the API and the socket.
        const header = await request(h.host.port, {
          path: '/live/api/state',
          headers: { host: own, 'x-errands-live': liveId },
        })
        expect(header.status).toBe(200)
        expect(JSON.stringify(header.body)).toContain(conversation)
        expect(await upgrade({ host: own, origin: `http://${own}` }, ['errands-live', liveId])).toBe('open')
      } finally {
        await viewer.context.close()
      }
    },
  )
})
