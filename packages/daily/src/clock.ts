import { Effect, Fiber, Runtime } from 'effect'
import type { ActorOptions, AnyActorLogic } from 'xstate'

/**
 * XState's clock interface (not exported by name from `xstate`).
 *
 * @example
 * const clock: XStateClock = new SimulatedClock()
 */
export type XStateClock = NonNullable<ActorOptions<AnyActorLogic>['clock']>

/**
 * An XState clock whose timers are Effect fibers sleeping on Effect's `Clock`: the lease
 * machine's deadlines (`pairingExpiry`, `leaseLimit`, `pollTimeout`) run on real time in
 * production and on `TestClock` in tests. (The supervisor has the same ten lines; a shared
 * home for them would be a package both depend on — not worth one yet.)
 *
 * @example
 * const clock = yield* makeEffectClock
 * createActor(leaseMachine, { clock, input })
 */
export const makeEffectClock: Effect.Effect<XStateClock> = Effect.map(Effect.runtime<never>(), (runtime) => {
  const runFork = Runtime.runFork(runtime)
  return {
    setTimeout: (fn: () => void, timeout: number) => runFork(Effect.sleep(timeout).pipe(Effect.andThen(Effect.sync(fn)))),
    clearTimeout: (fiber: Fiber.RuntimeFiber<void>) => void runFork(Fiber.interrupt(fiber)),
  }
})
