/**
 * The book of a runtime's open Playwright contexts: keeping an entry per context, finding the
 * open one under the runtime's deadline, forgetting it, and telling listeners what happens.
 * `ContextPages` (contextPages.ts) and `ContextRuntime` (contexts.ts) build the per-context
 * `RuntimeShape` operations on it.
 */
import type { GuardPolicy } from '@errands/guard'
import { ContextNotFound, type ContextId, type FilesCaps, type RuntimeError, type RuntimeEvent } from '@errands/runtime'
import { Effect } from 'effect'
import type { BrowserContext, Page } from 'playwright-core'
import { DevToolsClients } from './clients.ts'
import { keptLabel, type ContextEntry, type ContextSettings, type Kept } from './contextEntry.ts'
import { Dialogs, type PendingDialog } from './dialogs.ts'
import { PageLogs } from './pageLog.ts'
import { ErrandFiles } from './errandFiles.ts'
import { call, toRuntimeError } from './failures.ts'
import { PageWork } from './pageWork.ts'
import type { ContextSide } from './pageVerbs.ts'
import { TabBook } from './tabs.ts'

/**
 * The open contexts of one runtime, their listeners, DevTools clients, dialogs and files folders.
 *
 * @example
 * export abstract class ContextRuntime<E extends ContextEntry> extends ContextBook<E> { … }
 */
export abstract class ContextBook<E extends ContextEntry> {
  protected readonly deadlineMs: number
  protected readonly policy: GuardPolicy
  protected readonly log: (line: string) => void
  /** How log lines name one of these contexts. */
  protected readonly noun: string
  /** The caps of each errand's files folder (downloads are held to them too). */
  protected readonly filesCaps: FilesCaps | undefined
  private readonly entries = new Map<ContextId, E>()
  private readonly listeners = new Set<(event: RuntimeEvent) => void>()

  /** DevTools clients attached per context (the proxy counts itself in; dialogs ask it). */
  readonly devtoolsClients = new DevToolsClients()

  /** Each errand's own files folder (A1, #27), removed with its context (set aside when it crashes). */
  protected readonly errandFiles: ErrandFiles

  /** Every tab's console messages and requests since it opened (issue #25). */
  protected readonly pageLogs = new PageLogs()

  /** Every page's JavaScript dialogs: the attached client's, or held for the verbs (#22). */
  readonly dialogs: Dialogs

  protected constructor(settings: ContextSettings) {
    this.dialogs = new Dialogs({ deadlineMs: settings.deadlineMs, clients: this.devtoolsClients, log: settings.log })
    this.deadlineMs = settings.deadlineMs
    this.policy = settings.policy
    this.log = settings.log
    this.noun = settings.noun
    this.filesCaps = settings.files
    this.errandFiles = new ErrandFiles(settings.owner)
  }

  /**
   * Makes `page` a tab of `entry` and follows it (see `ContextPages.register`); `track` makes
   * the pages a context opens itself tabs through it.
   */
  protected abstract register(entry: E, page: Page, activate: boolean, id?: string): string

  /** For an id with no entry: how to bring the context back, or undefined (ContextNotFound). */
  protected revive(_contextId: ContextId): Effect.Effect<E, RuntimeError> | undefined {
    return undefined
  }

  /** The Playwright page behind a tab (tests and adapters only). @example runtime.pageOf(id, 't1')?.evaluate(...) */
  pageOf(contextId: ContextId, tabId: string): Page | undefined {
    return this.entries.get(contextId)?.tabs.get(tabId)
  }

  /** The oldest dialog waiting for the verbs in a context (#22). @example runtime.pendingDialog(id)?.message */
  pendingDialog(contextId: ContextId): PendingDialog | undefined {
    return this.dialogs.pending(contextId)
  }

  /** Answers that dialog; undefined when none waits. @example await runtime.answerDialog(id, { accept: true }) */
  answerDialog(
    contextId: ContextId,
    how: { readonly accept: boolean; readonly promptText?: string | undefined },
  ): Promise<PendingDialog | undefined> {
    return this.dialogs.answer(contextId, how)
  }

  /**
   * What the page verbs ask of a context rather than a page: its active tab, its held dialogs, the
   * pages' logs, and its files folder through `filesDir` (the runtime's, which knows who has one).
   */
  protected contextSide(filesDir: ContextSide['filesDir']): ContextSide {
    return {
      activeTab: (contextId) => this.withEntry(contextId, 'active tab', async (entry) => entry.tabs.active()),
      logs: this.pageLogs,
      filesDir,
      pendingDialog: (contextId) => this.pendingDialog(contextId),
      answerDialog: (contextId, how) => this.answerDialog(contextId, how),
    }
  }

