/**
 * Wiring the guard (G1) into Chromium: every request of every context, every WebSocket, and
 * every navigation the runtime itself starts.
 *
 * - **Requests**: one browser-level CDP session per browser with `Fetch.enable` at the request
 *   stage. Browser-level interception sees the requests of every context, page, frame, dedicated
 *   and service worker of that browser — including cache hits — and, unlike Playwright's
 *   `context.route`, does not switch the HTTP cache off (Playwright sends
 *   `Network.setCacheDisabled(true)` while routing; T5 needs the cache). Only URLs that the
 *   policy might block are paused (`interceptPatterns`, an over-approximation checked by a
 *   property test); each paused one is judged by `decide`. Blocked requests fail with
 *   `BlockedByClient` (`net::ERR_BLOCKED_BY_CLIENT` in the page).
 * - **WebSockets**: Chromium's Fetch domain never pauses a WebSocket handshake (measured), so each
 *   context also routes WebSockets with `context.routeWebSocket`: an allowed socket is connected
 *   to its server, a blocked one is closed with code 1008 before any connection is made.
 *   Playwright does this with a script in every frame, which workers do not get; a WebSocket that
 *   escapes that way still shows up in the page's `websocket` event, and then its tab is closed
 *   (`ContextRuntime.register`, contexts.ts — for our own browser and a remote one alike).
 * - **Navigations** the runtime starts (`openTab`, `navigate`, restored tabs) are decided before
 *   `goto`, which also covers `file:`, `chrome:` and other URLs that never reach the network.
 *
 * @example
 * const session = await guardBrowserRequests(browser, policy, log, 'errands')
 */
import { decideUrl, Egress, resolverRulesIn, type Lane, type Resolver } from '@errands/egress'
import { decide, formatDecision, interceptPatterns, type Decision, type GuardPolicy } from '@errands/guard'
import type { Browser, BrowserContext, CDPSession } from 'playwright-core'

/** Writes one log line. @example const log: Log = (line) => console.error(line) */
export type Log = (line: string) => void

interface RequestPausedEvent {
  readonly requestId: string
  readonly request: { readonly url: string }
  readonly resourceType?: string
}

/**
 * Pauses the requests of `browser` (all its contexts) that match `patterns` (by default those the
 * policy might block) and fails those the guard blocks. Returns the CDP session; detaching it
 * ends the interception.
 *
 * @example
 * await guardBrowserRequests(context.browser()!, policy, console.log, 'main')
 */
export const guardBrowserRequests = async (
  browser: Browser,
  policy: GuardPolicy,
  log: Log,
  which: string,
  patterns: ReadonlyArray<string> = interceptPatterns(policy),
): Promise<CDPSession> => {
  const session = await browser.newBrowserCDPSession()
  session.on('Fetch.requestPaused', (event: RequestPausedEvent) => {
    const decision = decide(event.request.url, policy)
    if (decision.allow) {
      session.send('Fetch.continueRequest', { requestId: event.requestId }).catch(ignoreGone)
    } else {
      const what = `${(event.resourceType ?? 'request').toLowerCase()} in ${which} browser`
      log(formatDecision(event.request.url, decision, what))
      session
        .send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' })
        .catch(ignoreGone)
    }
  })
  await session.send('Fetch.enable', {
    patterns: patterns.map((urlPattern) => ({ urlPattern, requestStage: 'Request' as const })),
  })
  return session
}

/** The request or the browser went away while we decided: nothing left to answer. */
const ignoreGone = (): void => undefined

/**
 * Routes every WebSocket of `context` through the guard. `noun` names such a context in the log
 * (`context`, `remote context`).
 *
 * @example
 * await guardContextWebSockets(context, policy, log, 'main')
 */
