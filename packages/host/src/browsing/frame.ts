/**
 * The `frame` verb: the active page as a picture, in one runtime call (`pages.frame`): the runtime
 * keeps the context's cast and answers the latest frame of the page's current size, or a
 * screenshot when none is painted (docs/adr/0049-runtime-owns-the-page.md).
 */
import { Effect } from 'effect'
import type { BrowsingError, Frame, Target } from './Browsing.ts'
import type { makeDriving } from './driving.ts'
import { drive } from './pageCalls.ts'
import type { VerbCore } from './verbCore.ts'

/**
 * The `frame` verb over the driving helpers.
 *
 * @example
 * const frame = makeFrame(core, driving)
 * const { data, source } = yield* frame(sessionTarget(key))
 */
export const makeFrame = (core: VerbCore, driving: ReturnType<typeof makeDriving>) => {
  const { options, runtime } = core
  const settings = { idleMs: options.screencastIdleMs ?? 30_000, firstFrameMs: options.firstFrameMs ?? 1_500 }

  const frame = (target: Target): Effect.Effect<Frame, BrowsingError> =>
    driving.verb('frame', target, (scope) =>
      Effect.map(
        drive(runtime.pages.frame(scope.contextId, settings)),
        (f): Frame => ({ data: f.data, mime: 'image/jpeg', seq: f.seq, at: f.at, source: f.source }),
      ),
    )

  return frame
}
