/**
 * The Daily Browser's HTTP door (D2, B7): a loopback-only path prefix the host mounts on its own
 * server. It checks, in this order, before anything else runs:
 *
 * 1. the real peer address at the raw socket (`req.socket.remoteAddress`): 127.0.0.0/8 or ::1;
 * 2. the `Host` header: a loopback name and this server's own port (DNS rebinding);
 * 3. the caller: the paired extension's `chrome-extension://<id>` Origin on extension routes,
 *    the person's admin credential (and no foreign browser Origin) on admin routes;
 * 4. the body: `application/json` only (415 otherwise), bounded, decoded with a Schema;
 * 5. on lease routes, the Bearer token and that it was issued to this very Origin.
 *
 * It never sets or reads a cookie and sends no CORS headers: an extension with host permissions
 * for 127.0.0.1/localhost sends no preflight and reads the answer without them (checked on
 * Chromium 156); a web page gets no permission to read anything.
 */
import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Cause, Effect, Exit, Option, Runtime, type Schema } from 'effect'
import {
  AnswerBody, BotBody, EmptyBody, EventBody, FailBody, PollBody, RedeemBody, RevokeBody, ShareBody, type Credentials,
} from './api.ts'
import { readJson } from './body.ts'
import { DailyBrowser, type DailyBrowserShape } from './DailyBrowser.ts'
import { Forbidden, NotFound, Unauthorized, type DoorError } from './errors.ts'
import { allowedExtensionOrigin, isLoopbackAddress, isLoopbackHost } from './peer.ts'
import { digest } from './secrets.ts'

/**
 * The door as a plain Node handler: it answers and resolves `true` for paths under its prefix,
 * and resolves `false` (touching nothing) for every other path, so the host can try its own
 * routes next.
 *
 * @example
 * const server = createServer(async (req, res) => { if (!(await door(req, res))) hostRoutes(req, res) })
 */
export type DailyDoorHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>

/**
 * How the host mounts the door.
 *
 * @example
 * const options: DailyDoorOptions = { prefix: '/daily', adminToken: process.env.ERRANDS_TOKEN }
 */
export interface DailyDoorOptions {
  /** The path prefix, without a trailing slash (the matcher adds the `/` delimiter). Default `/daily`. */
  readonly prefix?: string
  /** Whether a request comes from the person (the host's own authentication). */
  readonly isAdmin?: (req: IncomingMessage) => boolean
  /** Or: the host's admin token, expected as `Authorization: Bearer <token>` on admin routes. */
  readonly adminToken?: string
  /** Browser Origins allowed on admin routes (the host's own UI); requests without Origin are allowed. */
  readonly adminOrigins?: ReadonlyArray<string>
  /** Largest accepted body. Default 512 KiB (an observation answer is the largest). */
  readonly maxBodyBytes?: number
  /** One line per refused request (route, status, code) — never a token, a code or a body. */
  readonly log?: (line: string) => void
}

interface Context {
  readonly req: IncomingMessage
  readonly peer: string
  readonly origin: string | undefined
  readonly creds: Credentials
}

interface Route {
  readonly side: 'extension' | 'admin'
  readonly handle: (daily: DailyBrowserShape, ctx: Context, maxBytes: number) => Effect.Effect<unknown, DoorError>
}

const route = <A, I>(
  side: Route['side'],
  schema: Schema.Schema<A, I>,
  run: (daily: DailyBrowserShape, body: A, ctx: Context) => Effect.Effect<unknown, DoorError>,
): Route => ({ side, handle: (daily, ctx, maxBytes) => Effect.flatMap(readJson(ctx.req, schema, maxBytes), (body) => run(daily, body, ctx)) })

const routes: Record<string, Route> = {
  '/redeem': route('extension', RedeemBody, (d, b, c) => d.redeem({ code: b.code, origin: c.origin, peer: c.peer })),
  '/lease/status': route('extension', EmptyBody, (d, _, c) => d.leaseStatus(c.creds)),
  '/lease/share': route('extension', ShareBody, (d, b, c) => d.share(c.creds, b)),
  '/lease/poll': route('extension', PollBody, (d, b, c) => d.poll(c.creds, b)),
  '/lease/answer': route('extension', AnswerBody, (d, b, c) => d.answer(c.creds, b)),
  '/lease/fail': route('extension', FailBody, (d, b, c) => d.failObservation(c.creds, b)),
  '/lease/event': route('extension', EventBody, (d, b, c) => d.report(c.creds, b.event)),
  '/lease/return': route('extension', EmptyBody, (d, _, c) => d.giveBack(c.creds)),
  '/admin/pairings': route('admin', BotBody, (d, b) => d.createPairing(b.botId)),
  '/admin/return': route('admin', BotBody, (d, b) => Effect.map(d.returnLease(b.botId), (lease) => ({ lease: lease ?? null }))),
  '/admin/revoke': route('admin', RevokeBody, (d, b) => Effect.map(d.revoke(b.botId, b.cause), (lease) => ({ lease: lease ?? null }))),
  '/admin/approve': route('admin', BotBody, (d, b) => d.approve(b.botId)),
  '/admin/status': route('admin', BotBody, (d, b) => Effect.map(d.status(b.botId), (lease) => ({ lease: lease ?? null }))),
  '/admin/observe': route('admin', BotBody, (d, b) => d.observe(b.botId)),
  '/admin/leases': route('admin', EmptyBody, (d) => Effect.map(d.list, (leases) => ({ leases }))),
}

