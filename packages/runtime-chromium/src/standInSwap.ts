/**
 * The stand-in swap (W3, docs/passwords.md, ADR 0045):
 * a browser-level CDP `Fetch` session of the errands' browser that writes a secret's value into
 * the requests carrying its stand-in — only those leaving for the destination the fill named,
 * from the context that filled it — and leaves the stand-in in every other request, logged and
 * counted.
 *
 * Why here: Chromium hands a paused request to its interceptors from the last one enabled to the
 * first (measured: a client's page-level `Fetch`, then later browser-level sessions, then the
 * first), so this session is enabled before the guard's (`interceptFirst` in `LaunchSettings`)
 * and is the last to see a request: after the guard, right before the wire. No DevTools client's
 * interception, `Network` event or page sees the value; TLS is never broken (the swap is in the
 * browser, not a proxy). A redirect's next hop carries the page's own body again (measured), so
 * it is judged afresh. The session pauses nothing while no stand-in lives (a pattern no URL
 * matches) and every request while one does.
 *
 * @example
 * const swap = new StandInSwap(log)
 * await swap.attach(browser) // before guardBrowserRequests
 * await swap.add({ token, shape: 'token', reveal, contextId, browserContextId, destination })
 */
import { describeTarget } from '@errands/guard'
import {
  findStandIns,
  findValues,
  swapRequest,
  type ContextId,
  type LiveStandIn,
  type SecretCounts,
  type SecretDestination,
} from '@errands/runtime'
import type { Browser, CDPSession } from 'playwright-core'
import type { Log } from './containment.ts'

/** A pattern no request URL matches: the session stays first in line without pausing anything. */
const IDLE = [{ urlPattern: 'errands-no-stand-in:*', requestStage: 'Request' as const }]
const EVERY = [{ urlPattern: '*', requestStage: 'Request' as const }]

/** How long a stand-in lives after its fill (then the page's requests carry it as it is). */
export const STAND_IN_TTL_MS = 10 * 60_000

/** A live stand-in and whose it is. */
export interface SwapEntry extends LiveStandIn {
  readonly contextId: ContextId
  /** The CDP browser context it was filled in: requests from another context never get its value. */
  readonly browserContextId: string
  readonly destination: SecretDestination
}

interface Live extends SwapEntry {
  readonly expiresAt: number
}

interface PausedRequest {
  readonly requestId: string
  readonly frameId?: string
  readonly request: {
    readonly url: string
    readonly headers?: Readonly<Record<string, string>>
    readonly postData?: string
    readonly hasPostData?: boolean
    readonly postDataEntries?: ReadonlyArray<{ readonly bytes?: string }>
  }
}

/**
 * The swap of one runtime's errands' browser (re-attached to each new browser generation).
 *
 * @example
 * const swap = new StandInSwap(console.error)
 */
export class StandInSwap {
  private session: CDPSession | undefined
  private readonly live = new Map<string, Live>()
  private widened = false
  private swapped = 0
  private withheld = 0
  /** CDP frame id → its browser context id (`null`: a frame that is no target, such as a same-process iframe). */
  private readonly frames = new Map<string, string | null>()

