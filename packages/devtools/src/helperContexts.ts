/**
 * The helper errands one client opened with `Target.createBrowserContext` (`browser.newContext()`,
 * E1): each a browser context of its own, counted against the cap, released with the client.
 * See docs/devtools-endpoint.md.
 */
import type { AnsweringView, Command, HelperContext } from './connection.ts'

/**
 * Helper contexts (`browser.newContext()`) one client may hold at once; each is an errand, counted
 * against the cap too.
 */
const MAX_HELPERS = 4

/**
 * One client's helper contexts, by browser context id.
 *
 * @example
 * const helpers = new HelperContexts(options.openHelper, () => proxy.open)
 * helpers.open(from, command) // Target.createBrowserContext
 */
export class HelperContexts {
  private readonly helpers = new Map<string, HelperContext>()
  private opening = 0

  /**
   * @param openHelper opens a helper errand (none: a second context is refused)
   * @param connectionOpen whether the client is still connected (a helper opened after it left is released)
   */
  constructor(
    private readonly openHelper: (() => Promise<HelperContext>) | undefined,
    private readonly connectionOpen: () => boolean,
  ) {}

  /** Whether `browserContextId` is a helper's here. @example if (helpers.has(id)) … */
  has(browserContextId: unknown): browserContextId is string {
    return typeof browserContextId === 'string' && this.helpers.has(browserContextId)
  }

  /** Helper contexts' ids, as `Target.getBrowserContexts` lists them. @example helpers.ids() */
  ids(): Array<string> {
    return [...this.helpers.keys()]
  }

  /**
   * `Target.createBrowserContext`: a helper errand of this errand, or refused when there is none to open.
   *
   * @example
   * helpers.open(from, command)
   */
  open(from: AnsweringView, command: Command): void {
    const open = this.openHelper
    if (open === undefined)
      return from.refuse(command, `${command.method}: an errand's endpoint has one browser context, the default one`)
    if (this.helpers.size + this.opening >= MAX_HELPERS) {
      return from.refuse(
        command,
        `this connection holds ${MAX_HELPERS} helper contexts, the limit; dispose of one first`,
      )
    }
    this.opening++
    void open().then(
      (helper) => {
        this.opening--
        if (!this.connectionOpen()) return helper.close()
        this.helpers.set(helper.browserContextId, helper)
        from.reply(command, { browserContextId: helper.browserContextId })
      },
      (error: unknown) => {
        this.opening--
        from.refuse(
          command,
          `no helper errand could be opened for a new context ` +
            `(${error instanceof Error ? error.message : String(error)})`,
        )
      },
    )
  }

  /**
   * `Target.disposeBrowserContext` of a helper: released. False when the id is not a helper of this client.
   *
   * @example
   * if (helpers.close(c.params.browserContextId)) return p.reply(c, {})
   */
  close(browserContextId: unknown): boolean {
    if (!this.has(browserContextId)) return false
    const helper = this.helpers.get(browserContextId)!
    this.helpers.delete(browserContextId)
    helper.close()
    return true
  }

  /** Releases every helper: the client left. @example helpers.closeAll() */
  closeAll(): void {
    // The client's helper errands end with it (E1: closed when the client disconnects).
    for (const helper of this.helpers.values()) helper.close()
    this.helpers.clear()
  }
}