  /** The Playwright context behind an id (tests and adapters only). @example runtime.browserContextOf('main') */
  browserContextOf(contextId: ContextId): BrowserContext | undefined {
    return this.entries.get(contextId)?.context
  }

  // ---- the entries ----

  /**
   * Starts keeping a context (its label sorted) and makes the pages it opens itself (popups,
   * `target=_blank`) tabs, active like in a browser — unless the runtime is making quiet pages.
   *
   * @example
   * const entry = this.track({ id, context, label })
   */
  protected track(fields: Omit<E, Kept>): E {
    const entry = {
      ...fields,
      label: keptLabel(fields.label),
      tabs: new TabBook<Page>(),
      quietPages: 0,
      pageWork: new PageWork(),
      state: 'open',
    } as E
    this.entries.set(entry.id, entry)
    entry.context.on('page', (page) => {
      if (entry.quietPages === 0 && entry.tabs.idOf(page) === undefined) this.register(entry, page, true)
    })
    return entry
  }

  /** The entry of an id, open or closing. @example this.entryOf('main') */
  protected entryOf(contextId: ContextId): E | undefined {
    return this.entries.get(contextId)
  }

  /** The entries kept now, open or closing. @example for (const entry of this.kept()) … */
  protected kept(): ReadonlyArray<E> {
    return [...this.entries.values()]
  }

  /** Whether `entry` is still the one kept under its id. @example if (!this.holds(entry)) return */
  protected holds(entry: E): boolean {
    return this.entries.get(entry.id) === entry
  }

  /**
   * Stops keeping the entries `which` accepts (they are marked closing); returns them. Their
   * browser contexts are the caller's to close. With `crashed`, their files folders are set aside
   * for their errands' heals (see {@link forget}).
   *
   * @example
   * const lost = this.forgetWhere((e) => e.generation === generation, 'crashed')
   */
  protected forgetWhere(which: (entry: E) => boolean, crashed?: 'crashed'): Array<E> {
    const gone = [...this.entries.values()].filter(which)
    for (const entry of gone) this.forget(entry, crashed)
    return gone
  }

  /**
   * Stops keeping one entry (marked closing). Its files folder goes with it (#27; a parking
   * errand's were packed and sealed first, F3) — unless it `crashed`: then the folder is set aside
   * until the errand's heal claims it or the supervisor drops it (K3).
   *
   * @example
   * this.forget(entry)
   */
  protected forget(entry: E, crashed?: 'crashed'): void {
    entry.state = 'closing'
    if (this.holds(entry)) this.entries.delete(entry.id)
    if (crashed === undefined) this.errandFiles.drop(entry.id)
    else this.errandFiles.setAside(entry.id)
  }

  /**
   * Runs `run` on the open entry of `contextId` with the runtime's deadline; ContextNotFound for an
   * unknown or closing one (unless `revive` brings it back).
   *
   * @example
   * this.withEntry(id, 'add cookies', (entry) => entry.context.addCookies(cookies))
   */
  protected withEntry<A>(
    contextId: ContextId,
    what: string,
    run: (entry: E, signal: AbortSignal) => Promise<A>,
    deadlineMs = this.deadlineMs,
  ): Effect.Effect<A, RuntimeError | ContextNotFound> {
    return Effect.suspend((): Effect.Effect<A, RuntimeError | ContextNotFound> => {
      const entry = this.entries.get(contextId)
      const revived = entry ? undefined : this.revive(contextId)
      if (revived) return revived.pipe(Effect.flatMap((e) => call(what, deadlineMs, (signal) => run(e, signal))))
      if (entry?.state !== 'open') {
        return Effect.fail(
          new ContextNotFound({ reason: 'unknown-context', contextId, message: `no open context ${contextId}` }),
        )
      }
      return call(what, deadlineMs, (signal) => run(entry, signal))
    })
  }

  // ---- events ----

  /** @example const stop = yield* runtime.subscribe(console.log) */
  readonly subscribe = (listener: (event: RuntimeEvent) => void): Effect.Effect<() => void> =>
    Effect.sync(() => {
      this.listeners.add(listener)
      return () => {
        this.listeners.delete(listener)
      }
    })

  /**
   * Tells every listener; a listener's failure is logged and stays its own.
   *
   * @example
   * this.emit({ _tag: 'BrowserCrashed', contextIds: lost })
   */
  protected emit(event: RuntimeEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event)
      } catch (error) {
        this.log(`runtime event listener failed: ${toRuntimeError('listener', error).message}`)
      }
    }
  }

  /** Drops every listener (at shutdown). @example this.clearListeners() */
  protected clearListeners(): void {
    this.errandFiles.close()
    this.listeners.clear()
  }
}
