/**
 * A CDP screencast of one Playwright page (`Page.startScreencast`), the piece under the runtime's
 * `screencast` capability (`tabScreencast.ts`), which the live view's stream (acks deferred until
 * the viewer drew a frame) and the host's `GET /v1/frame` (acks at once) use. It owns the CDP
 * session: it opens one, hands on every frame with Chromium's metadata, acknowledges frames by
 * the chosen policy, and on `stop()` — or when the page closes or the session detaches — stops
 * the cast, detaches and removes every listener it added.
 *
 * Chromium sends a frame only while fewer than `maxFramesInFlight` (3 by default) are
 * unacknowledged (https://chromedevtools.github.io/devtools-protocol/tot/Page/#method-screencastFrameAck):
 * an ack that never comes stops the stream, which is what deferred acks use for flow control. An
 * ack carries the frame's `sessionId`, which — despite the protocol's "frame number" — Chromium
 * gives every frame of one start alike; each ack releases one frame in flight.
 *
 * @example
 * const cast = await PageScreencast.start(context, page, {
 *   format: 'jpeg', quality: 60, maxWidth: 1280, maxHeight: 1280, ack: 'deferred',
 *   onFrame: (frame) => show(frame.data, () => cast.ack(frame.sessionId)),
 * })
 * await cast.stop()
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core'

/** What Chromium tells about a frame (CDP `Page.ScreencastFrameMetadata`). */
export interface PageScreencastFrameMetadata {
  /** The page's size in DIP when it was painted. */
  readonly deviceWidth: number
  readonly deviceHeight: number
  readonly offsetTop: number
  readonly pageScaleFactor: number
  readonly scrollOffsetX: number
  readonly scrollOffsetY: number
  /** When it was swapped in, seconds since the epoch (Chromium may leave it out). */
  readonly timestamp?: number | undefined
}

/** One frame as Chromium sent it. */
export interface PageScreencastFrame {
  /** The image in the requested format, base64 (as CDP sends it). */
  readonly data: string
  /** What `ack` takes: Chromium's number for this screencast (not unique per frame). */
  readonly sessionId: number
  readonly metadata: PageScreencastFrameMetadata
}

/** How a screencast runs. The image settings go to `Page.startScreencast` as they are. */
export interface PageScreencastOptions {
  /** Default `'jpeg'`. */
  readonly format?: 'jpeg' | 'png' | undefined
  /** JPEG quality, 0–100. */
  readonly quality?: number | undefined
  readonly maxWidth?: number | undefined
  readonly maxHeight?: number | undefined
  /** Default 1: every frame. */
  readonly everyNthFrame?: number | undefined
  /**
   * `'immediate'`: each frame is acknowledged as it arrives, before `onFrame`, so Chromium keeps
   * sending. `'deferred'`: nothing is acknowledged until `ack(frame.sessionId)`.
   */
  readonly ack: 'immediate' | 'deferred'
  /** Every frame, in order, until the screencast stops; none after `stop()` has begun. */
  readonly onFrame: (frame: PageScreencastFrame) => void
  /**
   * Once, when it has stopped for whatever reason: `stop()`, the page closed, the session
   * detached, or a failed start.
   */
  readonly onStop?: (() => void) | undefined
}

/**
 * A running screencast of one page.
 *
 * @example
 * if (!cast.running) cast = await PageScreencast.start(context, page, options)
 */
export class PageScreencast {
  /** `stopping`: listeners are off and no frame is handed on; the CDP calls are under way. */
  private state: 'running' | 'stopping' | 'stopped' = 'running'
  private stopped: Promise<void> | undefined

  private constructor(
    readonly page: Page,
    private readonly cdp: CDPSession,
    private readonly options: PageScreencastOptions,
  ) {}

  /**
   * Opens a CDP session on `page` and starts the screencast. When the start fails, the session
   * is detached (and `onStop` told) before the error is rethrown.
   *
   * @example
   * const cast = await PageScreencast.start(context, page, { ack: 'immediate', onFrame: keep })
   */
  static async start(context: BrowserContext, page: Page, options: PageScreencastOptions): Promise<PageScreencast> {
    const cdp = await context.newCDPSession(page)
    const cast = new PageScreencast(page, cdp, options)
    // Listening before the start: the first frame may arrive before its answer does.
    cdp.on('Page.screencastFrame', cast.receive)
    cdp.on('close', cast.lost)
    page.on('close', cast.lost)
    try {
      await cdp.send('Page.startScreencast', {
        format: options.format ?? 'jpeg',
        quality: options.quality,
        maxWidth: options.maxWidth,
        maxHeight: options.maxHeight,
        everyNthFrame: options.everyNthFrame ?? 1,
      })
    } catch (e) {
      await cast.stop()
      throw e
    }
    return cast
  }

  /** Whether frames may still come. @example cast.running */
  get running(): boolean {
    return this.state === 'running' && !this.page.isClosed()
  }

  /**
   * Acknowledges frame `sessionId`, so Chromium may send more. Only for `ack: 'deferred'` — with
   * immediate acks every frame is acknowledged already — and a no-op once stopping.
   *
   * @example
   * cast.ack(frame.sessionId)
   */
  ack(sessionId: number): void {
    if (this.options.ack === 'deferred' && this.state === 'running') this.send(sessionId)
  }

  /**
   * Stops the screencast and detaches. Idempotent: a later call gets the first one's promise.
   * Never throws — a closed page or a detached session has nothing left to stop.
   *
   * @example
   * await cast.stop()
   */
  stop(): Promise<void> {
    if (this.stopped === undefined) {
      // Off at once (not after the CDP round trips): no frame is handed on once stop() began.
      this.state = 'stopping'
      this.cdp.off('Page.screencastFrame', this.receive)
      this.cdp.off('close', this.lost)
      this.page.off('close', this.lost)
      this.stopped = this.end()
    }
    return this.stopped
  }

  private async end(): Promise<void> {
    await this.cdp.send('Page.stopScreencast').catch(() => undefined)
    await this.cdp.detach().catch(() => undefined)
    this.state = 'stopped'
    // After the awaits, so `stopped` is set: an `onStop` that calls `stop()` gets this promise.
    this.options.onStop?.()
  }

  private send(sessionId: number): void {
    // An ack racing a closing page fails harmlessly: there is nothing left to send.
    this.cdp.send('Page.screencastFrameAck', { sessionId }).catch(() => undefined)
  }

  private readonly receive = (event: PageScreencastFrame): void => {
    if (this.state !== 'running') return
    if (this.options.ack === 'immediate') this.send(event.sessionId)
    this.options.onFrame({ data: event.data, sessionId: event.sessionId, metadata: event.metadata })
  }

  private readonly lost = (): void => void this.stop()
}
