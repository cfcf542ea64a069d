import { it } from '@effect/vitest'
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'
import { Readable } from 'node:stream'
import { Effect, Fiber, TestClock } from 'effect'
import { describe, expect } from 'vitest'
import { DailyBrowser, makeDailyBrowser } from './DailyBrowser.ts'
import { makeDailyDoor, type DailyDoorOptions } from './door.ts'
import { dailyExtensionId } from './extensionId.ts'
import type { DailyBrowserOptionsInput } from './options.ts'

const ORIGIN = `chrome-extension://${dailyExtensionId}`
const OTHER_ID = 'a'.repeat(32)
const ADMIN = 'admin-token-for-tests'

interface Reply {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly json: any
}

const parseJson = (text: string): any => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** One HTTP request with full control of headers and of the local (source) address. */
const send = (
  port: number,
  path: string,
  options: {
    method?: string
    headers?: Record<string, string>
    body?: string | object
    host?: string
    localAddress?: string
  } = {},
): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const body =
      typeof options.body === 'string'
        ? options.body
        : options.body === undefined
          ? undefined
          : JSON.stringify(options.body)
    const headers: Record<string, string> = {
      ...(options.body !== undefined && typeof options.body !== 'string' ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    }
    const req = httpRequest(
      {
        host: options.host ?? '127.0.0.1',
        port,
        path,
        method: options.method ?? 'POST',
        headers,
        localAddress: options.localAddress,
      },
      (res) => {
        let text = ''
        res.on('data', (c: Buffer) => (text += c.toString('utf8')))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: parseJson(text) }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })

/** The service, its door, and a server on `host` (loopback by default) answering 404 elsewhere. */
const serve = (options: DailyBrowserOptionsInput = {}, door: DailyDoorOptions = {}, host = '127.0.0.1') =>
  Effect.gen(function* () {
    const daily = yield* makeDailyBrowser(options)
    const handler = yield* makeDailyDoor({ adminToken: ADMIN, ...door }).pipe(
      Effect.provideService(DailyBrowser, daily),
    )
    const server = createServer(async (req, res) => {
      if (!(await handler(req, res))) {
        res.writeHead(404, { 'content-type': 'text/plain' })
        res.end('not the door')
      }
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void server.listen(0, host, () => resume(Effect.void))),
      () =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        }),
    )
    const port = (server.address() as AddressInfo).port
    const call = (path: string, options: Parameters<typeof send>[2] = {}) =>
      Effect.promise(() => send(port, path, options))
    const admin = (path: string, body: object) =>
      call(`/daily/admin${path}`, { body, headers: { authorization: `Bearer ${ADMIN}` } })
    const ext = (path: string, body: object = {}, token?: string, origin = ORIGIN) =>
      call(`/daily${path}`, { body, headers: { origin, ...(token ? { authorization: `Bearer ${token}` } : {}) } })
    const pair = (botId = 'bot-1') =>
      Effect.gen(function* () {
        const { json } = yield* admin('/pairings', { botId })
        const redeemed = yield* ext('/redeem', { code: json.code })
        expect(redeemed.status).toBe(200)
        return redeemed.json.token as string
      })
    return { daily, handler, port, call, admin, ext, pair }
  })

/** A non-loopback address of this machine, if it has one. */
const external = Object.values(networkInterfaces())
  .flat()
  .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address

const errorOf = (reply: Reply) => reply.json?.error as { code: string; reason: string; message: string } | undefined