export const guardContextWebSockets = async (
  context: BrowserContext,
  policy: GuardPolicy,
  log: Log,
  contextId: string,
  noun = 'context',
): Promise<void> => {
  await context.routeWebSocket(/.*/, (ws) => {
    const url = ws.url()
    const decision = decide(url, policy)
    if (decision.allow) {
      ws.connectToServer()
      return
    }
    log(formatDecision(url, decision, `websocket in ${noun} ${contextId}`))
    return ws.close({ code: 1008, reason: 'blocked by policy' }).catch(ignoreGone)
  })
}

/**
 * Decides a navigation the runtime is asked to start — the one URL rule of every navigation an
 * agent, a restore or a tab asks for (docs/adr/0049-runtime-owns-the-page.md): the egress's
 * resolve-then-decide (`decideUrl`, G2, G3), with the resolver the egress connects with, so
 * `http://vm:7070/` (/etc/hosts: 127.0.0.1) is refused like `http://127.0.0.1:7070/`. Logs it when
 * blocked (`noun` as above).
 *
 * @example
 * if (!(await checkNavigation(url, policy, resolve, log, id)).allow) throw refusal
 */
export const checkNavigation = async (
  url: string,
  policy: GuardPolicy,
  resolve: Resolver,
  log: Log,
  contextId: string,
  noun = 'context',
): Promise<Decision> => {
  const decision = await decideUrl(url, policy, resolve)
  if (!decision.allow) log(formatDecision(url, decision, `navigation in ${noun} ${contextId}`))
  return decision
}

/**
 * The egress as the runtime uses it (G3): the main context's lane, a factory that gives every
 * errand context (and the warm spare) a lane of its own, and the lane of a context, to say whose
 * it is once the context is handed to an errand.
 *
 * Loopback is proxied too (`<-loopback>` takes loopback out of Chromium's implicit bypass list):
 * the engine's ports live there.
 *
 * @example
 * const wiring = await wireEgress({ policy, log, extraArgs })
 * await browser.newContext() // no: use wiring.newContext(browser)
 */
export interface EgressWiring {
  readonly egress: Egress
  readonly mainProxy: { readonly server: string; readonly bypass: string }
  readonly newContext: (browser: Browser) => Promise<BrowserContext>
  /** Says which errand a context's connections belong to (and its upstream proxy, a secret). */
  readonly assign: (context: BrowserContext, errand: string, upstream?: string | undefined) => void
  /**
   * Re-chains a context's lane through another upstream proxy (`undefined`: none); false when the context has no lane.
   */
  readonly setUpstream: (context: BrowserContext, upstream: string | undefined) => boolean
  readonly close: () => Promise<void>
}

/** Chromium's bypass list for a context behind the egress: nothing, loopback included. */
export const EGRESS_BYPASS = '<-loopback>'

/**
 * Starts the egress for one runtime and opens the main context's lane.
 *
 * @example
 * const wiring = await wireEgress({ policy: settings.policy, log, extraArgs: settings.extraArgs })
 */
export const wireEgress = async (o: {
  readonly policy: GuardPolicy
  readonly log: Log
  readonly extraArgs: ReadonlyArray<string>
}): Promise<EgressWiring> => {
  const egress = await Egress.start({ policy: o.policy, log: o.log, resolverRules: resolverRulesIn(o.extraArgs) })
  const main = await egress.openLane('main')
  const lanes = new WeakMap<BrowserContext, Lane>()
  return {
    egress,
    mainProxy: { server: main.server, bypass: EGRESS_BYPASS },
    newContext: async (browser) => {
      const lane = await egress.openLane()
      try {
        const context = await browser.newContext({ proxy: { server: lane.server, bypass: EGRESS_BYPASS } })
        lanes.set(context, lane)
        context.on('close', () => void lane.close())
        return context
      } catch (error) {
        await lane.close()
        throw error
      }
    },
    assign: (context, errand, upstream) => {
      const lane = lanes.get(context)
      lane?.assign(errand)
      lane?.setUpstream(upstream)
    },
    setUpstream: (context, upstream) => {
      const lane = lanes.get(context)
      lane?.setUpstream(upstream)
      return lane !== undefined
    },
    close: () => egress.close(),
  }
}
