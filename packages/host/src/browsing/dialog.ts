/**
 * A page's JavaScript dialog as the verbs see it (A4, issue #22): the runtime holds a dialog
 * nobody connected over DevTools will answer (runtime-chromium's dialogs.ts); `GET /v1/state`
 * shows it, `POST /v1/dialog` answers it, and an action that made one open returns at once with
 * it instead of waiting for the deadline.
 *
 * @example
 * const view = dialogView(session, pending) // { type: 'confirm', message: 'Sure?', defaultPrompt: '', tab: 's1-t1' }
 */
import { Schema } from 'effect'
import type { Page } from 'playwright-core'

import type { DialogView } from '../answers.ts'

export type { DialogView }

/** What the runtime reports (runtime-chromium's `PendingDialog`). */
export interface RuntimeDialog {
  readonly type: DialogView['type']
  readonly message: string
  readonly defaultPrompt: string
  readonly tabId: string
}

/**
 * The API's view of a runtime's dialog; `publicTab` turns its tab id into the session's.
 *
 * @example
 * dialogView(pending, (id) => publicTabId(session, id))
 */
export const dialogView = (d: RuntimeDialog, publicTab: (tabId: string) => string): DialogView => ({
  type: d.type, message: d.message, defaultPrompt: d.defaultPrompt, tab: publicTab(d.tabId),
})

/**
 * `POST /v1/dialog` with no dialog waiting (409): it was answered already, dismissed at the
 * deadline, or a DevTools client attached to the errand owns it.
 *
 * @example
 * new NoDialog({ reason: 'no-dialog', message: '…' }).status // 409
 */
export class NoDialog extends Schema.TaggedError<NoDialog>()('NoDialog', {
  reason: Schema.Literal('no-dialog'),
  message: Schema.String,
}) {
  readonly status = 409
}

/** The words of {@link NoDialog}. */
export const NO_DIALOG_MESSAGE =
  'No dialog is waiting in this session: it was answered already, dismissed after the page deadline, or a DevTools client attached to this errand answers its dialogs. Read GET /v1/state (its dialog field) before answering.'

/**
 * `work`, or undefined as soon as `page` opens a dialog first (an action that opened one would
 * otherwise wait for its answer until the deadline). A failure of `work` after that is nobody's.
 *
 * @example
 * const done = await orDialog(page, page.click('#delete')) // undefined: a confirm() is waiting
 */
export const orDialog = <A>(page: Page, work: Promise<A>): Promise<A | undefined> => {
  let off = (): void => undefined
  const opened = new Promise<undefined>((resolve) => {
    const on = () => resolve(undefined)
    page.once('dialog', on)
    off = () => void page.off('dialog', on)
  })
  work.catch(() => undefined)
  return Promise.race([work, opened]).finally(off)
}
