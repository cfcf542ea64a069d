/**
 * The MCP face in the host (A2, A3): `/mcp` speaks MCP's Streamable HTTP (`@errands/mcp`), and
 * each MCP session's errand is driven through the host's own page verbs — the same `Browsing`
 * calls as `/v1/*`, a session key becoming the conversation `session:<key>` at the edge. An
 * `X-Browser-Session` header on `initialize` binds the MCP session to the backend's key (one
 * errand for both); without one it gets a fresh random key.
 *
 * The edge's defences run first (B7, `@errands/edge`): the Host header must be the host's own, a
 * browser's foreign Origin or cross-site Sec-Fetch-Site is refused, the method must be one MCP
 * uses (405 otherwise), and a body must be JSON — which every MCP message is, so MCP needs no
 * exception to the no-form-bodies rule. Refusals are the edge's JSON errors.
 *
 * @example
 * const mcp = yield* mountMcp({ port, log, idleMs: 900_000 })
 * if (isMcpPath(req.url)) void mcp.route(req, res)
 */
import { Sessions } from '@errands/sessions'
import type { DailyBrowserShape } from '@errands/daily'
import {
  makeMcpHttp,
  PageLogs,
  randomKey,
  RefBook,
  runBrowserTool,
  type Capability,
  type ErrandBrowser,
  type TabAt,
  type ToolResult,
} from '@errands/mcp'
import { admit, checkMediaType, checkMethod, nodeHeaders, sendError } from '@errands/edge'
import { Effect, Either, Option, type Scope } from 'effect'
import { Vault, type VaultShape } from '@errands/passwords'
import type * as http from 'node:http'
import { Browsing, sessionTarget, type BrowsingShape, type TabView } from './browsing/Browsing.ts'
import { checkAgentToken, type AgentTokens } from './http/agentTokens.ts'
import { HOST_RENDER } from './http/respond.ts'
import { Placement, type PlacementShape } from './placement.ts'
import { parseSessionKey, type SessionKey } from './sessionKey.ts'
import { Person } from './person/Person.ts'
import { requestHelp } from './person/help.ts'
import { requestSignIn, type SignInDeps } from './person/signIn.ts'
import { conversationIdOf } from './sessionKey.ts'
import { wheelRefusal } from '@errands/sessions'

/** Where MCP is mounted. @example `${host.url}${MCP_PATH}` */
export const MCP_PATH = '/mcp'

/**
 * Whether a request target is the MCP endpoint (its path, whatever the query).
 *
 * @example
 * isMcpPath('/mcp') // true
 * isMcpPath('/mcpx') // false
 */
export const isMcpPath = (url: string | undefined): boolean => {
  const path = (url ?? '').split('?')[0]
  return path === MCP_PATH
}

const tabAt = (t: TabView): TabAt => ({ id: t.id, url: t.url, title: t.title, active: t.active })

/**
 * One session key's errand as the MCP tools see it: the host's verbs, bound to the key.
 *
 * @example
 * const errand = errandBrowserOf(browsing, key)
 * yield* errand.navigate('http://127.0.0.1:3000/')
 */
export const errandBrowserOf = (
  browsing: BrowsingShape,
  key: SessionKey,
  placement?: PlacementShape,
  signIn?: SignInDeps,
  vault?: VaultShape,
): ErrandBrowser => {
  const target = sessionTarget(key)
  return {
    key,
    // W2, W3: the same fill as POST /v1/fill-password.
    ...(vault === undefined ? {} : { fillPassword: (targets) => browsing.fillPassword(target, { ...targets }) }),
    // P4 (issue #26): the same asking as POST /v1/session/permission.
    ...(signIn === undefined
      ? {}
      : { requestSignIn: (site: string, timeoutMs?: number) => requestSignIn(signIn)(key, { site, timeoutMs }) }),
    ...(signIn === undefined
      ? {}
      : {
          // P1, P3 (issue #26): refused in PersonDriving's words while a person drives; the same waiting as POST
          // /v1/session/help.
          wheelRefusal: (tool: string) =>
            wheelRefusal(signIn.person.personDriving, conversationIdOf(key), 'mcp', tool)?.message,
          requestHelp: (reason: string, timeoutMs?: number) => requestHelp(signIn)(key, { reason, timeoutMs }),
        }),
    ...(placement === undefined ? {} : { elsewhere: (tool: string, args: unknown) => placement.tool(key, tool, args) }),
    navigate: (url) => browsing.navigate(target, url),
    back: () => browsing.back(target),
    tabs: () => Effect.map(browsing.tabs(target), (tabs) => tabs.map(tabAt)),
    openTab: (url) => Effect.map(browsing.openTab(target, url), tabAt),
    activateTab: (id) => Effect.map(browsing.activateTab(target, id), (tabs) => tabs.map(tabAt)),
    closeTab: (id) => Effect.map(browsing.closeTab(target, id), (tabs) => tabs.map(tabAt)),
    // The runtime's opaque page goes to MCP's tools untouched: they alone narrow it (#24).
    onPage: (what, run) => browsing.onPage(target, what, run),
    dialog: (how) => Effect.map(browsing.dialog(target, how), ({ answered }) => answered),
    // Issue #25: the errand's own files folder, the one /v1/upload and /v1/session/files use.
    files: {
      downloads: () => browsing.downloads(target),
      read: (name) => Effect.catchTag(browsing.download(target, name), 'FileNotFound', () => Effect.succeed(undefined)),
    },
    // The agent went away: its task is interrupted (E4) — parked, lossless. Never opened, or
    // already parked: nothing to do.
    park: () => Effect.ignore(browsing.task(key, 'interrupted')),
    release: () => browsing.release(key),
  }
}

