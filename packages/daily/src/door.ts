/**
 * The Daily Browser's HTTP door (D2, B7): a loopback-only path prefix the host mounts on its own
 * server. It checks, in this order, before anything else runs — steps 2–4 with `@errands/edge`,
 * so a refusal is the same code and status as on every other front:
 *
 * 1. the real peer address at the raw socket (`req.socket.remoteAddress`): 127.0.0.0/8 or ::1;
 * 2. the `Host` header: the edge's one rule at this server's own port (DNS rebinding, 421);
 * 3. the route (404) and the method, `POST` (405);
 * 4. the caller: the paired extension's `chrome-extension://<id>` Origin on extension routes,
 *    the person's admin credential (and no foreign browser Origin) on admin routes (403, 401);
 * 5. the body: `application/json` only (415 otherwise), bounded (413), decoded with a Schema;
 * 6. on lease routes, the Bearer token and that it was issued to this very Origin.
 *
 * It never sets or reads a cookie and sends no CORS headers: an extension with host permissions
 * for 127.0.0.1/localhost sends no preflight and reads the answer without them (checked on
 * Chromium 156); a web page gets no permission to read anything.
 */
import {
  type Access,
  admit,
  bearerOf,
  checkBearer,
  checkMethod,
  digestOf,
  InternalError,
  localPeerOf,
  nodeHeaders,
  NotFound,
  sendError,
  sendJson,
  Unauthorized,
} from '@errands/edge'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Cause, Effect, Exit, Option, Runtime, type Schema } from 'effect'
import {
  AnswerBody,
  BotBody,
  EmptyBody,
  EventBody,
  FailBody,
  PollBody,
  RedeemBody,
  RevokeBody,
  ShareBody,
  type Credentials,
} from './api.ts'
import { readJson } from './body.ts'
import { DailyBrowser, type DailyBrowserShape } from './DailyBrowser.ts'
import { Forbidden, type DoorError } from './errors.ts'
import { allowedExtensionOrigin, isLoopbackAddress } from './peer.ts'

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
): Route => ({
  side,
  handle: (daily, ctx, maxBytes) =>
    Effect.flatMap(readJson(ctx.req, schema, maxBytes), (body) => run(daily, body, ctx)),
})

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
  '/admin/return': route('admin', BotBody, (d, b) =>
    Effect.map(d.returnLease(b.botId), (lease) => ({ lease: lease ?? null })),
  ),
  '/admin/revoke': route('admin', RevokeBody, (d, b) =>
    Effect.map(d.revoke(b.botId, b.cause), (lease) => ({ lease: lease ?? null })),
  ),
  '/admin/approve': route('admin', BotBody, (d, b) => d.approve(b.botId)),
  '/admin/status': route('admin', BotBody, (d, b) =>
    Effect.map(d.status(b.botId), (lease) => ({ lease: lease ?? null })),
  ),
  '/admin/observe': route('admin', BotBody, (d, b) => d.observe(b.botId)),
  '/admin/leases': route('admin', EmptyBody, (d) => Effect.map(d.list, (leases) => ({ leases }))),
}

const NOT_ADMIN = {
  missing: "This call needs the person's admin token.",
  wrong: "This call needs the person's admin token.",
}

/** The admin check: `undefined`, or the 401 to answer. */
const adminCheck = (options: DailyDoorOptions): ((req: IncomingMessage) => Unauthorized | undefined) => {
  if (options.isAdmin !== undefined) {
    const isAdmin = options.isAdmin
    return (req) =>
      isAdmin(req) ? undefined : new Unauthorized({ reason: 'missing-token', message: NOT_ADMIN.missing })
  }
  if (options.adminToken !== undefined && options.adminToken.length > 0) {
    const expected = digestOf(options.adminToken)
    return (req) => checkBearer(nodeHeaders(req.headers), expected, NOT_ADMIN)
  }
  return () => new Unauthorized({ reason: 'missing-token', message: NOT_ADMIN.missing })
}

