/**
 * How a client connection refuses a command (docs/devtools-endpoint.md): -32000 with the reason
 * for a policy refusal, -32601 "wasn't found" as Chromium answers a method it does not know; each
 * logged once per connection and method (the errand's name, the method, the reason — never a
 * token, never a URL's query).
 */
import type { Command, Params, ProxyOptions } from './connection.ts'

const REFUSED = -32000
/** Chromium's code for a method it does not know. */
const NOT_FOUND = -32601

/**
 * Distinct refusals logged per connection; past it one line says the rest are not (a client
 * sending made-up names must not flood the log).
 */
const MAX_LOGGED_REFUSALS = 64

/**
 * One connection's refusals: the error answer for each, and the log lines they leave.
 *
 * @example
 * const refusals = new Refusals(options)
 * toClient(refusals.answer(command, 'no session with this id belongs to this errand'))
 */
export class Refusals {
  private readonly logged = new Set<string>()

  constructor(private readonly options: Pick<ProxyOptions, 'log' | 'name'>) {}

  /**
   * The answer refusing `command`: -32000 with `why`, or, without a `why`, -32601 as Chromium
   * answers a method it does not know. Logged once per connection and method (unless `logged` is false: a -32601
   * Chromium itself would answer, not a refusal).
   *
   * @example
   * refusals.answer(command, undefined) // { id, error: { code: -32601, message: "'X.y' wasn't found" } }
   */
  answer(command: Command, why: string | undefined, viewSession?: string, logged = true): Params {
    const message =
      why === undefined ? `'${command.method}' wasn't found` : `Refused by the errand's DevTools endpoint: ${why}.`
    if (logged) this.log(command.method, why ?? 'not a method of the DevTools protocol (-32601)')
    return {
      id: command.id,
      sessionId: command.sessionId ?? viewSession,
      error: { code: why === undefined ? NOT_FOUND : REFUSED, message },
    }
  }

  private log(method: string, why: string): void {
    if (this.logged.has(method) || this.logged.size > MAX_LOGGED_REFUSALS) return
    this.logged.add(method)
    // A method name is the client's text: kept short and printable in the log.
    const name = method.slice(0, 80).replace(/[^\x20-\x7e]/g, '?')
    if (this.logged.size > MAX_LOGGED_REFUSALS)
      return this.options.log(
        `devtools: ${this.options.name}: more than ${MAX_LOGGED_REFUSALS} kinds of refusal on one connection; the ` +
          `rest are not logged`,
      )
    this.options.log(`devtools: ${name} refused for ${this.options.name}: ${why}`)
  }
}
