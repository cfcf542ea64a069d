/**
 * The guard (G1) for a DevTools browser elsewhere (R2): the same three places as in our own
 * browser — requests of every context through one browser-level CDP `Fetch` session (paused only
 * for URLs the policy might block), WebSockets per context, and navigations the host starts.
 *
 * This mirrors `@errands/runtime-chromium`'s `containment.ts`, which that package does not
 * export; see docs/host.md ("What's left") for the proposed export that would remove the copy.
 *
 * @example
 * await guardRemoteBrowser(browser, policy, log)
 * await guardRemoteContext(context, policy, log, 'task-1.r1')
 */
import { decide, formatDecision, interceptPatterns, type Decision, type GuardPolicy } from '@errands/guard'
import type { Browser, BrowserContext, CDPSession } from 'playwright-core'

/** Writes one log line (no secrets). */
export type Log = (line: string) => void

interface RequestPaused {
  readonly requestId: string
  readonly request: { readonly url: string }
  readonly resourceType?: string
}

const ignore = (): void => undefined

/**
 * Pauses the remote browser's requests that the policy might block and fails those it blocks.
 *
 * @example
 * const session = await guardRemoteBrowser(browser, policy, console.error)
 */
export const guardRemoteBrowser = async (browser: Browser, policy: GuardPolicy, log: Log): Promise<CDPSession> => {
  const session = await browser.newBrowserCDPSession()
  session.on('Fetch.requestPaused', (event: RequestPaused) => {
    const decision = decide(event.request.url, policy)
    if (decision.allow) {
      session.send('Fetch.continueRequest', { requestId: event.requestId }).catch(ignore)
      return
    }
    log(formatDecision(event.request.url, decision, `${(event.resourceType ?? 'request').toLowerCase()} in the remote browser`))
    session.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' }).catch(ignore)
  })
  await session.send('Fetch.enable', {
    patterns: interceptPatterns(policy).map((urlPattern) => ({ urlPattern, requestStage: 'Request' as const })),
  })
  return session
}

/**
 * Routes every WebSocket of a remote context through the guard.
 *
 * @example
 * await guardRemoteContext(context, policy, log, id)
 */
export const guardRemoteContext = async (context: BrowserContext, policy: GuardPolicy, log: Log, contextId: string): Promise<void> => {
  await context.routeWebSocket(/.*/, (ws) => {
    const decision = decide(ws.url(), policy)
    if (decision.allow) {
      ws.connectToServer()
      return
    }
    log(formatDecision(ws.url(), decision, `websocket in remote context ${contextId}`))
    return ws.close({ code: 1008, reason: 'blocked by policy' }).catch(ignore)
  })
}

/**
 * Decides a navigation the host starts; logs it when blocked.
 *
 * @example
 * if (!checkRemoteNavigation(url, policy, log, id).allow) throw …
 */
export const checkRemoteNavigation = (url: string, policy: GuardPolicy, log: Log, contextId: string): Decision => {
  const decision = decide(url, policy)
  if (!decision.allow) log(formatDecision(url, decision, `navigation in remote context ${contextId}`))
  return decision
}
