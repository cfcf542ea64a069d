/**
 * The `Errands` domain of a client's connection (docs/devtools-endpoint.md): `Errands.requestHelp`
 * (a person is asked for help, P3) and `Errands.getFilesFolder`, answered on a browser session —
 * the root one or a client's. The domain's events (`Errands.wheelTaken`, `Errands.handedBack`) are
 * the wheel's (wheel.ts).
 */
import type { Command, Params, ProxyOptions } from './connection.ts'
import { helpParams } from './wheel.ts'

/**
 * What the domain needs of the client connection it is part of (`ErrandProxy` is one).
 *
 * @example
 * new ErrandsDomain({ options, toClient, refused, touched: () => (lastActivity = Date.now()) })
 */
export interface DomainConnection {
  readonly options: ProxyOptions
  toClient(message: Params): void
  /** Refuses `command` (-32000 with `why`; -32601 without). */
  refused(command: Command, why: string | undefined): void
  /** The client got an answer it waited for: its idle time starts again. */
  touched(): void
}

/**
 * One client's `Errands.*` commands, and its requests for help still waiting for a hand-back.
 *
 * @example
 * if (command.method.startsWith('Errands.')) return domain.handle(command, onBrowser)
 */
export class ErrandsDomain {
  /** `Errands.requestHelp` calls waiting for a hand-back, aborted when the client leaves. */
  private readonly helpAsked = new Set<AbortController>()

  constructor(private readonly connection: DomainConnection) {}

  /** Whether the client waits in `Errands.requestHelp`. @example if (domain.asking) … */
  get asking(): boolean {
    return this.helpAsked.size > 0
  }

  /**
   * `Errands.*` on a browser session (`onBrowser`, the root one or a client's): -32601 elsewhere
   * and for a name not of the domain.
   *
   * @example
   * domain.handle(command, command.sessionId === undefined)
   */
  handle(command: Command, onBrowser: boolean): void {
    if (onBrowser && command.method === 'Errands.requestHelp') return this.requestHelp(command)
    if (onBrowser && command.method === 'Errands.getFilesFolder') {
      const path = this.connection.options.filesDir
      if (path === undefined)
        return this.connection.refused(
          command,
          "this errand has no files folder on the engine's machine (a remote browser's)",
        )
      return this.connection.toClient({ id: command.id, sessionId: command.sessionId, result: { path } })
    }
    this.connection.refused(command, undefined)
  }

  /** The client left: its requests for help leave the live view. @example domain.drop() */
  drop(): void {
    for (const asked of this.helpAsked) asked.abort()
    this.helpAsked.clear()
  }

  private requestHelp(command: Command): void {
    const ask = this.connection.options.requestHelp
    if (ask === undefined)
      return this.connection.refused(command, 'no person can be asked for help through this endpoint')
    const params = helpParams(command.params)
    if (typeof params === 'string') {
      return this.connection.toClient({
        id: command.id,
        sessionId: command.sessionId,
        error: { code: -32602, message: `Errands.requestHelp: ${params}.` },
      })
    }
    const asked = new AbortController()
    this.helpAsked.add(asked)
    void ask(params.reason, params.timeoutMs, asked.signal)
      .then(
        (result) => this.connection.toClient({ id: command.id, sessionId: command.sessionId, result }),
        (error: unknown) =>
          this.connection.refused(
            command,
            `the request for help failed (${error instanceof Error ? error.message : String(error)})`,
          ),
      )
      .finally(() => {
        this.helpAsked.delete(asked)
        this.connection.touched()
      })
  }
}
