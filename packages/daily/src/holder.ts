/**
 * A Daily Browser lease as one agent session holds it (X3, D4). Naming the bot id is not
 * authority: the lease belongs to the session that presents its lease secret (from
 * `createPairing`, handed over by the person). {@link heldLease} narrows the service to what that
 * session may see — its own lease's status and changes, and `browser_observe` on it — and to
 * nothing for every other bot id or once the bot's lease is a newer one (another secret).
 *
 * @example
 * const daily = heldLease(service, secretFromTheInitializeHeader)
 * makeErrandServer({ errand, refs, log, daily }) // offers browser_observe only while the lease is held
 */
import { Effect } from 'effect'
import type { DailyBrowserShape } from './DailyBrowser.ts'
import { ObservationFailed } from './errors.ts'
import type { LeaseView } from './leases.ts'

/** The header an MCP client sends on `initialize` to hold a lease. @example headers[LEASE_HEADER] */
export const LEASE_HEADER = 'x-daily-lease'

/**
 * The service as seen by the holder of `botSecret`: `status`, `observe` and `onChange` answer
 * only for the lease the secret was issued for, and only while it is the bot's current lease.
 * Every other method is the person's or the extension's and stays as it is.
 *
 * @example
 * heldLease(daily, secret).status('bot-1') // the lease, or undefined for anyone without the secret
 */
export const heldLease = (daily: DailyBrowserShape, botSecret: string): DailyBrowserShape => {
  // The lease this secret holds, when it is the bot's current one (a newer pairing replaced it otherwise).
  const held = (botId: string): Effect.Effect<LeaseView | undefined> =>
    Effect.gen(function* () {
      const mine = yield* daily.leaseOf(botSecret)
      if (mine === undefined || mine.botId !== botId) return undefined
      const current = yield* daily.status(botId)
      return current?.leaseId === mine.leaseId ? current : undefined
    })
  const leaseId = Effect.runSync(Effect.map(daily.leaseOf(botSecret), (v) => v?.leaseId))
  return {
    ...daily,
    status: held,
    observe: (botId) =>
      Effect.flatMap(held(botId), (view) =>
        view === undefined ? Effect.fail(ObservationFailed.of('no-lease', null)) : daily.observe(botId),
      ),
    onChange: (listener) =>
      daily.onChange((view) => {
        if (leaseId !== undefined && view.leaseId === leaseId) listener(view)
      }),
  }
}
