/**
 * The live view's screencast (V1): CDP `Page.startScreencast` on one page, with flow control
 * from the viewer. Chromium sends a frame, the viewer draws it and acknowledges it, and only then
 * is the frame acknowledged to Chromium — so a slow viewer slows the stream instead of piling
 * frames up, and a viewer that left stops it. `stop()` ends it for good: no frame is handed on
 * after `stop()` has begun.
 *
 * @example
 * const cast = await LiveCast.start(context, page, (frame) => socket.send(JSON.stringify(frame)))
 * cast.ack(frame.seq) // when the viewer has drawn it
 * await cast.stop()
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core'

/** One frame as the viewer receives it. */
export interface LiveFrame {
  /** Counts frames of this cast from 1; the viewer acknowledges by it. */
  readonly seq: number
  /** JPEG, base64. */
  readonly data: string
  readonly width: number
  readonly height: number
}

interface ScreencastFrameEvent {
  readonly data: string
  readonly sessionId: number
  readonly metadata: { readonly deviceWidth: number; readonly deviceHeight: number }
}

/**
 * A running screencast of one page.
 *
 * @example
 * cast.frames // frames handed to the viewer so far
 */
export class LiveCast {
  /** Frames handed to the viewer. */
  frames = 0
  private stopped = false
  private readonly unacked = new Map<number, number>()

  private constructor(
    readonly page: Page,
    private readonly cdp: CDPSession,
    private readonly onFrame: (frame: LiveFrame) => void,
  ) {}

  /**
   * Starts a screencast of `page`; every frame goes to `onFrame` until `stop()`.
   *
   * @example
   * const cast = await LiveCast.start(context, page, send)
   */
  static async start(context: BrowserContext, page: Page, onFrame: (frame: LiveFrame) => void): Promise<LiveCast> {
    const cdp = await context.newCDPSession(page)
    const cast = new LiveCast(page, cdp, onFrame)
    cdp.on('Page.screencastFrame', (event: ScreencastFrameEvent) => cast.receive(event))
    await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 60, maxWidth: 1280, maxHeight: 1280, everyNthFrame: 1 })
    return cast
  }

  /** Whether it still runs. @example cast.running */
  get running(): boolean {
    return !this.stopped && !this.page.isClosed()
  }

  /**
   * The viewer drew frame `seq` (and every one before it): Chromium may send the next.
   *
   * @example
   * cast.ack(3)
   */
  ack(seq: number): void {
    for (const [s, sessionId] of this.unacked) {
      if (s > seq) continue
      this.unacked.delete(s)
      if (!this.stopped) this.cdp.send('Page.screencastFrameAck', { sessionId }).catch(() => undefined)
    }
  }

  /**
   * Stops the screencast and detaches. Idempotent.
   *
   * @example
   * await cast.stop()
   */
  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    this.unacked.clear()
    await this.cdp.send('Page.stopScreencast').catch(() => undefined)
    await this.cdp.detach().catch(() => undefined)
  }

  private receive(event: ScreencastFrameEvent): void {
    if (this.stopped) return
    const seq = ++this.frames
    this.unacked.set(seq, event.sessionId)
    this.onFrame({ seq, data: event.data, width: event.metadata.deviceWidth, height: event.metadata.deviceHeight })
  }
}
