/**
 * The frames of B3 `GET /v1/frame`, kept by the runtime that owns the page
 * (docs/adr/0049-runtime-owns-the-page.md): its `screencast` of a context's driven tab, keeping only the
 * latest frame. Every frame is acknowledged as it comes (`ack: 'auto'`), or the browser stops
 * sending. A cast stops by itself after `idleMs` without a reader, so an unwatched page costs no
 * encoding. `pageOwner.ts`'s `frame` holds one per context.
 *
 * @example
 * const cast = yield* LatestCast.start({ contextId, tabId }, (o) => runtime.screencast(contextId, tabId, o), {
 * idleMs: 30_000 })
 * const frame = cast.latest ?? (yield* Effect.promise(() => cast.next(1_500)))
 * yield* Effect.promise(() => cast.stop())
 */
import { Effect } from 'effect'
import type { Screencast as TabScreencast, ScreencastFrame, ScreencastOptions } from './screencast.ts'
import type { ContextId } from './types.ts'

/** One frame as Chromium painted it. */
export interface CastFrame {
  readonly data: Uint8Array
  /** Paint time, ms since the epoch. */
  readonly at: number
  readonly width: number
  readonly height: number
}

/** Which tab a screencast shows. */
export interface CastTab {
  readonly contextId: ContextId
  readonly tabId: string
}

/**
 * A running screencast of one tab, keeping its latest frame.
 *
 * @example
 * cast.shows({ contextId, tabId }) // whether it is that tab's
 */
export class LatestCast {
  latest: CastFrame | undefined
  frames = 0
  private state: 'running' | 'stopped' = 'running'
  private waiters = new Set<(frame: CastFrame | undefined) => void>()
  private idleTimer: NodeJS.Timeout | undefined
  /** Set by `start`, which makes this first: a frame may come before the screencast's start answers. */
  private screencast: TabScreencast | undefined

  private constructor(
    readonly tab: CastTab,
    private readonly idleMs: number,
    private readonly onFrame: (frame: CastFrame) => void,
  ) {}

  /**
   * Starts a screencast of `tab` through `open` (the runtime's `screencast`); `onFrame` is told
   * about every frame (the owner counts them).
   *
   * @example
   * const cast = yield* LatestCast.start(tab, (o) => runtime.screencast(tab.contextId, tab.tabId, o), { idleMs:
   * 30_000, onFrame: () => seq++ })
   */
  static start<E>(
    tab: CastTab,
    open: (options: ScreencastOptions) => Effect.Effect<TabScreencast, E>,
    options: { readonly idleMs: number; readonly onFrame?: ((frame: CastFrame) => void) | undefined },
  ): Effect.Effect<LatestCast, E> {
    return Effect.suspend(() => {
      const cast = new LatestCast(tab, options.idleMs, options.onFrame ?? (() => undefined))
      const started = open({
        quality: 70,
        maxWidth: 1920,
        maxHeight: 1920,
        ack: 'auto',
        onFrame: (frame) => cast.receive(frame),
        // The tab closed (or its context went): waiters learn it now, not at their timeout.
        onStop: () => void cast.stop(),
      })
      return Effect.map(started, (screencast) => {
        cast.screencast = screencast
        cast.touch()
        return cast
      })
    })
  }

  /** Whether it shows `tab`. @example cast.shows({ contextId, tabId: 't1' }) */
  shows(tab: CastTab): boolean {
    return this.tab.contextId === tab.contextId && this.tab.tabId === tab.tabId
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

  private receive(painted: ScreencastFrame): void {
    if (!this.running) return
    const frame: CastFrame = {
      data: Buffer.from(painted.data, 'base64'),
      at: painted.at ?? Date.now(),
      width: painted.width,
      height: painted.height,
    }
    this.latest = frame
    this.frames++
    this.onFrame(frame)
    for (const w of [...this.waiters]) w(frame)
  }
}
