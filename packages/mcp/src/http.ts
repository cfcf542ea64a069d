/**
 * MCP over Streamable HTTP, one errand per MCP session. The host mounts {@link McpHttp.handle} at
 * `/mcp` after its own defences (B7: Host, Origin, JSON bodies only) and renders a refusal the
 * way it renders every error (`{"error":{"code","message"}}`).
 *
 * - `initialize` (a POST without `Mcp-Session-Id`) opens an MCP session. Its `X-Browser-Session`
 *   header, when sent, binds the session to that key — the backend's own errand; without one
 *   the session gets a fresh random key outside the key contract, which nothing can name (X2).
 *   Its `X-Daily-Lease` header, when sent, is the Daily Browser lease secret the person handed
 *   to this agent (X3): only then is `browser_observe` offered, for that lease alone.
 * - Every later request names its session by `Mcp-Session-Id`; an unknown id is 404 (the
 *   client starts a new session), another `X-Browser-Session` than the bound one is 400.
 * - The session ends on `DELETE`, when nothing came for `idleMs`, or `lingerMs` after the
 *   client's event stream closed with nothing since (a client that left without a DELETE). Its
 *   errand is then parked (lossless, resumed when the same key connects again) — or, for a
 *   random key, forgotten, since nobody could ever name it again.
 *
 * @example
 * const mcp = makeMcpHttp({ bind, refs: new RefBook(), log, idleMs: 900_000 })
 * const refusal = await mcp.handle(req, res) // undefined: answered
 */
import { heldLease, LEASE_HEADER } from '@errands/daily'
import { localPeerOf, parseJson, readNodeBody, utf8 } from '@errands/edge'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { Effect, Either, Runtime } from 'effect'
import { randomUUID } from 'node:crypto'
import type * as http from 'node:http'
import type { EngineFailure, ErrandBrowser } from './ErrandBrowser.ts'
import { McpHttpRefused } from './errors.ts'
import { endErrand } from './lifecycle.ts'
import { PageLogs } from './pageLog.ts'
import type { RefBook } from './refs.ts'
import { makeErrandServer, type ErrandServerOptions } from './server.ts'

/**
 * The header that binds an MCP session to a backend's key (the host's session header). @example
 * req.headers[KEY_HEADER]
 */
export const KEY_HEADER = 'x-browser-session'

/** The largest JSON-RPC body read (bytes). @example MAX_MCP_BODY */
export const MAX_MCP_BODY = 4 * 1024 * 1024

/**
 * A refusal as the host renders it (any tagged error with a message; `status` when it has one). @example const r:
 * McpRefusal = new McpHttpRefused({ reason: 'unknown-session', status: 404, message: '…' })
 */
export type McpRefusal = EngineFailure & { readonly status?: number }

/**
 * How the endpoint works. @example makeMcpHttp({ bind: (key) => Either.right(errandOf(key)), refs: new RefBook(), log,
 * idleMs: 900_000 })
 */
export interface McpHttpOptions {
  /** The errand for a key (the header's, checked by the host; `undefined`: a fresh random key), or why not. */
  readonly bind: (key: string | undefined) => Either.Either<ErrandBrowser, McpRefusal>
  readonly refs: RefBook
  readonly log: (line: string) => void
  readonly daily?: ErrandServerOptions['daily']
  /** What each page said and fetched (one per engine; default: a fresh one). */
  readonly logs?: ErrandServerOptions['logs']
  /** Optional capabilities (`vision`, `pdf`) of every session. */
  readonly caps?: ErrandServerOptions['caps']
  readonly runtime?: Runtime.Runtime<never> | undefined
  /** A session with no request for this long ends (its errand parks). */
  readonly idleMs: number
  /** After the client's event stream closes, the session ends when nothing comes for this long (default 30 s). */
  readonly lingerMs?: number | undefined
  /** Open MCP sessions at most (default 256); more is 503. */
  readonly maxSessions?: number | undefined
  /**
   * Anonymous sessions (no session key: each opens an errand of a fresh key) one calling process may hold at once
   * (default {@link MAX_ANONYMOUS_PER_CALLER}); more is 429.
   */
  readonly maxAnonymousPerCaller?: number | undefined
}

