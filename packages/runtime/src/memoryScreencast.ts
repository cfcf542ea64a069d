/**
 * The memory runtime's screencasts: no browser paints, so a test paints (`MemoryRuntime.paint`,
 * and every `visit` paints the tab it loads). Flow control is Chromium's as the live view relies
 * on it: with deferred acks a paint sends a frame only while fewer than
 * {@link MEMORY_FRAMES_IN_FLIGHT} frames wait for an ack, and a paint that finds them all waiting
 * is lost, as a repaint Chromium does not encode is.
 *
 * @example
 * const casts = new MemoryScreencasts()
 * const cast = casts.start('ctx-1/t1', { ack: 'deferred', onFrame: (f) => frames.push(f) })
 * casts.paint('ctx-1/t1') // 1: one screencast was sent a frame
 * casts.stopWhere((key) => key.startsWith('ctx-1/'))
 */
import type { Screencast, ScreencastFrame, ScreencastOptions } from './screencast.ts'

/** How many frames may wait for an ack before paints are lost (what Chromium keeps, measured). */
export const MEMORY_FRAMES_IN_FLIGHT = 3

/** What a test paints; the rest is made up (a deterministic picture, a 1280×720 page). */
export type MemoryPaint = Partial<Pick<ScreencastFrame, 'data' | 'width' | 'height'>>

/** One fake screencast: its frames counted, its acks kept. */
class MemoryScreencast implements Screencast {
  private sent = 0
  private acked = 0
  private state: 'running' | 'stopped' = 'running'

  constructor(
    readonly key: string,
    private readonly options: ScreencastOptions,
    private readonly forget: (cast: MemoryScreencast) => void,
  ) {}

  get running(): boolean {
    return this.state === 'running'
  }

  readonly ack = (seq: number): void => {
    if (this.running) this.acked = Math.max(this.acked, Math.min(seq, this.sent))
  }

  readonly stop = (): Promise<void> => {
    // Idempotent: the first stop forgets it and tells `onStop`; later ones have nothing to do.
    if (this.state === 'running') {
      this.state = 'stopped'
      this.forget(this)
      this.options.onStop?.()
    }
    return Promise.resolve()
  }

  /** Sends a frame when flow control lets it; whether it did. */
  paint(paint: MemoryPaint): boolean {
    if (!this.running) return false
    if (this.options.ack === 'deferred' && this.sent - this.acked >= MEMORY_FRAMES_IN_FLIGHT) return false
    const seq = ++this.sent
    if (this.options.ack === 'auto') this.acked = seq
    const data = paint.data ?? btoa(`memory frame ${seq} of ${this.key}`)
    this.options.onFrame({ seq, data, width: paint.width ?? 1280, height: paint.height ?? 720 })
    return true
  }
}

/**
 * The running fake screencasts, by `contextId/tabId`.
 *
 * @example
 * casts.running() // how many run: a stopped one leaves none behind
 */
export class MemoryScreencasts {
  private readonly casts = new Set<MemoryScreencast>()

  /** Starts one on the tab `key` names. @example casts.start(`${id}/t1`, options) */
  start(key: string, options: ScreencastOptions): Screencast {
    const cast = new MemoryScreencast(key, options, (c) => this.casts.delete(c))
    this.casts.add(cast)
    return cast
  }

  /** The tab `key` names repaints: how many screencasts were sent a frame. @example casts.paint(`${id}/t1`) */
  paint(key: string, paint: MemoryPaint = {}): number {
    let sent = 0
    for (const cast of [...this.casts]) if (cast.key === key && cast.paint(paint)) sent++
    return sent
  }

  /** Stops those whose tab went (closed, or its context did). @example casts.stopWhere((k) => k === `${id}/t2`) */
  stopWhere(which: (key: string) => boolean): void {
    for (const cast of [...this.casts]) if (which(cast.key)) void cast.stop()
  }

  /** How many run. @example casts.running() */
  running(): number {
    return this.casts.size
  }
}
