/**
 * The fronts of one server in one declared table (docs/edge.md): each front names the paths it
 * owns and serves its requests and WebSocket upgrades there. One dispatch finds a request's front
 * by its path alone — never by a header, a method or the body, which are the front's to judge with
 * {@link admit} in the edge's one order — so which code answers a path is read off the table, not
 * off a chain of handlers each deciding whether a request is theirs.
 *
 * @example
 * const fronts = frontTable([
 *   { name: 'live view', paths: ['/', '/live/'], request: live.handle, upgrade: live.upgrade },
 *   { name: 'mcp', paths: ['/mcp'], request: mcp.route },
 * ])
 * fronts.owner('/live/api/state') // the live view
 */
import type * as http from 'node:http'
import type { Duplex } from 'node:stream'

/** One front: the paths it owns and how it serves a request or an upgrade there. */
export interface Front {
  /** Named in the host's log when it fails. */
  readonly name: string
  /** `'/x'` owns exactly `/x` (query aside); `'/x/'` owns everything under `/x/`. */
  readonly paths: ReadonlyArray<string>
  /** Serves a request on one of its paths (it answers every one, refusals included). */
  readonly request?: ((req: http.IncomingMessage, res: http.ServerResponse) => unknown) | undefined
  /** Takes an upgrade on one of its paths (it answers every one, refusals included). */
  readonly upgrade?: ((req: http.IncomingMessage, socket: Duplex, head: Buffer) => unknown) | undefined
}

/** A declared table of fronts. */
export interface FrontTable {
  readonly fronts: ReadonlyArray<Front>
  /** The front that owns `url`'s path, if any. */
  readonly owner: (url: string | undefined) => Front | undefined
}

/** A URL's path as the table matches it: what is before `?` or `#`. */
const pathOf = (url: string | undefined): string => (url ?? '').split(/[?#]/, 1)[0]!

const owns = (pattern: string, path: string): boolean =>
  pattern.endsWith('/') && pattern !== '/' ? path.startsWith(pattern) : path === pattern

/**
 * Declares the table. Two fronts owning one path is a mistake of the table's author, thrown at once:
 * which front answers must never depend on the order of the list.
 *
 * @example
 * frontTable([{ name: 'mcp', paths: ['/mcp'], request }])
 */
export const frontTable = (fronts: ReadonlyArray<Front>): FrontTable => {
  const all = fronts.flatMap((f) => f.paths.map((p) => ({ front: f, pattern: p })))
  for (const a of all)
    for (const b of all)
      if (a.front !== b.front && (owns(a.pattern, b.pattern) || owns(b.pattern, a.pattern)))
        throw new Error(`The fronts ${a.front.name} and ${b.front.name} both own ${b.pattern}.`)
  return {
    fronts,
    owner: (url) => {
      const path = pathOf(url)
      return all.find((e) => owns(e.pattern, path))?.front
    },
  }
}

/** What the server does with a request or an upgrade no front of the table owns. */
export interface Otherwise {
  readonly request: (req: http.IncomingMessage, res: http.ServerResponse) => unknown
  readonly upgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => unknown
  /** A front that threw or rejected: its response or socket is the caller's to end. */
  readonly failed: (front: Front, error: unknown, left: FrontLeft) => void
}

/** What a failed front left unanswered. */
export type FrontLeft =
  | { readonly _tag: 'request'; readonly res: http.ServerResponse }
  | { readonly _tag: 'upgrade'; readonly socket: Duplex }

/**
 * The server's two listeners over the table: a request or an upgrade goes to the front that owns
 * its path and has that kind of listener, else to `otherwise`. `table` is read at each request, so
 * a server can listen before its fronts exist (they answer 503 from `otherwise` until then).
 *
 * @example
 * const { request, upgrade } = dispatch(() => table, otherwise)
 * http.createServer(request).on('upgrade', upgrade)
 */
export const dispatch = (
  table: () => FrontTable | undefined,
  otherwise: Otherwise,
): {
  readonly request: (req: http.IncomingMessage, res: http.ServerResponse) => void
  readonly upgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void
} => {
  const run = (front: Front, go: () => unknown, left: FrontLeft) => {
    try {
      const answered = go()
      if (answered instanceof Promise) answered.catch((e: unknown) => otherwise.failed(front, e, left))
    } catch (e) {
      otherwise.failed(front, e, left)
    }
  }
  return {
    request: (req, res) => {
      const front = table()?.owner(req.url)
      const serve = front?.request
      if (front === undefined || serve === undefined) otherwise.request(req, res)
      else run(front, () => serve(req, res), { _tag: 'request', res })
    },
    upgrade: (req, socket, head) => {
      const front = table()?.owner(req.url)
      const take = front?.upgrade
      if (front === undefined || take === undefined) otherwise.upgrade(req, socket, head)
      else run(front, () => take(req, socket, head), { _tag: 'upgrade', socket })
    },
  }
}