/**
 * The errand for an MCP session: the given key's (checked against the one contract, B1), or a
 * fresh random key's.
 *
 * @example
 * bindErrand(browsing, 'task-42') // Right(errand of task-42)
 * bindErrand(browsing, 'a b')     // Left(InvalidSessionKey)
 */
export const bindErrand = (
  browsing: BrowsingShape,
  raw: string | undefined,
  placement?: PlacementShape,
  signIn?: SignInDeps,
  vault?: VaultShape,
) =>
  raw === undefined
    ? Either.right(errandBrowserOf(browsing, randomKey() as SessionKey, placement, signIn, vault))
    : Either.map(parseSessionKey(raw), (key) => errandBrowserOf(browsing, key, placement, signIn, vault))

/** The methods of MCP's Streamable HTTP: messages, the event stream, the session's end. */
const MCP_METHODS = ['DELETE', 'GET', 'POST']

/** How to mount MCP. @example mountMcp({ port: 7777, log, idleMs: 900_000, daily }) */
export interface McpMountOptions {
  readonly port: number
  readonly log: (line: string) => void
  /** An MCP session with no request for this long ends (the errand idle limit). */
  readonly idleMs: number
  /** After a client's event stream closed, how long to wait for it before ending the session. */
  readonly lingerMs?: number | undefined
  /** The host's Daily Browser: `browser_observe` for a session whose key holds a lease (D4). */
  readonly daily?: DailyBrowserShape | undefined
  /** Optional MCP capabilities (Playwright MCP's `--caps`: `vision`, `pdf`). */
  readonly caps?: ReadonlyArray<Capability> | undefined
  /** Agent credentials (X2): set, an `initialize` needs a token (covering its key, when it names one). */
  readonly agentTokens?: AgentTokens | undefined
}

/** The mounted endpoint. @example if (isMcpPath(req.url)) void mount.route(req, res) */
export interface McpMount {
  /** Answers a request to {@link MCP_PATH}. */
  readonly route: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>
  /** Open MCP sessions. */
  readonly sessions: () => number
}

/**
 * Mounts MCP over the host's verbs. Closing the scope ends every MCP session first (their
 * errands park) — before the engine's own shutdown.
 *
 * @example
 * const mcp = yield* mountMcp({ port: 7777, log, idleMs: 900_000 })
 */
export const mountMcp = (
  options: McpMountOptions,
): Effect.Effect<McpMount, never, Browsing | Placement | Person | Sessions | Scope.Scope> =>
  Effect.gen(function* () {
    const browsing = yield* Browsing
    const placement = yield* Placement
    const signIn: SignInDeps = { browsing, person: yield* Person, questions: yield* Sessions }
    // W1: the person's passwords, when the host keeps a vault.
    const vault = Option.getOrUndefined(yield* Effect.serviceOption(Vault))
    const runtime = yield* Effect.runtime<never>()
    const mcp = makeMcpHttp({
      bind: (raw) => bindErrand(browsing, raw, placement, signIn, vault),
      refs: new RefBook(),
      log: options.log,
      daily: options.daily,
      caps: options.caps,
      runtime,
      idleMs: options.idleMs,
      lingerMs: options.lingerMs,
    })
    yield* Effect.addFinalizer(() => Effect.promise(() => mcp.close()))
    const route = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
      try {
        const headers = nodeHeaders(req.headers)
        const method = req.method ?? 'GET'
        const refusal =
          admit(headers, options) ??
          checkMethod(method, MCP_METHODS, MCP_PATH) ??
          checkMediaType(headers, method === 'POST')
        if (refusal) return void sendError(res, refusal, HOST_RENDER)
        // X2: binding an MCP session to a named key is a session call like any other. Later
        // requests are bound by their Mcp-Session-Id; an anonymous session names no key, but it
        // opens an errand (a slot) all the same: with tokens set it needs one too, before it runs.
        const named = headers.get('x-browser-session')
        if (options.agentTokens && headers.get('mcp-session-id') === null) {
          const denied = checkAgentToken(options.agentTokens, headers, named ?? undefined)
          if (denied) return void sendError(res, denied, HOST_RENDER)
        }
        const refused = await mcp.handle(req, res)
        if (refused !== undefined) sendError(res, refused, HOST_RENDER)
      } catch {
        if (!res.headersSent) sendError(res, undefined, HOST_RENDER)
        else res.destroy()
      }
    }
    return { route, sessions: mcp.sessions }
  })

/**
 * Runs tool calls sent from other hosts on this host's errands, with refs of its own snapshots
 * (a ref names an element of a snapshot this host took of its own page).
 *
 * @example
 * const run = toolRunner(browsing)
 * yield* run(key, 'browser_navigate', { url })
 */
export const toolRunner = (browsing: BrowsingShape, personDriving?: (conversationId: string) => boolean) => {
  const refs = new RefBook()
  const logs = new PageLogs()
  return (key: SessionKey, tool: string, args: unknown): Effect.Effect<ToolResult> => {
    // P1 in a cluster (K4): the asking host's server could not know; the owner refuses an acting
    // tool while a person drives, in the words the MCP server uses.
    const refusal =
      personDriving === undefined ? undefined : wheelRefusal(personDriving, conversationIdOf(key), 'mcp', tool)
    if (refusal) return Effect.succeed({ content: [{ type: 'text', text: refusal.message }], isError: true })
    return runBrowserTool(tool, { errand: errandBrowserOf(browsing, key), refs, logs }, args)
  }
}
