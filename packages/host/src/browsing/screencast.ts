/**
 * The live view's frames (V1, B3 `GET /v1/frame`): CDP `Page.startScreencast` on a session's
 * active page, keeping only the latest frame. Each frame is acked with its own `sessionId`
 * number (STACK-NOTES), or Chromium stops sending. A screencast stops by itself after
 * `idleMs` without a reader, so an unwatched session costs no encoding.
 *
 * @example
 * const cast = await Screencast.start(context, page, { idleMs: 30_000 })
 * const frame = cast.latest ?? (await cast.next(1_500))
 * await cast.stop()
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core'

/** One frame as Chromium painted it. */
export interface CastFrame {
  readonly data: Buffer
  /** Paint time, ms since the epoch. */
  readonly at: number
  readonly width: number
  readonly height: number
}

interface ScreencastFrameEvent {
  readonly data: string
  readonly sessionId: number
  readonly metadata: { readonly timestamp?: number; readonly deviceWidth: number; readonly deviceHeight: number }
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

  private constructor(
    readonly page: Page,
    private readonly cdp: CDPSession,
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
    const cdp = await context.newCDPSession(page)
    const cast = new Screencast(page, cdp, options.idleMs, options.onFrame ?? (() => undefined))
    cdp.on('Page.screencastFrame', (event: ScreencastFrameEvent) => cast.receive(event))
    page.once('close', () => void cast.stop())
    await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 70, maxWidth: 1920, maxHeight: 1920, everyNthFrame: 1 })
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
    await this.cdp.send('Page.stopScreencast').catch(() => undefined)
    await this.cdp.detach().catch(() => undefined)
  }

  private receive(event: ScreencastFrameEvent): void {
    // Ack first, with the frame's own session id, so Chromium keeps sending.
    this.cdp.send('Page.screencastFrameAck', { sessionId: event.sessionId }).catch(() => undefined)
    if (!this.running) return
    const frame: CastFrame = {
      data: Buffer.from(event.data, 'base64'),
      at: event.metadata.timestamp !== undefined ? event.metadata.timestamp * 1000 : Date.now(),
      width: event.metadata.deviceWidth,
      height: event.metadata.deviceHeight,
    }
    this.latest = frame
    this.frames++
    this.onFrame(frame)
    for (const w of [...this.waiters]) w(frame)
  }
}
