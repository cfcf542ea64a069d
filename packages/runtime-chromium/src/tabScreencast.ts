/**
 * The runtime's `screencast` over Chromium (issue #24, "runtimes own pages"): a `PageScreencast`
 * (`screencast.ts`) of one tab, written once for every runtime of Playwright contexts (ours and
 * the host's remote DevTools browser). It numbers frames for the caller and maps each `seq` back
 * to the CDP `sessionId` its ack must carry, so deferred acks keep Chromium's flow control: the
 * browser sends no more than a few frames ahead of the caller's last ack.
 *
 * A start the caller gave up on (its deadline passed, its fiber was interrupted) does not leave a
 * screencast running nobody holds: the cast stops as soon as its start answers.
 *
 * @example
 * readonly screencast = (contextId, tabId, options) =>
 *   tabScreencast(options, (cast) => this.withEntry(contextId, 'start screencast', (entry) =>
 * cast.start(entry.context, page)))
 */
import type { Screencast, ScreencastOptions } from '@errands/runtime'
import { Effect, Exit } from 'effect'
import type { BrowserContext, Page } from 'playwright-core'
import { PageScreencast, type PageScreencastFrame } from './screencast.ts'

/** JPEG quality when the caller names none. */
const DEFAULT_QUALITY = 60

/**
 * A screencast of one tab as the runtime contract has it.
 *
 * @example
 * const cast = new TabScreencast({ ack: 'deferred', onFrame: send })
 * await cast.start(context, page)
 * cast.ack(2) // frames 1 and 2 were drawn
 */
export class TabScreencast implements Screencast {
  private cast: PageScreencast | undefined
  private state: 'starting' | 'running' | 'stopped' = 'starting'
  private stopped: Promise<void> | undefined
  private seq = 0
  /** Each unacknowledged frame's CDP `sessionId`, by `seq` (deferred acks only). */
  private readonly unacked = new Map<number, number>()

  constructor(private readonly options: ScreencastOptions) {}

  /**
   * Starts the CDP screencast of `page`; frames may reach `onFrame` before this answers.
   *
   * @example
   * await cast.start(context, page)
   */
  async start(context: BrowserContext, page: Page): Promise<void> {
    const { options } = this
    const cast = await PageScreencast.start(context, page, {
      format: 'jpeg',
      quality: options.quality ?? DEFAULT_QUALITY,
      maxWidth: options.maxWidth,
      maxHeight: options.maxHeight,
      everyNthFrame: 1,
      ack: options.ack === 'auto' ? 'immediate' : 'deferred',
      onFrame: (frame) => this.receive(frame),
      onStop: options.onStop,
    })
    this.cast = cast
    // Stopped while it started (or given up on): it ends now, having sent nothing on.
    if (this.state === 'stopped') await cast.stop()
    else this.state = 'running'
  }

  /** @example cast.running */
  get running(): boolean {
    return this.state === 'running' && this.cast !== undefined && this.cast.running
  }

  /** @example cast.ack(frame.seq) */
  readonly ack = (seq: number): void => {
    if (this.state !== 'running' || this.cast === undefined) return
    for (const [s, sessionId] of this.unacked) {
      if (s > seq) continue
      this.unacked.delete(s)
      this.cast.ack(sessionId)
    }
  }

  /** @example await cast.stop() */
  readonly stop = (): Promise<void> => {
    if (this.stopped === undefined) {
      this.state = 'stopped'
      this.unacked.clear()
      // Before its start answered there is nothing to stop yet: `start` stops it when it does.
      this.stopped = this.cast?.stop() ?? Promise.resolve()
    }
    return this.stopped
  }

  private receive(frame: PageScreencastFrame): void {
    if (this.state === 'stopped') return
    const seq = ++this.seq
    if (this.options.ack === 'deferred') this.unacked.set(seq, frame.sessionId)
    const { deviceWidth: width, deviceHeight: height, timestamp } = frame.metadata
    this.options.onFrame({
      seq,
      data: frame.data,
      width,
      height,
      at: timestamp === undefined ? undefined : timestamp * 1000,
    })
  }
}

/**
 * The capability as an effect: `start` runs the cast's start on the tab (with the runtime's
 * deadline); when it fails or is given up on, the cast is stopped, now or when its start answers.
 *
 * @example
 * yield* tabScreencast(options, (cast) => call('start screencast', 30_000, () => cast.start(context, page)))
 */
export const tabScreencast = <E>(
  options: ScreencastOptions,
  start: (cast: TabScreencast) => Effect.Effect<unknown, E>,
): Effect.Effect<Screencast, E> =>
  Effect.suspend(() => {
    const cast = new TabScreencast(options)
    return start(cast).pipe(
      Effect.as<Screencast>(cast),
      Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => void cast.stop()))),
    )
  })