/**
 * Anonymous sessions one local process may hold at once. Every local process is 127.0.0.1, so the calling process
 * (the kernel's owner of its socket, `localPeerOf`) is the source: one process cannot take every slot of the cap
 * with errands nobody named (docs/mcp.md, "Anonymous sessions").
 */
export const MAX_ANONYMOUS_PER_CALLER = 2

/** The running endpoint. @example const refusal = await mcp.handle(req, res); await mcp.close() */
export interface McpHttp {
  /** Answers one request to `/mcp`, or returns why it is refused (nothing was written then). */
  readonly handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<McpRefusal | undefined>
  /** Open MCP sessions (tests, health). */
  readonly sessions: () => number
  /** Ends every session (their errands park; random keys are forgotten). Idempotent. */
  readonly close: () => Promise<void>
}

interface Session {
  readonly transport: StreamableHTTPServerTransport
  readonly errand: ErrandBrowser
  readonly anonymous: boolean
  /** The calling process of an anonymous session (`pid@start`, or its address when the kernel cannot tell). */
  readonly caller: string | undefined
  readonly stopServer: () => void
  idle: NodeJS.Timeout | undefined
  linger: NodeJS.Timeout | undefined
  ended: boolean
}

/**
 * The JSON-RPC body, read by the edge's reader: past {@link MAX_MCP_BODY} it is `PayloadTooLarge` (413), unparsable
 * `BadRequest` (400).
 */
const readJson = (req: http.IncomingMessage): Promise<Either.Either<unknown, McpRefusal>> =>
  Effect.runPromise(Effect.either(Effect.flatMap(readNodeBody(req, MAX_MCP_BODY), (bytes) => parseJson(utf8(bytes)))))

/** Who calls: the local process holding the caller's socket, or its address when the kernel cannot tell. */
const callerOf = async (req: http.IncomingMessage): Promise<string> => {
  const peer = await localPeerOf(req.socket).catch(() => undefined)
  return peer === undefined ? `address ${req.socket.remoteAddress ?? '?'}` : `process ${peer.pid}@${peer.startTime}`
}

/**
 * Builds the endpoint.
 *
 * @example
 * const mcp = makeMcpHttp(options)
 */
