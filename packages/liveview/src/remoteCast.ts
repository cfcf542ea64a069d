/**
 * The live view's stream of an errand held by another host of a cluster (V1, issue #24). That
 * errand's page is in the other host's Chromium, so no screencast of it can start here; instead
 * the host's page verbs fetch its latest frame from the owner (`GET /v1/frame`'s verb, which runs
 * the owner's own screencast) one at a time, and each new frame goes to the viewer. The same flow
 * control as a local cast: the next frame is asked for only after the viewer acknowledged the
 * last, so a slow viewer slows the polling and a viewer that left stops it.
 *
 * @example
 * const cast = new RemoteCast(fetchFrame, send, 250)
 * cast.start()
 * cast.ack(frame.seq) // when the viewer has drawn it
 * await cast.stop()
 */
import type { LiveFrame } from './cast.ts'

/** An errand held by another host, as the live view streams it: its active tab and its frames. */
export interface RemoteErrand {
  readonly tab: { readonly url: string; readonly title: string } | null
  readonly frame: () => Promise<OwnerFrame>
}

/** How often a held-elsewhere errand's frame is asked for, at most (one at a time, after the viewer's ack). */
export const REMOTE_FRAME_MS = 250

/** A frame of the errand as the owner's page verbs give it. */
export interface OwnerFrame {
  readonly data: Uint8Array
  /** The owner's count of frames of this errand: a frame already shown is not sent again. */
  readonly seq: number
  readonly width: number
  readonly height: number
}

/**
 * A stream of frames polled from the errand's owner.
 *
 * @example
 * cast.frames // frames handed to the viewer so far
 */
export class RemoteCast {
  /** Frames handed to the viewer. */
  frames = 0
  private stopped = false
  private waitingFor: number | undefined
  private lastSeen = -1
  private timer: NodeJS.Timeout | undefined
  private inFlight: Promise<void> = Promise.resolve()

  constructor(
    /** The owner's latest frame (rejects when it cannot be had now: the next poll tries again). */
    private readonly fetchFrame: () => Promise<OwnerFrame>,
    private readonly onFrame: (frame: LiveFrame) => void,
    private readonly everyMs: number,
  ) {}

  /** Starts polling. @example cast.start() */
  start(): void {
    this.schedule(0)
  }

  /** Whether it still runs. @example cast.running */
  get running(): boolean {
    return !this.stopped
  }

  /**
   * The viewer drew frame `seq`: the next poll may go.
   *
   * @example
   * cast.ack(3)
   */
  ack(seq: number): void {
    if (this.waitingFor === undefined || seq < this.waitingFor) return
    this.waitingFor = undefined
    this.schedule(this.everyMs)
  }

  /**
   * Stops polling; no frame is handed on after `stop()` has begun. Idempotent.
   *
   * @example
   * await cast.stop()
   */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    await this.inFlight
  }

  private schedule(ms: number): void {
    if (this.stopped) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.inFlight = this.poll()
    }, ms)
    this.timer.unref()
  }

  private async poll(): Promise<void> {
    const frame = await this.fetchFrame().catch(() => undefined)
    if (this.stopped) return
    // Nothing new (or the owner could not answer now): look again later, the viewer owes no ack.
    if (frame === undefined || frame.seq === this.lastSeen) return this.schedule(this.everyMs)
    this.lastSeen = frame.seq
    const seq = ++this.frames
    this.waitingFor = seq
    this.onFrame({ seq, data: Buffer.from(frame.data).toString('base64'), width: frame.width, height: frame.height })
  }
}