describe('the door — who may call (D2, B7)', () => {
  it.scoped.skipIf(external === undefined)(
    `refuses a non-loopback peer (a server on ${external ?? 'no external address'})`,
    () =>
      Effect.gen(function* () {
        const { port, daily } = yield* serve({}, {}, external)
        const { code } = yield* daily.createPairing('bot-1')
        const reply = yield* Effect.promise(() =>
          send(port, '/daily/redeem', {
            host: external,
            localAddress: external,
            body: { code },
            headers: { origin: ORIGIN, host: `127.0.0.1:${port}` },
          }),
        )
        expect(reply.status).toBe(403)
        expect(errorOf(reply)).toMatchObject({ code: 'Forbidden', reason: 'not-loopback' })
        // Nothing was redeemed: the code still works from loopback (at the service).
        expect((yield* daily.status('bot-1'))?.state).toBe('pairing')
      }),
  )

  it.scoped('checks the raw socket peer, never forwarding headers (fake sockets)', () =>
    Effect.gen(function* () {
      const { handler } = yield* serve()
      const fake = async (remoteAddress: string, headers: Record<string, string> = {}) => {
        const req = Object.assign(Readable.from([Buffer.from('{"code":"AAAA-AAAA-AAAA"}')]), {
          url: '/daily/redeem',
          method: 'POST',
          headers: { host: '127.0.0.1:7777', origin: ORIGIN, 'content-type': 'application/json', ...headers },
          socket: { remoteAddress, localPort: 7777 },
        }) as unknown as IncomingMessage
        let status = 0
        let body = ''
        const res = Object.assign(new (await import('node:events')).EventEmitter(), {
          destroyed: false,
          writableEnded: false,
          writeHead: (s: number) => {
            status = s
          },
          end: (text: string) => {
            body = text
          },
        }) as unknown as ServerResponse
        expect(await handler(req, res)).toBe(true)
        return { status, error: JSON.parse(body).error?.reason as string | undefined }
      }
      for (const peer of ['10.0.0.5', '192.0.2.2', '::ffff:10.0.0.1', 'fd00::2', '128.0.0.1', '::2']) {
        expect(
          yield* Effect.promise(() => fake(peer, { 'x-forwarded-for': '127.0.0.1', forwarded: 'for=127.0.0.1' })),
        ).toEqual({ status: 403, error: 'not-loopback' })
      }
      for (const peer of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
        expect(yield* Effect.promise(() => fake(peer))).toEqual({ status: 403, error: 'invalid-code' })
      }
    }),
  )

  it.scoped('refuses a wrong Origin, and a Host that is not this loopback port', () =>
    Effect.gen(function* () {
      const { ext, call, port, daily } = yield* serve()
      const { code } = yield* daily.createPairing('bot-1')
      for (const origin of [
        'https://evil.example',
        'null',
        `chrome-extension://${OTHER_ID}`,
        `chrome-extension://${dailyExtensionId}/`,
      ]) {
        const reply = yield* ext('/redeem', { code }, undefined, origin)
        expect([reply.status, errorOf(reply)?.code, errorOf(reply)?.reason]).toEqual([403, 'ForeignOrigin', 'origin'])
      }
      const none = yield* call('/daily/redeem', { body: { code } })
      expect([none.status, errorOf(none)?.code, errorOf(none)?.reason]).toEqual([403, 'ForeignOrigin', 'no-origin'])
      const rebound = yield* call('/daily/redeem', {
        body: { code },
        headers: { origin: ORIGIN, host: `attacker.example:${port}` },
      })
      expect([rebound.status, errorOf(rebound)?.code]).toEqual([421, 'WrongHost'])
      const otherPort = yield* call('/daily/redeem', {
        body: { code },
        headers: { origin: ORIGIN, host: `127.0.0.1:${port + 1}` },
      })
      expect(errorOf(otherPort)?.code).toBe('WrongHost')
      const localhost = yield* call('/daily/redeem', {
        body: { code },
        headers: { origin: ORIGIN, host: `localhost:${port}` },
      })
      expect(localhost.status).toBe(200)
    }),
  )

  it.scoped('refuses a reused code', () =>
    Effect.gen(function* () {
      const { ext, daily } = yield* serve()
      const { code } = yield* daily.createPairing('bot-1')
      expect((yield* ext('/redeem', { code })).status).toBe(200)
      const again = yield* ext('/redeem', { code })
      expect([again.status, errorOf(again)?.code]).toEqual([403, 'PairingRefused'])
    }),
  )

  it.scoped('refuses an expired code (fake clock)', () =>
    Effect.gen(function* () {
      const { ext, admin } = yield* serve()
      const { json } = yield* admin('/pairings', { botId: 'bot-1' })
      yield* TestClock.adjust('5 minutes')
      const late = yield* ext('/redeem', { code: json.code })
      expect([late.status, errorOf(late)?.code]).toEqual([403, 'PairingRefused'])
      expect((yield* admin('/status', { botId: 'bot-1' })).json.lease).toMatchObject({
        state: 'expired',
        cause: 'pairing-expired',
      })
    }),
  )

  it.scoped('refuses a token replayed from another Origin, or without one', () =>
    Effect.gen(function* () {
      const { ext, pair, call } = yield* serve({ extensionIds: [dailyExtensionId, OTHER_ID] })
      const token = yield* pair()
      expect((yield* ext('/lease/status', {}, token)).status).toBe(200)
      const replayed = yield* ext('/lease/status', {}, token, `chrome-extension://${OTHER_ID}`)
      expect([replayed.status, errorOf(replayed)?.reason]).toEqual([403, 'origin-mismatch'])
      const bare = yield* call('/daily/lease/status', { body: {}, headers: { authorization: `Bearer ${token}` } })
      expect([bare.status, errorOf(bare)?.code]).toEqual([403, 'ForeignOrigin'])
      const noToken = yield* ext('/lease/status', {})
      expect([noToken.status, errorOf(noToken)?.reason]).toEqual([401, 'missing-token'])
    }),
  )

  it.scoped('rate-limits brute-forcing codes with a typed 429 and Retry-After', () =>
    Effect.gen(function* () {
      const { ext, daily } = yield* serve({ redeemFailuresPerPeer: 5 })
      const { code } = yield* daily.createPairing('bot-1')
      for (let i = 0; i < 5; i++) expect((yield* ext('/redeem', { code: `ZZZZ-ZZZZ-ZZZ${i}` })).status).toBe(403)
      const limited = yield* ext('/redeem', { code })
      expect(limited.status).toBe(429)
      expect(errorOf(limited)).toMatchObject({ code: 'RateLimited', reason: 'too-many-failures' })
      expect(limited.headers['retry-after']).toBe('60')
      yield* TestClock.adjust('60 seconds')
      expect((yield* ext('/redeem', { code })).status).toBe(200)
    }),
  )

  it.scoped('admin routes need the admin token and refuse browser Origins', () =>
    Effect.gen(function* () {
      const { call, admin } = yield* serve()
      const anonymous = yield* call('/daily/admin/pairings', { body: { botId: 'bot-1' } })
      expect([anonymous.status, errorOf(anonymous)?.code, errorOf(anonymous)?.reason]).toEqual([
        401,
        'Unauthorized',
        'missing-token',
      ])
      const wrong = yield* call('/daily/admin/pairings', {
        body: { botId: 'bot-1' },
        headers: { authorization: 'Bearer nope' },
      })
      expect(wrong.status).toBe(401)
      const fromPage = yield* call('/daily/admin/pairings', {
        body: { botId: 'bot-1' },
        headers: { authorization: `Bearer ${ADMIN}`, origin: 'https://evil.example' },
      })
      expect([fromPage.status, errorOf(fromPage)?.code]).toEqual([403, 'ForeignOrigin'])
      const fromExtension = yield* call('/daily/admin/pairings', {
        body: { botId: 'bot-1' },
        headers: { authorization: `Bearer ${ADMIN}`, origin: ORIGIN },
      })
      expect(fromExtension.status).toBe(403)
      const ok = yield* admin('/pairings', { botId: 'bot-1' })
      expect(ok.status).toBe(200)
      expect(ok.json.code).toMatch(/^\w{4}-\w{4}-\w{4}$/)
      const badBot = yield* admin('/pairings', { botId: 'bad bot id' })
      expect([badBot.status, errorOf(badBot)?.reason]).toEqual([400, 'invalid-body'])
    }),
  )
})

