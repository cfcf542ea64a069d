/**
 * The screencast capability of the runtime contract (issue #24, "runtimes own pages"): a stream
 * of pictures of one tab as the browser paints it, for the live view (V1) and the `frame` verb.
 * What a caller sees is browser-neutral — base64 JPEG frames numbered from 1 — so nothing above
 * the runtime needs a browser library to watch a page.
 *
 * Flow control is the caller's choice: with `ack: 'deferred'` the browser sends only a few frames
 * ahead of the last one acknowledged (Chromium: three), so a slow reader slows the stream instead
 * of piling frames up; with `ack: 'auto'` every frame is acknowledged as it comes.
 *
 * @example
 * const cast = yield* runtime.screencast(contextId, 't1', {
 *   ack: 'deferred', quality: 60, maxWidth: 1280, maxHeight: 1280,
 *   onFrame: (frame) => show(frame, () => cast.ack(frame.seq)),
 * })
 * yield* Effect.promise(() => cast.stop())
 */

/** One painted frame of a tab. */
export interface ScreencastFrame {
  /** Counts frames of this screencast from 1; `ack` takes it. */
  readonly seq: number
  /** The picture: JPEG, base64. */
  readonly data: string
  /** The page's size when it was painted (CSS pixels, not the picture's). */
  readonly width: number
  readonly height: number
  /** When it was painted, ms since the epoch, when the browser says (the memory runtime never does). */
  readonly at?: number | undefined
}

/** How a screencast runs. */
export interface ScreencastOptions {
  /** Every frame, in order, until the screencast stops; none once `stop()` has begun. */
  readonly onFrame: (frame: ScreencastFrame) => void
  /**
   * `'deferred'`: nothing more comes once a few frames wait for `ack` (flow control by the
   * reader). `'auto'`: every frame is acknowledged as it arrives and `ack` does nothing.
   */
  readonly ack: 'deferred' | 'auto'
  /** JPEG quality, 0–100 (the runtime's default when absent). */
  readonly quality?: number | undefined
  /** The largest picture wanted; the page is scaled down to fit. */
  readonly maxWidth?: number | undefined
  readonly maxHeight?: number | undefined
  /** Once, when it has stopped for whatever reason: `stop()`, the tab or its context closed. */
  readonly onStop?: (() => void) | undefined
}

/**
 * A running screencast of one tab.
 *
 * @example
 * cast.ack(frame.seq) // the reader drew it: the browser may send more
 * if (!cast.running) restart()
 * await cast.stop()
 */
export interface Screencast {
  /** Frame `seq` and every one before it were drawn. A no-op with `ack: 'auto'` or once stopped. */
  readonly ack: (seq: number) => void
  /**
   * Stops it and lets go of everything it held in the browser. Idempotent, never rejects: a
   * closed tab has nothing left to stop.
   */
  readonly stop: () => Promise<void>
  /** Whether frames may still come (false once stopped, or when the tab closed). */
  readonly running: boolean
}
