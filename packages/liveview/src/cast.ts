/**
 * The live view's screencast (V1): a `PageScreencast` (`@errands/runtime-chromium`) of one page,
 * with flow control from the viewer. Chromium sends a frame, the viewer draws it and acknowledges
 * it, and only then is the frame acknowledged to Chromium — so a slow viewer slows the stream
 * instead of piling frames up, and a viewer that left stops it. `stop()` ends it for good: no
 * frame is handed on after `stop()` has begun.
 *
 * @example
 * const cast = LiveCast.create(page, (frame) => socket.send(JSON.stringify(frame)))
 * await cast.start(context) // frames may come (and be acked) before this answers
 * cast.ack(frame.seq) // when the viewer has drawn it
 * await cast.stop()
 */
import { PageScreencast, type ScreencastFrame } from '@errands/runtime-chromium'
import type { BrowserContext, Page } from 'playwright-core'

/** One frame as the viewer receives it. */
export interface LiveFrame {
  /** Counts frames of this cast from 1; the viewer acknowledges by it. */
  readonly seq: number
  /** JPEG, base64. */
  readonly data: string
  readonly width: number
  readonly height: number
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
  /** Each unacknowledged frame's Chromium `sessionId`, by `seq`. */
  private readonly unacked = new Map<number, number>()
  /** Set when `start` answers; frames (and the viewer's acks of them) may come before. */
  private screencast: PageScreencast | undefined
  /** The highest frame the viewer acked: acks that come before `start` answers wait here. */
  private acked = 0
  private stopped = false

  private constructor(
    readonly page: Page,
    private readonly onFrame: (frame: LiveFrame) => void,
  ) {}

  /**
   * A cast of `page` whose frames will go to `onFrame`; `start` starts it. Two steps, so the
   * caller can hold the cast (and route the viewer's acks to it) before its first frame.
   *
   * @example
   * const cast = LiveCast.create(page, send)
   */
  static create(page: Page, onFrame: (frame: LiveFrame) => void): LiveCast {
    return new LiveCast(page, onFrame)
  }

  /**
   * Starts the screencast; every frame goes to `onFrame` until `stop()`.
   *
   * @example
   * await cast.start(context)
   */
  async start(context: BrowserContext): Promise<void> {
    this.screencast = await PageScreencast.start(context, this.page, {
      format: 'jpeg', quality: 60, maxWidth: 1280, maxHeight: 1280, everyNthFrame: 1,
      ack: 'deferred',
      onFrame: (frame) => this.receive(frame),
    })
    if (this.stopped) await this.screencast.stop() // stopped while it started
    else this.ack(this.acked)
  }

  /** Whether it still runs. @example cast.running */
  get running(): boolean {
    return this.screencast?.running ?? false
  }

  /**
   * The viewer drew frame `seq` (and every one before it): Chromium may send the next.
   *
   * @example
   * cast.ack(3)
   */
  ack(seq: number): void {
    this.acked = Math.max(this.acked, seq)
    if (!this.screencast) return
    for (const [s, sessionId] of this.unacked) {
      if (s > seq) continue
      this.unacked.delete(s)
      this.screencast.ack(sessionId)
    }
  }

  /**
   * Stops the screencast and detaches. Idempotent.
   *
   * @example
   * await cast.stop()
   */
  async stop(): Promise<void> {
    this.stopped = true
    this.unacked.clear()
    await this.screencast?.stop()
  }

  private receive(frame: ScreencastFrame): void {
    const seq = ++this.frames
    this.unacked.set(seq, frame.sessionId)
    this.onFrame({ seq, data: frame.data, width: frame.metadata.deviceWidth, height: frame.metadata.deviceHeight })
  }
}
