/**
 * The live view's screencast (V1): the runtime's `screencast` of one tab with acks deferred to
 * the viewer. The browser paints a frame, the viewer draws it and acknowledges it, and only then
 * is the frame acknowledged to the browser — so a slow viewer slows the stream instead of piling
 * frames up, and a viewer that left stops it. `stop()` ends it for good: no frame is handed on
 * after `stop()` has begun.
 *
 * What it adds to the runtime's screencast: it exists before the stream starts, so the viewer's
 * acks of the first frames — which may arrive before the start has answered — are kept and passed
 * on once it has, and a stop while it starts stops the stream as soon as it is there.
 *
 * @example
 * const cast = LiveCast.create((frame) => socket.send(JSON.stringify(frame)))
 * await cast.start((options) => run(runtime.screencast(contextId, tabId, options)))
 * cast.ack(frame.seq) // when the viewer has drawn it
 * await cast.stop()
 */
import type { Screencast, ScreencastOptions } from '@errands/runtime'

/** One frame as the viewer receives it. */
export interface LiveFrame {
  /** Counts frames of this cast from 1; the viewer acknowledges by it. */
  readonly seq: number
  /** JPEG, base64. */
  readonly data: string
  readonly width: number
  readonly height: number
}

/** How the live view asks for its stream: quality and size fit a screen, acks wait for the viewer. */
const LIVE_SETTINGS = { quality: 60, maxWidth: 1280, maxHeight: 1280, ack: 'deferred' } as const

/**
 * A running screencast of one tab.
 *
 * @example
 * cast.frames // frames handed to the viewer so far
 */
export class LiveCast {
  /** Frames handed to the viewer. */
  frames = 0
  /** Set when `start` answers; frames (and the viewer's acks of them) may come before. */
  private screencast: Screencast | undefined
  /** The highest frame the viewer acked: acks that come before `start` answers wait here. */
  private acked = 0
  private stopped = false

  private constructor(private readonly onFrame: (frame: LiveFrame) => void) {}

  /**
   * A cast whose frames will go to `onFrame`; `start` starts it. Two steps, so the caller can
   * hold the cast (and route the viewer's acks to it) before its first frame.
   *
   * @example
   * const cast = LiveCast.create(send)
   */
  static create(onFrame: (frame: LiveFrame) => void): LiveCast {
    return new LiveCast(onFrame)
  }

  /**
   * Starts the stream through `open` (the runtime's `screencast` of the tab); every frame goes to
   * `onFrame` until `stop()`.
   *
   * @example
   * await cast.start((options) => run(runtime.screencast(contextId, 't1', options)))
   */
  async start(open: (options: ScreencastOptions) => Promise<Screencast>): Promise<void> {
    this.screencast = await open({ ...LIVE_SETTINGS, onFrame: (frame) => this.receive(frame) })
    if (this.stopped)
      await this.screencast.stop() // stopped while it started
    else this.screencast.ack(this.acked)
  }

  /** Whether it still runs. @example cast.running */
  get running(): boolean {
    return this.screencast?.running ?? false
  }

  /**
   * The viewer drew frame `seq` (and every one before it): the browser may send the next.
   *
   * @example
   * cast.ack(3)
   */
  ack(seq: number): void {
    this.acked = Math.max(this.acked, seq)
    this.screencast?.ack(seq)
  }

  /**
   * Stops the screencast. Idempotent.
   *
   * @example
   * await cast.stop()
   */
  async stop(): Promise<void> {
    this.stopped = true
    await this.screencast?.stop()
  }

  private receive(frame: LiveFrame): void {
    if (this.stopped) return
    this.frames++
    this.onFrame({ seq: frame.seq, data: frame.data, width: frame.width, height: frame.height })
  }
}