describe('the door — what it accepts (B7)', () => {
  it.scoped('415 for text/plain, form encodings and a missing content type', () =>
    Effect.gen(function* () {
      const { call, daily } = yield* serve()
      const { code } = yield* daily.createPairing('bot-1')
      for (const type of [
        'text/plain',
        'text/plain;charset=UTF-8',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        undefined,
      ]) {
        const reply = yield* call('/daily/redeem', {
          body: JSON.stringify({ code }),
          headers: { origin: ORIGIN, ...(type ? { 'content-type': type } : {}) },
        })
        expect([reply.status, errorOf(reply)?.code]).toEqual([415, 'UnsupportedMediaType'])
      }
      expect((yield* daily.status('bot-1'))?.state).toBe('pairing')
    }),
  )

  it.scoped('400 for malformed or misshapen JSON, 413 for a body too large', () =>
    Effect.gen(function* () {
      const { call } = yield* serve({}, { maxBodyBytes: 1024 })
      const headers = { origin: ORIGIN, 'content-type': 'application/json' }
      const malformed = yield* call('/daily/redeem', { body: '{"code":', headers })
      expect([malformed.status, errorOf(malformed)?.reason]).toEqual([400, 'invalid-json'])
      const misshapen = yield* call('/daily/redeem', { body: '{"code":42}', headers })
      expect([misshapen.status, errorOf(misshapen)?.reason]).toEqual([400, 'invalid-body'])
      const large = yield* call('/daily/redeem', { body: JSON.stringify({ code: 'x'.repeat(5000) }), headers })
      expect([large.status, errorOf(large)?.reason]).toEqual([413, 'body-too-large'])
    }),
  )

  it.scoped('sends no CORS grant and no cookie; only POST; other paths are not its own', () =>
    Effect.gen(function* () {
      const { call, ext, handler } = yield* serve()
      const preflight = yield* call('/daily/redeem', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://evil.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      })
      // A page's preflight is refused for its Origin, checked before the method as on every front (docs/edge.md).
      expect([preflight.status, errorOf(preflight)?.code]).toEqual([403, 'ForeignOrigin'])
      const get = yield* call('/daily/lease/status', { method: 'GET', headers: { origin: ORIGIN } })
      expect(get.status).toBe(405)
      const answered = yield* ext('/redeem', { code: 'AAAA-AAAA-AAAA' }, undefined)
      for (const reply of [preflight, get, answered]) {
        expect(Object.keys(reply.headers).filter((h) => h.startsWith('access-control-') || h === 'set-cookie')).toEqual(
          [],
        )
        expect(reply.headers['content-type']).toBe('application/json; charset=utf-8')
        expect(reply.headers['cache-control']).toBe('no-store')
      }
      const notMine = yield* call('/dailyx/redeem', { body: {} })
      expect([notMine.status, notMine.json]).toEqual([404, undefined])
      expect((yield* call('/other', { body: {} })).status).toBe(404)
      expect((yield* call('/daily/nope', { body: {}, headers: { origin: ORIGIN } })).json.error.code).toBe('NotFound')
      expect(handler).toBeTypeOf('function')
    }),
  )
})

describe('the door — a lease end to end over HTTP', () => {
  it.scoped('pair, share, long-poll, answer, observe; a navigation ends it and rejects the pending observation', () =>
    Effect.gen(function* () {
      const { ext, admin, pair } = yield* serve()
      const token = yield* pair()
      const shared = yield* ext(
        '/lease/share',
        { tabId: 3, url: 'https://mail.example/inbox', documentId: 'D1', title: 'Inbox' },
        token,
      )
      expect(shared.json).toMatchObject({ state: 'shared', page: { origin: 'https://mail.example', path: '/inbox' } })

      const observed = yield* Effect.fork(admin('/observe', { botId: 'bot-1' }))
      const poll = yield* ext('/lease/poll', { waitMs: 20_000 }, token)
      const id = poll.json.requests[0].id as string
      const accepted = yield* ext(
        '/lease/answer',
        {
          id,
          url: 'https://mail.example/inbox',
          documentId: 'D1',
          title: 'Inbox',
          text: 'Hi',
          controls: [{ kind: 'link', label: 'Sent' }],
        },
        token,
      )
      expect(accepted.json).toEqual({ accepted: true })
      const result = yield* Fiber.join(observed)
      expect(result.json).toMatchObject({ untrusted: true, text: 'Hi', controls: [{ kind: 'link', label: 'Sent' }] })

      const pending = yield* Effect.fork(admin('/observe', { botId: 'bot-1' }))
      expect((yield* ext('/lease/poll', { waitMs: 20_000 }, token)).json.requests).toHaveLength(1)
      const navigated = yield* ext('/lease/event', { event: 'navigated' }, token)
      expect(navigated.json).toMatchObject({ state: 'revoked', cause: 'navigation' })
      const rejected = yield* Fiber.join(pending)
      expect([rejected.status, errorOf(rejected)]).toMatchObject([
        410,
        { code: 'ObservationFailed', reason: 'lease-ended' },
      ])
      const after = yield* ext('/lease/poll', { waitMs: 0 }, token)
      expect([after.status, errorOf(after)?.reason]).toEqual([410, 'navigation'])
    }),
  )
})