export const makeMcpHttp = (options: McpHttpOptions): McpHttp => {
  const runtime = options.runtime ?? Runtime.defaultRuntime
  const logs = options.logs ?? new PageLogs()
  const sessions = new Map<string, Session>()
  const lingerMs = options.lingerMs ?? 30_000
  const maxSessions = options.maxSessions ?? 256
  const maxAnonymous = options.maxAnonymousPerCaller ?? MAX_ANONYMOUS_PER_CALLER
  const opening = new Map<string, number>()
  let closed = false

  const end = async (id: string | undefined, session: Session): Promise<void> => {
    if (session.ended) return
    session.ended = true
    if (id !== undefined) sessions.delete(id)
    clearTimeout(session.idle)
    clearTimeout(session.linger)
    session.stopServer()
    await Runtime.runPromise(runtime)(endErrand(session.errand, session.anonymous))
    await session.transport.close().catch(() => undefined)
  }

  const touch = (id: string, session: Session) => {
    clearTimeout(session.idle)
    clearTimeout(session.linger)
    session.linger = undefined
    session.idle = setTimeout(() => void end(id, session), options.idleMs)
    session.idle.unref()
  }

  const open = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<McpRefusal | undefined> => {
    const read = await readJson(req)
    if (Either.isLeft(read)) return read.left
    const body = read.right
    if (!isInitializeRequest(body)) {
      return new McpHttpRefused({
        reason: 'not-initialize',
        status: 400,
        message:
          'A request without an Mcp-Session-Id header must be an initialize request; initialize a session first.',
      })
    }
    if (sessions.size >= maxSessions) {
      return new McpHttpRefused({
        reason: 'too-many-sessions',
        status: 503,
        message: `${maxSessions} MCP sessions are open; end one (DELETE /mcp) or try again later.`,
      })
    }
    const header = req.headers[KEY_HEADER]
    const given = Array.isArray(header) ? header[0] : header
    const caller = given === undefined ? await callerOf(req) : undefined
    if (caller !== undefined) {
      let held = opening.get(caller) ?? 0
      for (const s of sessions.values()) if (s.anonymous && !s.ended && s.caller === caller) held++
      if (held >= maxAnonymous) {
        return new McpHttpRefused({
          reason: 'too-many-anonymous',
          status: 429,
          message:
            `This process already holds ${held} MCP sessions without a session key, each a browser of its own; ` +
            `end one (DELETE /mcp), or name your errand with the ${KEY_HEADER} header.`,
        })
      }
    }
    // Counted from here until the session is in the book (or refused), so parallel initializes of one process
    // cannot each see the room only one of them has.
    if (caller !== undefined) opening.set(caller, (opening.get(caller) ?? 0) + 1)
    const proceed = async (): Promise<McpRefusal | undefined> => {
      const bound = options.bind(given)
      if (Either.isLeft(bound)) return bound.left
      const errand = bound.right
      // X3: the lease belongs to the session holding its secret; naming the bot id gives nothing.
      const leaseHeader = req.headers[LEASE_HEADER]
      const secret = Array.isArray(leaseHeader) ? leaseHeader[0] : leaseHeader
      const daily =
        options.daily !== undefined && secret !== undefined && secret !== ''
          ? heldLease(options.daily, secret)
          : undefined
      const { server, close: stopServer } = makeErrandServer({
        errand,
        refs: options.refs,
        logs,
        caps: options.caps,
        log: options.log,
        daily,
        runtime,
      })
      let session: Session | undefined
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, session!)
          touch(id, session!)
        },
        onsessionclosed: (id) => {
          const s = sessions.get(id)
          if (s) void end(id, s)
        },
      })
      session = {
        transport,
        errand,
        anonymous: given === undefined,
        caller,
        stopServer,
        idle: undefined,
        linger: undefined,
        ended: false,
      }
      await server.connect(transport)
      await transport.handleRequest(req, res, body)
      if (transport.sessionId === undefined) {
        // The SDK refused the initialize itself (it answered): nothing was opened.
        stopServer()
        await transport.close().catch(() => undefined)
      }
      return undefined
    }
    try {
      return await proceed()
    } finally {
      if (caller !== undefined) {
        const left = (opening.get(caller) ?? 1) - 1
        if (left === 0) opening.delete(caller)
        else opening.set(caller, left)
      }
    }
  }

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<McpRefusal | undefined> => {
    if (closed)
      return new McpHttpRefused({
        reason: 'shutting-down',
        status: 503,
        message: 'The server is shutting down; connect again after it restarts.',
      })
    const idHeader = req.headers['mcp-session-id']
    const id = Array.isArray(idHeader) ? idHeader[0] : idHeader
    if (id === undefined) {
      if (req.method !== 'POST') {
        return new McpHttpRefused({
          reason: 'not-initialize',
          status: 400,
          message: 'Send Mcp-Session-Id (initialize a session with a POST first).',
        })
      }
      return open(req, res)
    }
    const session = sessions.get(id)
    if (session === undefined) {
      return new McpHttpRefused({
        reason: 'unknown-session',
        status: 404,
        message: 'No MCP session has this id (it ended, or the server restarted); initialize a new session.',
      })
    }
    const key = req.headers[KEY_HEADER]
    if (key !== undefined && key !== session.errand.key) {
      return new McpHttpRefused({
        reason: 'key-mismatch',
        status: 400,
        message:
          'This MCP session is bound to another X-Browser-Session key; a session keeps the key it was initialized ' +
          'with.',
      })
    }
    touch(id, session)
    if (req.method === 'GET') {
      // The client's event stream: when it closes and nothing follows, the client has left.
      res.on('close', () => {
        if (session.ended || session.linger !== undefined) return
        session.linger = setTimeout(() => void end(id, session), lingerMs)
        session.linger.unref()
      })
    }
    await session.transport.handleRequest(req, res)
    return undefined
  }

  return {
    handle,
    sessions: () => sessions.size,
    close: async () => {
      closed = true
      await Promise.all([...sessions.entries()].map(([id, s]) => end(id, s)))
    },
  }
}
