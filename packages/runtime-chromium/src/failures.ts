/**
 * Turning driver failures into the runtime's few kinds (STYLE §6) and putting a deadline on
 * every browser call (STYLE §8).
 *
 * @example
 * const tabs = call('newPage', 30_000, () => context.newPage())
 */
import { describeTarget } from '@errands/guard'
import { RuntimeError } from '@errands/runtime'
import { Duration, Effect } from 'effect'

/**
 * Replaces every URL in a message by its scheme/host/port (L7: no query, path or user info in
 * an error a model or a log will read) and keeps the first line.
 *
 * @example
 * redactUrls('net::ERR_FAILED at https://a.example/x?token=1') // "net::ERR_FAILED at https://a.example:443"
 */
export const redactUrls = (message: string): string =>
  (message.split('\n')[0] ?? '').replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, (url) => describeTarget(url))

/**
 * Maps any error thrown by Playwright or Chromium onto a `RuntimeError`.
 *
 * @example
 * toRuntimeError('goto', new Error('Target page, context or browser has been closed')).reason // "target-closed"
 */
export const toRuntimeError = (what: string, error: unknown): RuntimeError => {
  if (error instanceof RuntimeError) return error
  const raw = error instanceof Error ? error.message : String(error)
  const name = error instanceof Error ? error.name : ''
  const message = `${what}: ${redactUrls(raw.replace(/^[a-zA-Z.]+: /, ''))}`
  const reason: RuntimeError['reason'] =
    name === 'TimeoutError' || /Timeout \d+ms exceeded/.test(raw)
      ? 'timeout'
      : /crash/i.test(raw)
        ? 'crashed'
        : /has been closed|Target closed|Target page|Browser closed|browser has disconnected|Connection closed/i.test(
              raw,
            )
          ? 'target-closed'
          : /ERR_BLOCKED_BY_CLIENT/.test(raw)
            ? 'invalid'
            : 'unavailable'
  return new RuntimeError({ reason, message })
}

/**
 * Runs one browser call with a deadline; failures become `RuntimeError`s. `run` gets a signal that
 * aborts when the deadline passes (or the caller is interrupted), so work made of many steps (typing)
 * stops instead of going on behind the next call.
 *
 * @example
 * yield* call('close context', deadlineMs, () => context.close())
 */
export const call = <A>(
  what: string,
  deadlineMs: number,
  run: (signal: AbortSignal) => Promise<A>,
): Effect.Effect<A, RuntimeError> =>
  Effect.tryPromise({ try: (signal) => run(signal), catch: (e) => toRuntimeError(what, e) }).pipe(
    Effect.timeoutFail({
      duration: Duration.millis(deadlineMs),
      onTimeout: () => new RuntimeError({ reason: 'timeout', message: `${what}: no answer within ${deadlineMs} ms` }),
    }),
  )

/**
 * Awaits a promise but gives up after `ms` (resolving `undefined`): for best-effort cleanup
 * that must never hang a shutdown.
 *
 * @example
 * await within(5_000, browser.close())
 */
export const within = async <A>(ms: number, promise: Promise<A>): Promise<A | undefined> => {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      promise.catch(() => undefined),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms)
      }),
    ])
  } finally {
    if (timer) clearTimeout(timer)
  }
}

/**
 * Closes a context (or anything closable) within `ms` and says in the log when it did not: a
 * close that hangs leaves the context beside the cap until its browser goes, and the line is how
 * a soak's over-the-cap count is traced back to it.
 *
 * @example
 * await closeWithin(5_000, context, log, `context ${id} after its open failed`)
 */
export const closeWithin = async (
  ms: number,
  closable: { close(): Promise<unknown> },
  log: (line: string) => void,
  what: string,
): Promise<void> => {
  let closed = false
  await within(
    ms,
    closable.close().then(() => {
      closed = true
    }),
  )
  if (!closed) log(`${what} did not close within ${ms} ms; it stays open until its browser goes`)
}

/**
 * Awaits a promise but fails after `ms` with an error naming `what` (where {@link within} would
 * resolve `undefined`): for a step whose absence must be reported, such as one origin's read.
 *
 * @example
 * await bounded(10_000, 'localStorage of https://a.example', read())
 */
export const bounded = <A>(ms: number, what: string, promise: Promise<A>): Promise<A> => {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)
    }),
  ]).finally(() => clearTimeout(timer))
}
