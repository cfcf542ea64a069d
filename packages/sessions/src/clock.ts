import { Effect, Fiber, Runtime } from 'effect'
import type { ActorOptions, AnyActorLogic } from 'xstate'

/** XState's clock interface (not exported by name from `xstate`). */
export type XStateClock = NonNullable<ActorOptions<AnyActorLogic>['clock']>

/**
 * An XState clock whose timers are Effect fibers sleeping on Effect's `Clock`. The errand
 * machines' delays therefore run on the supervisor's clock: real time in production,
 * `TestClock` in tests and replay (T1); the Daily Browser's lease deadlines use it too.
 *
 * @example
 * const clock = yield* makeEffectClock
 * createActor(machine, { clock })
 */
export const makeEffectClock: Effect.Effect<XStateClock> = Effect.map(Effect.runtime<never>(), (runtime) => {
  const runFork = Runtime.runFork(runtime)
  return {
    setTimeout: (fn: () => void, timeout: number) =>
      runFork(Effect.sleep(timeout).pipe(Effect.andThen(Effect.sync(fn)))),
    clearTimeout: (fiber: Fiber.RuntimeFiber<void>) => void runFork(Fiber.interrupt(fiber)),
  }
})
