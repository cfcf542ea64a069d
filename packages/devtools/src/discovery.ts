/**
 * HTTP discovery under an errand's DevTools URL (A1, docs/devtools-endpoint.md): what Chromium
 * answers on its debugging port — `/json/version`, `/json/list` (and `/json`), `/json/protocol` —
 * answered under `/devtools/<token>/` with the errand alone in it. Clients given an `http://`
 * endpoint read `webSocketDebuggerUrl` there first (Playwright's `connectOverCDP('http://…')`
 * asks `…/json/version/`, Puppeteer's `browserURL` and so chrome-devtools-mcp's `--browserUrl`
 * ask `…/json/version`); the URL they get is the errand's own, never the browser's.
 *
 * - `/json/version`: Chromium's fields (`Browser.getVersion` of the real browser) and the errand's
 *   WebSocket URL, the same token as asked.
 * - `/json/list`, `/json`: the errand's targets only (what `Target.getTargets` shows through the
 *   endpoint: pages, frames, workers of its context), without a per-target socket (the errand
 *   has one: its `webSocketDebuggerUrl` is the only one offered).
 * - `/json/protocol`: the domains and commands Chromium knows (protocol.ts), no schema.
 *
 * @example
 * const answer = await discover('/json/version', { target, baseUrl: 'ws://127.0.0.1:7777', token })
 * answer.body.webSocketDebuggerUrl // 'ws://127.0.0.1:7777/devtools/<token>'
 */
import type { CdpChannel, CdpMessage, DevToolsTarget } from '@errands/runtime'
import { METHODS_BY_DOMAIN } from './protocol.ts'
import type { TargetInfo } from './targets.ts'

/** The discovery paths under `/devtools/<token>`, with or without a trailing slash (Playwright adds one). */
export const DISCOVERY_PATH = /^\/devtools\/([^/?#]*)\/json(\/version|\/list|\/protocol)?\/?(?:\?.*)?$/

/** What a discovery request is answered with. */
export interface DiscoveryAnswer {
  readonly status: number
  readonly body: unknown
}

/** Deadline of the browser's answers to a discovery request. */
const DEADLINE_MS = 10_000

/** Sends `method` on a fresh channel and waits for its answer. */
const ask = (
  channel: CdpChannel,
  id: number,
  method: string,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${method}: no answer within ${DEADLINE_MS} ms`)), DEADLINE_MS)
    channel.onMessage((message: CdpMessage) => {
      if (message.id !== id) return
      clearTimeout(timer)
      if (message.error !== undefined) reject(new Error(`${method} failed`))
      else resolve((message.result ?? {}) as Record<string, unknown>)
    })
    channel.send({ id, method, params })
  })

/** Chromium's `/json/protocol`, from the method list: every domain and its commands. */
const protocol = () => ({
  version: { major: '1', minor: '3' },
  domains: Object.entries(METHODS_BY_DOMAIN).map(([domain, names]) => ({
    domain,
    commands: names.split(' ').map((name) => ({ name })),
  })),
})

/**
 * Answers one discovery path (`/json/version`, `/json/list`, `/json`, `/json/protocol`) of the
 * errand `target`, whose WebSocket URL is `<baseUrl>/devtools/<token>`.
 *
 * @example
 * await discover('/list', { target, baseUrl, token }) // { status: 200, body: [{ id, type: 'page', … }] }
 */
export const discover = async (
  which: string | undefined,
  deps: { readonly target: DevToolsTarget; readonly baseUrl: string; readonly token: string },
): Promise<DiscoveryAnswer> => {
  if (which === '/protocol') return { status: 200, body: protocol() }
  const webSocketDebuggerUrl = `${deps.baseUrl}/devtools/${deps.token}`
  const channel = await deps.target.connect()
  try {
    if (which === '/version') {
      const v = await ask(channel, 1, 'Browser.getVersion', {})
      const revision = typeof v.revision === 'string' ? v.revision : ''
      return {
        status: 200,
        body: {
          Browser: v.product,
          'Protocol-Version': v.protocolVersion,
          'User-Agent': v.userAgent,
          'V8-Version': v.jsVersion,
          'WebKit-Version': `537.36 (${revision})`,
          webSocketDebuggerUrl,
        },
      }
    }
    const { targetInfos } = await ask(channel, 1, 'Target.getTargets', { filter: [{}] })
    const all = Array.isArray(targetInfos) ? (targetInfos as Array<TargetInfo>) : []
    // As Chromium lists them: no browser or tab targets; only the errand's context.
    const mine = all.filter(
      (t) => t.type !== 'browser' && t.type !== 'tab' && t.browserContextId === deps.target.browserContextId,
    )
    return {
      status: 200,
      body: mine.map((t) => ({
        description: '',
        id: t.targetId,
        title: t.title ?? '',
        type: t.type,
        url: t.url ?? '',
      })),
    }
  } finally {
    channel.close()
  }
}
