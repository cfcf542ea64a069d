/**
 * The live view's screencast (V1): a `PageScreencast` (`@errands/runtime-chromium`) of one page,
 * with flow control from the viewer. Chromium sends a frame, the viewer draws it and acknowledges
 * it, and only then is the frame acknowledged to Chromium — so a slow viewer slows the stream
 * instead of piling frames up, and a viewer that left stops it. `stop()` ends it for good: no
 * frame is handed on after `stop()` has begun.
 *
 * @example
 * const cast = await LiveCast.start(context, page, (frame) => socket.send(JSON.stringify(frame)))
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
  /** Set by `start`, which makes this first: a frame may come before the screencast's start answers. */
  private screencast: PageScreencast | undefined

  private constructor(
    readonly page: Page,
    private readonly onFrame: (frame: LiveFrame) => void,
  ) {}

  /**
   * Starts a screencast of `page`; every frame goes to `onFrame` until `stop()`.
   *
   * @example
   * const cast = await LiveCast.start(context, page, send)
   */
  static async start(context: BrowserContext, page: Page, onFrame: (frame: LiveFrame) => void): Promise<LiveCast> {
    const cast = new LiveCast(page, onFrame)
    cast.screencast = await PageScreencast.start(context, page, {
      format: 'jpeg', quality: 60, maxWidth: 1280, maxHeight: 1280, everyNthFrame: 1,
      ack: 'deferred',
      onFrame: (frame) => cast.receive(frame),
    })
    return cast
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
    for (const [s, sessionId] of this.unacked) {
      if (s > seq) continue
      this.unacked.delete(s)
      this.screencast?.ack(sessionId)
    }
  }

  /**
   * Stops the screencast and detaches. Idempotent.
   *
   * @example
   * await cast.stop()
   */
  async stop(): Promise<void> {
    this.unacked.clear()
    await this.screencast?.stop()
  }

  private receive(frame: ScreencastFrame): void {
    const seq = ++this.frames
    this.unacked.set(seq, frame.sessionId)
    this.onFrame({ seq, data: frame.data, width: frame.metadata.deviceWidth, height: frame.metadata.deviceHeight })
  }
}
