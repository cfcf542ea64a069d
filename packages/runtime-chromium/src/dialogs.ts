/**
 * JavaScript dialogs belong to whoever drives the errand (A1, A4; issue #22).
 *
 * Playwright dismisses a page's dialog at once when nobody on its connection listens for
 * `dialog` — and the engine's connection is the one every DevTools client rides (ADR 0016), so
 * a client's own `dialog.accept()` used to fail with "No dialog is showing" and `confirm()`
 * returned false. The engine therefore always listens, on every page of every context (main
 * too), and decides:
 *
 * - a DevTools client is attached to the context ({@link DevToolsClients}): the engine leaves
 *   the dialog alone entirely — the client answers it. Should the client leave without
 *   answering, the engine dismisses it at the next deadline with no client attached.
 * - no client: the dialog waits in {@link Dialogs.pending} — the HTTP verbs and MCP show it in
 *   the page's state and answer it (`POST /v1/dialog`, `browser_handle_dialog`). One nobody
 *   answers within the page deadline is dismissed, logged, and counted
 *   ({@link Dialogs.dismissedUnanswered}).
 *
 * An entry leaves the book before it is answered, so no dialog is ever answered twice.
 *
 * @example
 * const dialogs = new Dialogs({ deadlineMs: 30_000, clients, log: console.error })
 * dialogs.watch('ctx-1', () => 't1', page)
 * dialogs.pending('ctx-1') // { type: 'confirm', message: 'Sure?', defaultPrompt: '', tabId: 't1', since: … }
 * await dialogs.answer('ctx-1', { accept: true })
 */
import type { ContextId, PageDialog } from '@errands/runtime'
import type { Dialog, Page } from 'playwright-core'
import type { DevToolsClients } from './clients.ts'

/** A dialog waiting for an answer, as the verbs show it. */
export interface PendingDialog extends PageDialog {
  /** When it opened (ms since the epoch). */
  readonly since: number
}

/** How the book behaves. */
export interface DialogSettings {
  /** An unanswered dialog is dismissed after this long (the page deadline). */
  readonly deadlineMs: number
  readonly clients: DevToolsClients
  readonly log: (line: string) => void
}

interface Held {
  readonly view: PendingDialog
  readonly dialog: Dialog
  readonly page: Page
  timer: ReturnType<typeof setTimeout> | undefined
}

/**
 * Every context's unanswered dialogs (see the module comment).
 *
 * @example
 * new Dialogs({ deadlineMs: 30_000, clients: new DevToolsClients(), log: () => {} })
 */
export class Dialogs {
  private readonly held = new Map<ContextId, Array<Held>>()
  private dismissed = 0

  constructor(private readonly settings: DialogSettings) {}

  /** Dialogs dismissed because nobody answered them within the deadline, since start. */
  get dismissedUnanswered(): number {
    return this.dismissed
  }

  /**
   * Listens for `page`'s dialogs (once per page; `tabIdOf` names its tab when one opens).
   *
   * @example
   * dialogs.watch(entry.id, () => entry.tabs.idOf(page), page)
   */
  watch(contextId: ContextId, tabIdOf: () => string | undefined, page: Page): void {
    page.on('dialog', (dialog) => this.arrived(contextId, tabIdOf() ?? '', page, dialog))
    page.on('close', () => this.drop(contextId, (h) => h.page === page))
  }

  /**
   * The oldest unanswered dialog of a context the engine holds (none while a client drives).
   *
   * @example
   * dialogs.pending('ctx-1')?.message
   */
  pending(contextId: ContextId): PendingDialog | undefined {
    return this.live(contextId)[0]?.view
  }

  /**
   * Whether a dialog is showing on `page` that the engine holds (the page's scripts are
   * blocked: reading its title would wait for the answer).
   *
   * @example
   * if (dialogs.blocks(page)) return ''
   */
  blocks(page: Page): boolean {
    for (const list of this.held.values()) if (list.some((h) => h.page === page)) return true
    return false
  }

  /**
   * Answers the context's oldest held dialog: accept (with `promptText` for a prompt) or
   * dismiss. Undefined when none is waiting.
   *
   * @example
   * await dialogs.answer('ctx-1', { accept: true, promptText: 'Ada' })
   */
  async answer(
    contextId: ContextId,
    how: { readonly accept: boolean; readonly promptText?: string | undefined },
  ): Promise<PendingDialog | undefined> {
    const next = this.live(contextId)[0]
    if (next === undefined) return undefined
    // Out of the book first: a second answer finds nothing, never the same dialog.
    this.remove(contextId, next)
    try {
      if (how.accept) await next.dialog.accept(how.promptText)
      else await next.dialog.dismiss()
    } catch {
      // The page closed or navigated away meanwhile: the dialog is gone either way.
    }
    return next.view
  }

  /** Forgets a context's dialogs (it closed). @example dialogs.forget('ctx-1') */
  forget(contextId: ContextId): void {
    this.drop(contextId, () => true)
  }

  private arrived(contextId: ContextId, tabId: string, page: Page, dialog: Dialog): void {
    const view: PendingDialog = {
      type: dialog.type() as PendingDialog['type'],
      message: dialog.message(),
      defaultPrompt: dialog.defaultValue(),
      tabId,
      since: Date.now(),
    }
    if (this.settings.clients.has(contextId)) {
      // The client's to answer. Should it leave without answering, the page would wait forever:
      // at a deadline with no client left the engine dismisses it (a dialog the client answered
      // meanwhile is gone, and Chromium refuses the dismissal: nothing is answered twice).
      const check = setTimeout(() => {
        if (page.isClosed()) return
        if (this.settings.clients.has(contextId)) return void check.refresh()
        dialog.dismiss().then(
          () => this.dismissedOne(contextId, view),
          () => undefined,
        )
      }, this.settings.deadlineMs)
      check.unref()
      return
    }
    this.hold(contextId, { view, dialog, page, timer: undefined })
  }

  private hold(contextId: ContextId, held: Held): void {
    const list = this.held.get(contextId) ?? []
    list.push(held)
    this.held.set(contextId, list)
    held.timer = setTimeout(() => {
      if (!this.remove(contextId, held)) return
      held.dialog.dismiss().then(
        () => this.dismissedOne(contextId, held.view),
        () => undefined,
      )
    }, this.settings.deadlineMs)
    held.timer.unref()
  }

  private dismissedOne(contextId: ContextId, view: PendingDialog): void {
    this.dismissed++
    this.settings.log(
      `context ${contextId}: a ${view.type} dialog nobody answered within ${this.settings.deadlineMs} ms was ` +
        `dismissed (answer dialogs with POST /v1/dialog or browser_handle_dialog)`,
    )
  }

  private live(contextId: ContextId): ReadonlyArray<Held> {
    this.drop(contextId, (h) => h.page.isClosed())
    return this.held.get(contextId) ?? []
  }

  private remove(contextId: ContextId, held: Held): boolean {
    const list = this.held.get(contextId)
    const at = list?.indexOf(held) ?? -1
    if (list === undefined || at < 0) return false
    list.splice(at, 1)
    if (list.length === 0) this.held.delete(contextId)
    clearTimeout(held.timer)
    return true
  }

  private drop(contextId: ContextId, which: (h: Held) => boolean): void {
    for (const h of [...(this.held.get(contextId) ?? [])]) if (which(h)) this.remove(contextId, h)
  }
}