const bearer = (header: string | undefined): string | undefined => {
  const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
  return m ? m[1] : undefined
}

const adminCheck = (options: DailyDoorOptions): ((req: IncomingMessage) => boolean) => {
  if (options.isAdmin !== undefined) return options.isAdmin
  if (options.adminToken !== undefined && options.adminToken.length > 0) {
    const expected = digest(options.adminToken)
    return (req) => {
      const token = bearer(req.headers.authorization)
      return token !== undefined && timingSafeEqual(digest(token), expected)
    }
  }
  return () => false
}

/**
 * Builds the door handler on the `DailyBrowser` service.
 *
 * @example
 * const door = yield* makeDailyDoor({ prefix: '/daily', adminToken })
 * createServer(async (req, res) => { if (!(await door(req, res))) { res.statusCode = 404; res.end() } }).listen(7777, '127.0.0.1')
 */
export const makeDailyDoor = (options: DailyDoorOptions = {}): Effect.Effect<DailyDoorHandler, never, DailyBrowser> =>
  Effect.gen(function* () {
    const daily = yield* DailyBrowser
    const runtime = yield* Effect.runtime<never>()
    const prefix = (options.prefix ?? '/daily').replace(/\/+$/, '')
    const maxBytes = options.maxBodyBytes ?? 512 * 1024
    const isAdmin = adminCheck(options)
    const adminOrigins = options.adminOrigins ?? []
    const log = options.log ?? (() => {})

    const handle = (req: IncomingMessage, path: string): Effect.Effect<unknown, DoorError> =>
      Effect.suspend(() => {
        // The raw socket's peer is the only authority on where a request comes from (D2).
        const peer = req.socket.remoteAddress
        if (!isLoopbackAddress(peer)) return Effect.fail(new Forbidden({ reason: 'not-loopback', message: 'The Daily Browser door answers loopback peers only.' }))
        if (!isLoopbackHost(req.headers.host, req.socket.localPort)) {
          return Effect.fail(new Forbidden({ reason: 'bad-host', message: 'The Host header must name this loopback address and port.' }))
        }
        const found = routes[path]
        if (found === undefined) return Effect.fail(new NotFound({ reason: 'unknown-route', message: `No route ${path} under ${prefix}.` }))
        // POST only: an extension's GET carries no Origin, and OPTIONS gets no CORS grant (none is needed).
        if (req.method !== 'POST') return Effect.fail(new NotFound({ reason: 'method-not-allowed', message: 'Use POST with a JSON body.' }))
        const origin = req.headers.origin
        if (found.side === 'admin') {
          if (origin !== undefined && !adminOrigins.includes(origin)) {
            return Effect.fail(new Forbidden({ reason: 'admin-origin', message: 'Admin calls are not accepted from this browser Origin.' }))
          }
          if (!isAdmin(req)) return Effect.fail(new Unauthorized({ reason: 'not-admin', message: "This call needs the person's admin token." }))
        } else if (allowedExtensionOrigin(origin, daily.options.extensionIds) === undefined) {
          return Effect.fail(new Forbidden({ reason: 'bad-origin', message: 'Only the Errands Daily Browser extension may call this route.' }))
        }
        const creds: Credentials = { token: bearer(req.headers.authorization), origin }
        return found.handle(daily, { req, peer: peer!, origin, creds }, maxBytes)
      })

    return async (req, res) => {
      const path = (req.url ?? '').split('?')[0]!
      if (path !== prefix && !path.startsWith(`${prefix}/`)) return false
      const controller = new AbortController()
      // A long poll whose client went away is interrupted instead of waiting out its time.
      res.on('close', () => controller.abort())
      const exit = await Runtime.runPromiseExit(runtime)(handle(req, path.slice(prefix.length)), { signal: controller.signal })
      if (res.destroyed || res.writableEnded) return true
      if (Exit.isSuccess(exit)) {
        send(res, 200, exit.value)
        return true
      }
      const failure = Cause.failureOption(exit.cause)
      if (Option.isSome(failure)) {
        const e = failure.value
        const status = e.status
        log(`daily door: ${req.method} ${path} → ${status} ${e._tag}/${e.reason}`)
        const headers: Record<string, string> = e._tag === 'RateLimited' ? { 'retry-after': String(e.retryAfterSeconds) } : {}
        send(res, status, { error: { code: e._tag, reason: e.reason, message: e.message } }, headers)
        return true
      }
      if (!Cause.isInterruptedOnly(exit.cause)) log(`daily door: ${req.method} ${path} → 500 ${Cause.pretty(exit.cause).split('\n')[0]}`)
      send(res, 500, { error: { code: 'InternalError', reason: 'defect', message: 'The Daily Browser door failed; see the host log.' } })
      return true
    }
  })

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  })
  res.end(text)
}
