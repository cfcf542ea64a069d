/**
 * How a verb reaches its target: the errand opened, resumed or healed and driven for the call
 * (never parked while it runs, B5) — or the person's main context directly — under the verb's one
 * deadline.
 */
import type { UpstreamProxy } from '@errands/runtime'
import { type Binding, wheelRefusal } from '@errands/sessions'
import { Duration, Effect } from 'effect'
import { PageError } from '../errors.ts'
import { conversationIdOf } from '../sessionKey.ts'
import type { BrowsingError, Target } from './Browsing.ts'
import { drive } from './pageCalls.ts'
import type { HostSession } from './sessions.ts'
import type { VerbCore, VerbScope } from './verbCore.ts'

/**
 * `verb` (a call on a target). The URL a verb names is the runtime's to judge (its one rule,
 * docs/adr/0049-runtime-owns-the-page.md).
 *
 * @example
 * const { allowed, verb } = makeDriving(core)
 * yield* verb('tabs', target, (scope) => runtime.tabs(scope.contextId))
 */
export const makeDriving = (core: VerbCore) => {
  const { sessions, runtime, book, deadline } = core

  /**
   * Opens (first call), resumes (parked) or heals (crashed) the errand, and starts driving it.
   * Through the one session service's `resolve`: a call that names an upstream proxy opens
   * with it (issue #21), which changes nothing for an errand already open.
   */
  const bringUp = (
    session: HostSession,
    conversationId: string,
    upstreamProxy: UpstreamProxy | undefined,
  ): Effect.Effect<Binding, BrowsingError> =>
    session.driveLock.withPermits(1)(
      sessions.resolve(
        upstreamProxy !== undefined
          ? { id: conversationId, kind: 'task', upstreamProxy }
          : { id: conversationId, kind: 'task' },
      ),
    )

  /** Runs `f` on the target while driving it (sessions) or directly (the person's main context). */
  const withTarget = <A, E>(
    target: Target,
    f: (scope: VerbScope) => Effect.Effect<A, E>,
  ): Effect.Effect<A, E | BrowsingError> => {
    if (target._tag === 'main') return f({ session: book.main, contextId: runtime.mainContext })
    const session = book.get(target.key)
    const conversationId = conversationIdOf(target.key)
    return Effect.acquireUseRelease(
      bringUp(session, conversationId, target.upstreamProxy),
      (binding) => {
        const scope = { session, contextId: binding.contextId }
        if (session.contextId === binding.contextId) return f(scope)
        // Parked and resumed, or healed: a new context, fitted to the viewport the session asked for.
        session.contextId = binding.contextId
        const { viewport } = session
        return viewport === undefined
          ? f(scope)
          : Effect.zipRight(drive(runtime.pages.fit(binding.contextId, viewport)), f(scope))
      },
      () => sessions.undrive(conversationId),
    )
  }

  /**
   * A verb: the target, a safety-net deadline over bringing it up plus the call. While a person
   * has the wheel (P1), a verb that acts on a session's page is refused with `PersonDriving`
   * (409) before anything is opened; reads still answer. `checkWheel: false` is for MCP's page
   * hatch, whose server refuses acting tools itself.
   */
  const verb = <A, E>(what: string, target: Target, f: (scope: VerbScope) => Effect.Effect<A, E>, checkWheel = true) =>
    Effect.suspend(
      () =>
        (checkWheel && target._tag !== 'main'
          ? wheelRefusal(sessions.personDriving, conversationIdOf(target.key), 'v1', what)
          : undefined) ?? withTarget(target, f),
    ).pipe(
      Effect.timeoutFail({
        duration: Duration.millis(deadline * 3),
        onTimeout: () =>
          new PageError({ reason: 'timeout', message: `${what}: no answer within ${deadline * 3} ms; try again.` }),
      }),
    )

  return { verb }
}
