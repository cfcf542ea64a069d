import { Effect, Either, Exit, Scope } from 'effect'
import { makeDailyBrowser, DailyBrowser, type DailyBrowserShape } from './DailyBrowser.ts'
import { makeDailyDoor, type DailyDoorHandler, type DailyDoorOptions } from './door.ts'
import type { DailyBrowserOptionsInput } from './options.ts'

/**
 * A running Daily Browser for hosts that do not use Effect themselves.
 *
 * @example
 * const daily = await startDailyBrowser({ door: { adminToken } })
 * server.on('request', async (req, res) => { if (!(await daily.door(req, res))) next(req, res) })
 * await daily.dispose() // host disposal: every lease revoked
 */
export interface DailyBrowserHandle {
  readonly daily: DailyBrowserShape
  readonly door: DailyDoorHandler
  /** Runs one of the service's effects as a Promise (rejecting with its typed error). */
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  /** Revokes every lease and stops the service's timers. Idempotent. */
  readonly dispose: () => Promise<void>
}

/**
 * Starts the service and its door.
 *
 * @example
 * const { daily, door, run, dispose } = await startDailyBrowser({ pollTimeoutMs: 45_000, door: { prefix: '/daily',
 * adminToken } })
 * const { code } = await run(daily.createPairing('bot-1'))
 */
export const startDailyBrowser = async (
  options: DailyBrowserOptionsInput & { readonly door?: DailyDoorOptions } = {},
): Promise<DailyBrowserHandle> => {
  const { door: doorOptions, ...serviceOptions } = options
  const scope = Effect.runSync(Scope.make())
  const daily = await Effect.runPromise(Scope.extend(makeDailyBrowser(serviceOptions), scope)).catch(
    async (e: unknown) => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      throw e
    },
  )
  const door = await Effect.runPromise(makeDailyDoor(doorOptions).pipe(Effect.provideService(DailyBrowser, daily)))
  let closing: Promise<void> | undefined
  return {
    daily,
    door,
    run: <A, E>(effect: Effect.Effect<A, E>) =>
      Effect.runPromise(Effect.either(effect)).then((r): A | Promise<A> =>
        Either.isLeft(r) ? Promise.reject(r.left as unknown) : r.right,
      ),
    // The second call returns the first call's promise: closing twice is closing once.
    dispose: () => (closing ??= Effect.runPromise(Scope.close(scope, Exit.void))),
  }
}