  constructor(
    private readonly log: Log,
    private readonly ttlMs = STAND_IN_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Opens the swap's session on a freshly launched browser; the stand-ins of an earlier browser
   * died with its pages.
   *
   * @example
   * await swap.attach(browser)
   */
  async attach(browser: Browser): Promise<void> {
    const session = await browser.newBrowserCDPSession()
    this.session = session
    this.live.clear()
    this.frames.clear()
    this.widened = false
    session.on('Fetch.requestPaused', (event: PausedRequest) => void this.onPaused(session, event))
    await session.send('Fetch.enable', { patterns: IDLE })
  }

  /**
   * A stand-in from now on: requests are paused before this returns, so the page cannot send it
   * unseen.
   *
   * @example
   * await swap.add(entry)
   */
  async add(entry: SwapEntry): Promise<void> {
    this.live.set(entry.token, { ...entry, expiresAt: this.now() + this.ttlMs })
    await this.patterns()
  }

  /** Forgets a context's stand-ins (it closed). @example swap.dropContext('e1.3') */
  dropContext(contextId: ContextId): void {
    for (const [token, live] of this.live) if (live.contextId === contextId) this.live.delete(token)
    void this.patterns().catch(() => undefined)
  }

  /** The counts so far. @example swap.counts().withheld */
  counts(): SecretCounts {
    this.prune()
    return { live: this.live.size, swapped: this.swapped, withheld: this.withheld }
  }

  private prune(): void {
    const now = this.now()
    for (const [token, live] of this.live) if (live.expiresAt <= now) this.live.delete(token)
  }

  /** Pauses every request while a stand-in lives, none otherwise. */
  private async patterns(): Promise<void> {
    const wide = this.live.size > 0
    if (wide === this.widened || this.session === undefined) return
    this.widened = wide
    await this.session.send('Fetch.enable', { patterns: wide ? EVERY : IDLE })
  }

  private async onPaused(session: CDPSession, event: PausedRequest): Promise<void> {
    let params: { requestId: string } & Record<string, unknown> = { requestId: event.requestId }
    try {
      if (this.carriesValue(event)) {
        await session
          .send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' })
          .catch(() => undefined)
        return
      }
      params = { ...params, ...(await this.rewrite(session, event)) }
    } catch {
      // Whatever failed, the request leaves as the page made it: with its stand-ins.
    }
    await session.send('Fetch.continueRequest', params).catch(() => undefined)
    if (this.live.size === 0 && this.widened) void this.patterns().catch(() => undefined)
  }

  /**
   * Whether a request to a destination a secret may not reach carries the secret's value itself:
   * its own site reflected it (an open redirect's `Location`, a page that echoes the form), and it
   * would leave for another site as it is. Such a request is stopped, logged and counted.
   */
  private carriesValue(event: PausedRequest): boolean {
    this.prune()
    const { url, headers = {} } = event.request
    const others = [...this.live.values()].filter((s) => !s.destination.allows(url))
    if (others.length === 0) return false
    const body = bodyOf(event.request) ?? textBody(event.request)
    const leaked = findValues(
      { url, body, headers: Object.entries(headers).map(([k, v]) => `${k}: ${v}`) },
      others,
    ) as ReadonlyArray<Live>
    for (const s of leaked) {
      this.withheld++
      this.log(
        `passwords: a request to ${describeTarget(url)} from context ${s.contextId} carried the value for ` +
          `${s.destination.label} itself (its site reflected it): stopped before the wire`,
      )
    }
    return leaked.length > 0
  }

  /** What to change in a paused request (nothing, usually). */
  private async rewrite(session: CDPSession, event: PausedRequest): Promise<Record<string, unknown>> {
    this.prune()
    if (this.live.size === 0) return {}
    const { url, headers = {} } = event.request
    const body = bodyOf(event.request)
    const carried = findStandIns(
      { url, body: body ?? textBody(event.request), headers: Object.entries(headers).map(([k, v]) => `${k}: ${v}`) },
      [...this.live.values()],
    ) as ReadonlyArray<Live>
    if (carried.length === 0) return {}
    const from = await this.contextOf(session, event.frameId)
    const mine = (s: Live) => s.destination.allows(url) && (from === undefined || from === s.browserContextId)
    const allowed = carried.filter(mine)
    const kept = carried.filter((s) => !mine(s))
    for (const s of kept) {
      this.withheld++
      this.log(
        `passwords: a stand-in left for ${describeTarget(url)} from context ${s.contextId} as the stand-in ` +
          `(it fills for ${s.destination.label} only): an attempted exfiltration`,
      )
    }
    if (allowed.length === 0) return {}
    const contentType = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1]
    const result = swapRequest({ url, contentType, body }, allowed)
    this.swapped += result.swapped.length
    for (const s of result.unwritable as ReadonlyArray<Live>) {
      this.log(
        `passwords: a stand-in for ${s.destination.label} stayed in a request to ${describeTarget(url)}: ` +
          `its body's type (${(contentType ?? 'none').split(';')[0]}) says no way to write the value`,
      )
    }
    return {
      ...(result.url !== undefined ? { url: result.url } : {}),
      ...(result.body !== undefined ? { postData: Buffer.from(result.body).toString('base64') } : {}),
    }
  }

  /** The browser context a frame's request comes from, when the frame is a target (a tab, an out-of-process iframe). */
  private async contextOf(session: CDPSession, frameId: string | undefined): Promise<string | undefined> {
    if (frameId === undefined || frameId === '') return undefined
    if (!this.frames.has(frameId)) {
      const info = await session
        .send('Target.getTargetInfo', { targetId: frameId })
        .then((r) => r.targetInfo.browserContextId ?? null)
        .catch(() => null)
      if (this.frames.size > 10_000) this.frames.clear()
      this.frames.set(frameId, info)
    }
    return this.frames.get(frameId) ?? undefined
  }
}

/** The request's body bytes when every part of it is known (a file part's bytes are not). */
const bodyOf = (request: PausedRequest['request']): Uint8Array | undefined => {
  const entries = request.postDataEntries
  if (entries === undefined || entries.length === 0) return undefined
  if (entries.some((e) => e.bytes === undefined)) return undefined
  return new Uint8Array(Buffer.concat(entries.map((e) => Buffer.from(e.bytes!, 'base64'))))
}

/** The body as text, for finding stand-ins in a body we cannot rewrite whole. */
const textBody = (request: PausedRequest['request']): Uint8Array | undefined =>
  request.postData === undefined ? undefined : new TextEncoder().encode(request.postData)
