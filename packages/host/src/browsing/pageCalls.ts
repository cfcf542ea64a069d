/**
 * The page calls behind the verbs, each with a deadline, and failures mapped onto the few kinds
 * a browser fails in (STYLE §6): timeout, target closed, crashed, unreachable, refused. Every
 * verb goes through the runtime's page verbs (`runtimeCall`); only MCP's work on the raw page
 * (`onPage`, a function of the caller's) runs under `pageCall` (#24).
 *
 * @example
 * const text = yield* runtimeCall('text', deadlineMs, runtime.pages.text(contextId, tabId, MAX_TEXT))
 */
import type { ContextNotFound, RuntimeError } from '@errands/runtime'
import { toRuntimeError } from '@errands/runtime-chromium'
import { Duration, Effect } from 'effect'
import { BlockedByPolicy, PageError } from '../errors.ts'

/** Longest text returned (characters); longer is cut and flagged `truncated`. @example text.slice(0, MAX_TEXT) */
export const MAX_TEXT = 1_000_000
/** Longest JSON an evaluation answers (characters); longer is cut and flagged `truncated`. */
export const MAX_EVALUATE = 1_000_000
/** Longest HTML returned (characters). @example html.slice(0, MAX_HTML) */
export const MAX_HTML = 5_000_000

/**
 * A runtime failure as the host's `PageError`. A context that vanished mid-call (released,
 * parked by shutdown, crashed) is `target-closed`.
 *
 * @example
 * effect.pipe(Effect.mapError(fromRuntime))
 */
export const fromRuntime = (e: RuntimeError | ContextNotFound): PageError =>
  e._tag === 'ContextNotFound'
    ? new PageError({
        reason: 'target-closed',
        message: "This session's browser closed while the call ran (released, set aside or crashed); call again.",
      })
    : new PageError({ reason: e.reason, message: e.message })

/**
 * Runs one of the runtime's page verbs (`runtime.pages`) with the host's deadline, failures as
 * `PageError`s: what `pageCall` does, but nothing here touches a browser library. `navigation`
 * says whether an unreachable site is the likely failure (502); otherwise a page that refused
 * the call (`unavailable`) is `invalid` (422), as with `pageCall`.
 *
 * @example
 * yield* runtimeCall('text', deadlineMs, runtime.pages.text(contextId, tabId, MAX_TEXT))
 */
export const runtimeCall = <A>(
  what: string,
  deadlineMs: number,
  run: Effect.Effect<A, RuntimeError | ContextNotFound>,
  navigation = false,
): Effect.Effect<A, PageError> =>
  drive(run, navigation).pipe(
    Effect.timeoutFail({
      duration: Duration.millis(deadlineMs),
      onTimeout: () =>
        new PageError({
          reason: 'timeout',
          message: `${what}: no answer within ${deadlineMs} ms; try again or give the page more time.`,
        }),
    }),
  )

/**
 * One whole-verb call of the runtime's page (`runtime.pages.go`, `perform` …), its failures as
 * `PageError`s, with no deadline of its own: the verb's is the one (`driving.ts`), and the runtime
 * waits on the page within the one it is given. `navigation` as for {@link runtimeCall}.
 *
 * @example
 * const page = yield* drive(runtime.pages.go(contextId, url, deadlineMs), true)
 */
export const drive = <A>(
  run: Effect.Effect<A, RuntimeError | ContextNotFound>,
  navigation = false,
): Effect.Effect<A, PageError> =>
  Effect.mapError(run, (e) =>
    e._tag === 'RuntimeError' && e.reason === 'unavailable' && !navigation
      ? new PageError({ reason: 'invalid', message: e.message })
      : fromRuntime(e),
  )

/**
 * A whole-verb call that navigates (go, a history step, a new tab), as {@link drive} with an
 * unreachable site as the likely failure; a navigation the runtime's containment refused (its one
 * URL rule, docs/adr/0049-runtime-owns-the-page.md) is `BlockedByPolicy` naming the rule, and so is
 * one the browser's own interception blocked on the way (a redirect).
 *
 * @example
 * const page = yield* navigation(runtime.pages.go(contextId, url, deadlineMs))
 */
export const navigation = <A>(
  run: Effect.Effect<A, RuntimeError | ContextNotFound>,
): Effect.Effect<A, PageError | BlockedByPolicy> =>
  Effect.mapError(run, (e) => {
    if (e._tag === 'RuntimeError' && e.rule !== undefined)
      return new BlockedByPolicy({ reason: 'blocked', rule: e.rule, message: e.message })
    const failure = fromRuntime(e)
    return /ERR_BLOCKED_BY_CLIENT|blocked by policy/.test(failure.message)
      ? new BlockedByPolicy({
          reason: 'blocked',
          rule: 'guard',
          message: `The containment policy refused this navigation (${failure.message}); use another address.`,
        })
      : failure
  })

/**
 * Runs one call of the caller's on a raw page (MCP's tools, through `onPage`) with a deadline,
 * its failures mapped as the runtime maps a browser's. `navigation` says whether an unreachable
 * site is the likely failure (502) rather than a refused action (422).
 *
 * @example
 * yield* pageCall('snapshot', 10_000, () => run(raw, tab))
 */
export const pageCall = <A>(
  what: string,
  deadlineMs: number,
  run: () => Promise<A>,
  navigation = false,
): Effect.Effect<A, PageError> =>
  Effect.tryPromise({
    try: run,
    catch: (e) => {
      const failure = toRuntimeError(what, e)
      const reason = failure.reason === 'unavailable' && !navigation ? 'invalid' : failure.reason
      return new PageError({ reason, message: failure.message })
    },
  }).pipe(
    Effect.timeoutFail({
      duration: Duration.millis(deadlineMs),
      onTimeout: () =>
        new PageError({
          reason: 'timeout',
          message: `${what}: no answer within ${deadlineMs} ms; try again or give the page more time.`,
        }),
    }),
  )
