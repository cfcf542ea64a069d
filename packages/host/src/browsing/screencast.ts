/**
 * The live view's frames (V1, B3 `GET /v1/frame`): a `PageScreencast` (`@errands/runtime-chromium`)
 * of a session's active page, keeping only the latest frame. Each frame is acked at once with the
 * `sessionId` it carries (STACK-NOTES), or Chromium stops sending. A screencast stops by itself
 * after `idleMs` without a reader, so an unwatched session costs no encoding.
 *
 * @example
 * const cast = await Screencast.start(context, page, { idleMs: 30_000 })
 * const frame = cast.latest ?? (await cast.next(1_500))
 * await cast.stop()
 */
import { PageScreencast, type PageScreencastFrame } from '@errands/runtime-chromium'
import type { BrowserContext, Page } from 'playwright-core'

/** One frame as Chromium painted it. */
export interface CastFrame {
  readonly data: Buffer
  /** Paint time, ms since the epoch. */
  readonly at: number
  readonly width: number
  readonly height: number
}

/**
 * A running screencast of one page.
 *
 * @example
 * cast.page === page // which page it shows
 */
export class Screencast {
  latest: CastFrame | undefined
  frames = 0
  private state: 'running' | 'stopped' = 'running'
  private waiters = new Set<(frame: CastFrame | undefined) => void>()
  private idleTimer: NodeJS.Timeout | undefined
  /** Set by `start`, which makes this first: a frame may come before the screencast's start answers. */
  private screencast: PageScreencast | undefined

  private constructor(
    readonly page: Page,
    private readonly idleMs: number,
    private readonly onFrame: (frame: CastFrame) => void,
  ) {}

  /**
   * Starts a screencast on `page`; `onFrame` is told about every frame (the session counts them).
   *
   * @example
   * const cast = await Screencast.start(context, page, { idleMs: 30_000, onFrame: () => seq++ })
   */
  static async start(
    context: BrowserContext,
    page: Page,
    options: { readonly idleMs: number; readonly onFrame?: ((frame: CastFrame) => void) | undefined },
  ): Promise<Screencast> {
    const cast = new Screencast(page, options.idleMs, options.onFrame ?? (() => undefined))
    cast.screencast = await PageScreencast.start(context, page, {
      format: 'jpeg', quality: 70, maxWidth: 1920, maxHeight: 1920, everyNthFrame: 1,
      ack: 'immediate',
      onFrame: (frame) => cast.receive(frame),
      // The page closed (or its session went): waiters learn it now, not at their timeout.
      onStop: () => void cast.stop(),
    })
    cast.touch()
    return cast
  }

  /** Whether it still runs. @example cast.running */
  get running(): boolean {
    return this.state === 'running'
  }

  /**
   * The next frame, or `undefined` after `ms` (or when stopped).
   *
   * @example
   * const frame = await cast.next(1_500)
   */
  next(ms: number): Promise<CastFrame | undefined> {
    this.touch()
    if (!this.running) return Promise.resolve(undefined)
    return new Promise((resolve) => {
      const done = (frame: CastFrame | undefined) => {
        clearTimeout(timer)
        this.waiters.delete(done)
        resolve(frame)
      }
      const timer = setTimeout(() => done(undefined), ms)
      this.waiters.add(done)
    })
  }

  /** A reader came by: keep running for another `idleMs`. @example cast.touch() */
  touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = setTimeout(() => void this.stop(), this.idleMs)
    this.idleTimer.unref()
  }

  /**
   * Stops the screencast. Idempotent: a stopped one, or one whose page closed, is left as is.
   *
   * @example
   * await cast.stop()
   */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return
    this.state = 'stopped'
    if (this.idleTimer) clearTimeout(this.idleTimer)
    for (const w of [...this.waiters]) w(undefined)
    await this.screencast?.stop()
  }

  private receive(painted: PageScreencastFrame): void {
    if (!this.running) return
    const frame: CastFrame = {
      data: Buffer.from(painted.data, 'base64'),
      at: painted.metadata.timestamp !== undefined ? painted.metadata.timestamp * 1000 : Date.now(),
      width: painted.metadata.deviceWidth,
      height: painted.metadata.deviceHeight,
    }
    this.latest = frame
    this.frames++
    this.onFrame(frame)
    for (const w of [...this.waiters]) w(frame)
  }
}