/**
 * Builds the door handler on the `DailyBrowser` service.
 *
 * @example
 * const door = yield* makeDailyDoor({ prefix: '/daily', adminToken })
 * createServer(async (req, res) => { if (!(await door(req, res))) { res.statusCode = 404; res.end() } }).listen(7777,
 * '127.0.0.1')
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
    // The host's own pages are no caller of the door: admin routes take a process (no Origin) or a named UI origin,
    // extension routes the paired extension only.
    const adminAccess: Access = { origin: { own: false, others: (o) => adminOrigins.includes(o) } }
    const extensionAccess: Access = {
      origin: {
        own: false,
        others: (o) => allowedExtensionOrigin(o, daily.options.extensionIds) !== undefined,
        required: true,
      },
    }

    const handle = (req: IncomingMessage, path: string): Effect.Effect<unknown, DoorError> =>
      Effect.suspend(() => {
        // The raw socket's peer is the only authority on where a request comes from (D2).
        const peer = req.socket.remoteAddress
        if (!isLoopbackAddress(peer))
          return Effect.fail(
            new Forbidden({ reason: 'not-loopback', message: 'The Daily Browser door answers loopback peers only.' }),
          )
        const headers = nodeHeaders(req.headers)
        const identity = { port: req.socket.localPort ?? 0 }
        const found = routes[path]
        if (found === undefined)
          return Effect.fail(new NotFound({ reason: 'no-route', message: `No route ${path} under ${prefix}.` }))
        const refusal = admit(headers, identity, found.side === 'admin' ? adminAccess : extensionAccess)
        if (refusal) return Effect.fail(refusal)
        // POST only: an extension's GET carries no Origin, and OPTIONS gets no CORS grant (none is needed).
        const wrongMethod = checkMethod(req.method ?? 'GET', ['POST'], `${prefix}${path}`)
        if (wrongMethod) return Effect.fail(wrongMethod)
        const origin = req.headers.origin
        const notAdmin = found.side === 'admin' ? isAdmin(req) : undefined
        if (notAdmin) return Effect.fail(notAdmin)
        const creds: Credentials = { token: bearerOf(req.headers.authorization), origin }
        const ctx: Context = { req, peer: peer!, origin, creds }
        if (path !== '/redeem') return found.handle(daily, ctx, maxBytes)
        // A redeem's failure budget is the calling process's (D1): every local process is
        // 127.0.0.1 and may send the extension's public Origin, so address and Origin alone put a
        // guesser in the person's own bucket. The kernel says which process holds the caller's
        // socket (localPeerOf); where it cannot tell, the address and Origin are the source still.
        return Effect.flatMap(
          Effect.promise(() => localPeerOf(req.socket).catch(() => undefined)),
          (caller) =>
            found.handle(
              daily,
              caller === undefined ? ctx : { ...ctx, peer: `${peer} process ${caller.pid}@${caller.startTime}` },
              maxBytes,
            ),
        )
      })

    return async (req, res) => {
      const path = (req.url ?? '').split('?')[0]!
      if (path !== prefix && !path.startsWith(`${prefix}/`)) return false
      const controller = new AbortController()
      // A long poll whose client went away is interrupted instead of waiting out its time.
      res.on('close', () => controller.abort())
      const exit = await Runtime.runPromiseExit(runtime)(handle(req, path.slice(prefix.length)), {
        signal: controller.signal,
      })
      if (res.destroyed || res.writableEnded) return true
      if (Exit.isSuccess(exit)) {
        sendJson(res, 200, exit.value)
        return true
      }
      const failure = Cause.failureOption(exit.cause)
      if (Option.isSome(failure)) {
        const e = failure.value
        log(`daily door: ${req.method} ${path} → ${e.status} ${e._tag}/${e.reason}`)
        sendError(res, e)
        return true
      }
      if (!Cause.isInterruptedOnly(exit.cause))
        log(`daily door: ${req.method} ${path} → 500 ${Cause.pretty(exit.cause).split('\n')[0]}`)
      sendError(res, InternalError.of('The Daily Browser door failed; see the host log.'))
      return true
    }
  })
