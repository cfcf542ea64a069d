/**
 * MCP over stdio as a program (`errands mcp`, `npx errands mcp`): the host's engine in-process —
 * the same parts, data directory rules and containment policy as `errands host` (the host's
 * port, `ERRANDS_PORT`, stays unreachable from the errand, G2), but no HTTP listener — and one
 * MCP session on stdin/stdout over one errand, driven through the host's page verbs (A3).
 *
 * Stdout is the protocol: every log line goes to stderr. `--session <key>` binds the errand to a
 * key a backend already uses; without it the errand has a fresh random key. When the client
 * closes stdin, or on SIGTERM/SIGINT, the session ends: a bound errand is parked (and every
 * other open errand with it, E5), a random one forgotten; then every Chromium stops. A new
 * process with the same `--session` resumes the errand as it was.
 *
 * @example
 * process.exitCode = await runMcpStdio({ session: 'task-42' })
 */
import { serveStdio, endErrand, parseCaps, randomKey, RefBook } from '@errands/mcp'
import { HealthLog } from '@errands/sessions'
import { Cause, Context, Effect, Either, Exit, Layer, Logger } from 'effect'
import { Writable } from 'node:stream'
import { Browsing } from './browsing/Browsing.ts'
import { explainHostConfigError, hostSettingsFrom } from './config.ts'
import { hostEngineLayer, type HostEngineOptions } from './engine.ts'
import { errandBrowserOf } from './mcp.ts'
import { parseSessionKey, type SessionKey } from './sessionKey.ts'

/** How to run it. @example runMcpStdio({ session: 'task-42', env: process.env }) */
export interface McpStdioOptions {
  /** The key to bind the errand to (`--session`); `undefined`: a fresh random key. */
  readonly session?: string | undefined
  readonly env?: Record<string, string | undefined> | undefined
  readonly stdin?: NodeJS.ReadableStream | undefined
  readonly stdout?: NodeJS.WritableStream | undefined
  readonly stderr?: { write: (text: string) => unknown } | undefined
  /**
   * Optional MCP capabilities, comma-separated (`--caps vision,pdf`, as Playwright MCP's; default `ERRANDS_MCP_CAPS`);
   * an unknown one exits 2.
   */
  readonly caps?: string | undefined
  /** Extra options for our own Chromium (tests). */
  readonly chromium?: HostEngineOptions['chromium']
}

/** What stands for an anonymous session's key wherever a line would name it. */
const ANONYMOUS = 'mcp~(anonymous)'

/**
 * X2: the anonymous session's key is a credential of its errand (any face given it drives the
 * errand), and the engine names an errand by its conversation (`session:<key>`) in its log lines
 * (the egress, the guard, downloads). Every line and every answer of this process is written
 * through this: the key is replaced wherever it would appear.
 */
const hidden =
  (key: string) =>
  (text: string): string =>
    text.includes(key) ? text.replaceAll(key, ANONYMOUS) : text

/**
 * `stream` with every write passed through `hide` (the protocol's JSON-RPC messages: one write
 * each, so a key never straddles two writes; the stand-in holds nothing JSON escapes).
 */
const hiddenOn = (stream: NodeJS.WritableStream, hide: (text: string) => string): NodeJS.WritableStream =>
  new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      stream.write(hide(typeof chunk === 'string' ? chunk : chunk.toString('utf8')), done)
    },
  })

const signalled = (): { readonly promise: Promise<NodeJS.Signals>; readonly dispose: () => void } => {
  let on: (signal: NodeJS.Signals) => void = () => undefined
  const promise = new Promise<NodeJS.Signals>((resolve) => {
    on = (signal) => resolve(signal)
    process.once('SIGTERM', on)
    process.once('SIGINT', on)
  })
  return {
    promise,
    dispose: () => {
      process.off('SIGTERM', on)
      process.off('SIGINT', on)
    },
  }
}

/**
 * Serves one MCP session on stdio until the client leaves; resolves with the exit code (0 after
 * a clean end, 1 when the engine could not start, 2 for invalid configuration or key).
 *
 * @example
 * process.exitCode = await runMcpStdio({ session: process.env.SESSION })
 */
export const runMcpStdio = async (options: McpStdioOptions = {}): Promise<number> => {
  const stderr = options.stderr ?? process.stderr
  // X2: an anonymous session's key is never shown; set once the key is made (see `hidden`).
  let hide: (text: string) => string = (text) => text
  const log = (line: string) => void stderr.write(`${hide(line)}\n`)
  const decoded = Effect.runSync(Effect.either(hostSettingsFrom(options.env ?? process.env)))
  if (Either.isLeft(decoded)) {
    log(`errands mcp: invalid configuration, not started:\n${explainHostConfigError(decoded.left)}`)
    return 2
  }
  const settings = decoded.right
  let key: SessionKey
  if (options.session === undefined) key = randomKey() as SessionKey
  else {
    const parsed = parseSessionKey(options.session)
    if (Either.isLeft(parsed)) {
      log(`errands mcp: --session: ${parsed.left.message}`)
      return 2
    }
    key = parsed.right
  }
  // --caps wins; without it, the host's ERRANDS_MCP_CAPS (checked with the other settings).
  const caps = options.caps === undefined ? { caps: settings.mcpCaps } : parseCaps(options.caps)
  if ('error' in caps) {
    log(`errands mcp: --caps: ${caps.error}`)
    return 2
  }
  const anonymous = options.session === undefined
  if (anonymous) hide = hidden(key)
  const stop = signalled()
  // Effect's own logger writes to stdout, which is the protocol here.
  const logger = Logger.replace(
    Logger.defaultLogger,
    Logger.make((o) => log(Logger.stringLogger.log(o))),
  )
  const program = Effect.scoped(
    Effect.gen(function* () {
      const services = yield* Layer.build(
        hostEngineLayer({ settings, port: settings.port, log, notes: new HealthLog(50), chromium: options.chromium }),
      )
      const errand = errandBrowserOf(Context.get(services, Browsing), key)
      const runtime = yield* Effect.runtime<never>()
      log(
        `errands mcp: serving one MCP session on stdio (errand ` +
          `${anonymous ? 'with a random key' : 'bound to its --session key'}; data in ${settings.supervisor.dataDir})`,
      )
      yield* Effect.promise(() =>
        serveStdio({
          errand,
          refs: new RefBook(),
          caps: caps.caps,
          log,
          runtime,
          stdin: options.stdin as never,
          stdout: (anonymous ? hiddenOn(options.stdout ?? process.stdout, hide) : options.stdout) as never,
          stop: stop.promise,
        }),
      )
      log(
        `errands mcp: the session ended — ${anonymous ? 'forgetting its errand' : 'parking its errand'} and closing ` +
          `the browsers`,
      )
      yield* endErrand(errand, anonymous)
    }),
  ).pipe(Effect.provide(logger))
  const exit = await Effect.runPromiseExit(program)
  stop.dispose()
  if (Exit.isSuccess(exit)) return 0
  log(`errands mcp: could not run: ${Cause.pretty(exit.cause).split('\n')[0]}`)
  return 1
}
