/**
 * The `frame` verb: the active page as a picture — the latest screencast frame of the page's
 * current size, or a screenshot when none is painted — with the session's frame sequence.
 */
import { Clock, Effect } from 'effect'
import type { BrowsingError, Frame, Target } from './Browsing.ts'
import type { makeDriving } from './driving.ts'
import { drive, fromRuntime, runtimeCall } from './pageCalls.ts'
import { Screencast } from './screencast.ts'
import type { VerbCore } from './verbCore.ts'

/**
 * The `frame` verb over the driving helpers; the runtime picks the tab and keeps two first frames to one cast.
 *
 * @example
 * const frame = makeFrame(core, driving)
 * const { data, source } = yield* frame(sessionTarget(key))
 */
export const makeFrame = (core: VerbCore, driving: ReturnType<typeof makeDriving>) => {
  const { options, runtime, deadline } = core
  const { verb } = driving
  const verbs = runtime.pages

  const frame = (target: Target): Effect.Effect<Frame, BrowsingError> =>
    verb('frame', target, (scope) =>
      Effect.gen(function* () {
        const { session } = scope
        const tabId = yield* drive(verbs.active(scope.contextId))
        const tab = { contextId: scope.contextId, tabId }
        const cast = yield* verbs.castAlone(
          scope.contextId,
          Effect.gen(function* () {
            const current = session.screencast
            if (current?.running && current.shows(tab)) return current
            if (current) yield* Effect.promise(() => current.stop())
            const started = yield* Effect.mapError(
              Screencast.start(tab, (o) => runtime.screencast(tab.contextId, tab.tabId, o), {
                idleMs: options.screencastIdleMs ?? 30_000,
                onFrame: (f) => {
                  session.frameSeq++
                  session.lastFrameAt = f.at
                },
              }),
              fromRuntime,
            )
            session.screencast = started
            return started
          }),
        )
        // A frame painted before a viewport change is stale: the screencast only sends a new one
        // when the page repaints, which a still page may never do. Wait a moment for a fresh
        // frame of the current size; otherwise a screenshot (always the current size) stands in.
        const size = yield* runtimeCall('viewport', deadline, verbs.viewport(scope.contextId, tabId))
        const fits = (f: { width: number; height: number }) =>
          size === undefined || (f.width === size.width && f.height === size.height)
        let painted = cast?.latest
        if (cast && (painted === undefined || !fits(painted))) {
          const next = yield* Effect.promise(() => cast.next(options.firstFrameMs ?? 1_500))
          painted = next !== undefined && fits(next) ? next : undefined
        }
        if (painted)
          return {
            data: painted.data,
            mime: 'image/jpeg',
            seq: session.frameSeq,
            at: painted.at,
            source: 'screencast',
          } satisfies Frame
        // Nothing painted yet (a page that never changes may send no frame): a screenshot stands in.
        const shot = yield* runtimeCall(
          'screenshot',
          deadline,
          verbs.screenshot(scope.contextId, tabId, { fullPage: false, type: 'jpeg', quality: 70 }),
        )
        const at = yield* Clock.currentTimeMillis
        return { data: shot, mime: 'image/jpeg', seq: session.frameSeq, at, source: 'screenshot' } satisfies Frame
      }),
    )

  return frame
}
