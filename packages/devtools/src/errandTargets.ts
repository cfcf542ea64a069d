/**
 * How the DevTools endpoint reaches a conversation's errand in the browser: through the one
 * session service (`Sessions`, ADR 0027), which opens, resumes or heals it and drives it while a
 * client holds it (A3), and through the runtime's DevTools target of its context. A client's
 * `browser.newContext()` gets a helper errand of its own the same way (E1).
 */
import type { DevToolsTarget, RuntimeShape } from '@errands/runtime'
import type { SessionsShape, SupervisorError } from '@errands/sessions'
import { Cause, Effect, Exit, Runtime as EffectRuntime } from 'effect'
import type { HelperContext } from './connection.ts'
import { DevToolsUnavailable } from './errors.ts'

/**
 * A conversation's errand as a DevTools target, and its helper errands.
 *
 * @example
 * const { target, openHelper } = makeErrandTargets({ sessions, runtime, effects, log: console.error })
 */
export interface ErrandTargets {
  /** The errand's browser endpoint, while driving it; fails (and stops driving) when it has none. */
  readonly target: (conversationId: string) => Effect.Effect<DevToolsTarget, DevToolsUnavailable | SupervisorError>
  /** A helper errand of `conversationId` for a client's `browser.newContext()`. */
  readonly openHelper: (conversationId: string) => Promise<HelperContext>
}

/**
 * Builds the errand targets over the session service and runtime.
 *
 * @example
 * const targets = makeErrandTargets({ sessions, runtime, effects: yield* Effect.runtime<never>(), log })
 */
export const makeErrandTargets = (deps: {
  readonly sessions: SessionsShape
  readonly runtime: RuntimeShape
  /** Runs the helper's opening and release from the client's callbacks. */
  readonly effects: EffectRuntime.Runtime<never>
  readonly log: (line: string) => void
}): ErrandTargets => {
  const { sessions, runtime, log } = deps
  const run = EffectRuntime.runPromiseExit(deps.effects)

  const target = (conversationId: string): Effect.Effect<DevToolsTarget, DevToolsUnavailable | SupervisorError> =>
    Effect.gen(function* () {
      const binding = yield* sessions.drive(conversationId)
      if (!binding.isolated) {
        return yield* new DevToolsUnavailable({
          reason: 'not-an-errand',
          message:
            "This conversation browses in the person's main context; a DevTools endpoint is only given for an " +
            'errand (a task, or a chat with a browser of its own).',
        })
      }
      const devtools = runtime.devtools
      if (devtools === undefined) {
        return yield* new DevToolsUnavailable({
          reason: 'unsupported',
          message: `The ${runtime.kind} runtime has no real browser behind it, so it has no DevTools endpoint.`,
        })
      }
      return yield* Effect.mapError(
        devtools(binding.contextId),
        (e) =>
          new DevToolsUnavailable({
            reason: 'browser-unreachable',
            message: `The errand's browser cannot be reached for DevTools now (${e.message}); try again.`,
          }),
      )
    }).pipe(Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : sessions.undrive(conversationId))))

  /**
   * A helper errand of `conversationId` for a client's `browser.newContext()` (#22, E1): a task
   * of its own (`<id>/devtools-<n>`), counted against the cap like every errand, driven while
   * the client holds it (never parked under it) and released when the client disposes of the
   * context or disconnects.
   */
  let helperSeq = 0
  const openHelper = async (conversationId: string): Promise<HelperContext> => {
    const id = `${conversationId}/devtools-${++helperSeq}`
    const opened = await run(
      Effect.gen(function* () {
        yield* sessions.open({ id, kind: 'task', helper: true, parent: conversationId })
        return yield* target(id)
      }),
    )
    if (Exit.isFailure(opened)) {
      await run(sessions.release(id))
      const error = Cause.squash(opened.cause)
      throw new Error(error instanceof Error ? error.message : 'the helper errand could not be opened')
    }
    // The engine leaves the helper's dialogs to the client, as the errand's.
    const detach = opened.value.attach()
    log(`devtools: a client of ${conversationId} opened helper ${id}`)
    let closed = false
    return {
      browserContextId: opened.value.browserContextId,
      close: () => {
        if (closed) return
        closed = true
        detach()
        void run(Effect.andThen(sessions.undrive(id), sessions.release(id)))
        log(`devtools: helper ${id} released`)
      },
    }
  }

  return { target, openHelper }
}
