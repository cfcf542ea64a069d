/**
 * The host as a program (`npm start`): decode the configuration (an invalid value stops it
 * before anything listens, exit 2), start, print one line with the URL, run until SIGTERM or
 * SIGINT, then shut down cleanly — every open session parked (E5), every Chromium gone — and
 * return 0. A second signal during shutdown stops at once (exit 130).
 *
 * @example
 * process.exitCode = await runHost()
 */
import { Cause, Effect, Either, Exit } from 'effect'
import { describeSettings, explainHostConfigError, hostSettingsFrom } from './config.ts'
import { join } from 'node:path'
import { startHost, type NodeRoute, type StartOptions } from './serve.ts'
import type { HostCluster } from './engine.ts'
import { TOKEN_FILE } from './token.ts'

/** Where the program writes. */
export interface HostIo {
  readonly stdout: { write: (text: string) => unknown }
  readonly stderr: { write: (text: string) => unknown }
}

/** Extra wiring for the program (the CLI passes what it has). */
export interface RunHostOptions {
  readonly env?: Record<string, string | undefined> | undefined
  readonly io?: HostIo | undefined
  /** The Daily Browser door under `/daily` (default: `@errands/daily`'s; `false`: none). */
  readonly daily?: NodeRoute | false | undefined
  /** Several hosts as one (issue #16): the CLI builds it with `@errands/cluster` when `ERRANDS_DATABASE_URL` is set. */
  readonly cluster?: HostCluster | undefined
  /** Extra options for our own Chromium (the soak's host child: `--host-resolver-rules` for named fixture sites). */
  readonly chromium?: StartOptions['chromium']
}

const waitForSignal = (io: HostIo) =>
  Effect.async<NodeJS.Signals>((resume) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', on)
      process.off('SIGINT', on)
      // A second signal while we park and close means "now".
      const force = (again: NodeJS.Signals) => {
        io.stderr.write(`errands host: ${again} again — stopping without finishing shutdown\n`)
        process.exit(130)
      }
      process.once('SIGTERM', force)
      process.once('SIGINT', force)
      resume(Effect.succeed(signal))
    }
    process.on('SIGTERM', on)
    process.on('SIGINT', on)
    return Effect.sync(() => {
      process.off('SIGTERM', on)
      process.off('SIGINT', on)
    })
  })

/**
 * Runs the host until a signal; resolves with the exit code (0 after a clean shutdown, 2 for
 * invalid configuration, 1 when it could not start).
 *
 * @example
 * process.exitCode = await runHost({ env: process.env })
 */
export const runHost = async (options: RunHostOptions = {}): Promise<number> => {
  const io = options.io ?? { stdout: process.stdout, stderr: process.stderr }
  const decoded = Effect.runSync(Effect.either(hostSettingsFrom(options.env ?? process.env)))
  if (Either.isLeft(decoded)) {
    io.stderr.write(`errands host: invalid configuration, not started:\n${explainHostConfigError(decoded.left)}\n`)
    return 2
  }
  const settings = decoded.right
  const log = (line: string) => void io.stderr.write(`${line}\n`)
  const program = Effect.scoped(
    Effect.gen(function* () {
      const host = yield* startHost({
        settings,
        log,
        daily: options.daily,
        chromium: options.chromium,
        cluster: options.cluster,
      })
      log(`errands host: ${describeSettings({ ...settings, port: host.port })}`)
      io.stdout.write(
        `errands host listening on ${host.url}\n` +
          `live view: open ${host.url}/ and sign in with the token in ` +
          `${join(settings.supervisor.dataDir, TOKEN_FILE)}\n`,
      )
      const signal = yield* waitForSignal(io)
      log(`errands host: ${signal} — parking open sessions and closing the browsers`)
    }),
  )
  const exit = await Effect.runPromiseExit(program)
  if (Exit.isSuccess(exit)) {
    log('errands host: stopped')
    return 0
  }
  const failure = Cause.failureOption(exit.cause)
  const message =
    failure._tag === 'Some' && typeof failure.value === 'object' && failure.value !== null && 'message' in failure.value
      ? String((failure.value as { message: unknown }).message)
      : Cause.pretty(exit.cause).split('\n')[0]
  io.stderr.write(`errands host: could not start: ${message}\n`)
  return 1
}
