/**
 * A page's JavaScript dialog as the verbs see it (A4, issue #22): the runtime holds a dialog
 * nobody connected over DevTools will answer (runtime-chromium's dialogs.ts); `GET /v1/state`
 * shows it, `POST /v1/dialog` answers it, and an action that made one open returns at once with
 * it instead of waiting for the deadline.
 *
 * @example
 * const view = dialogView(session, pending) // { type: 'confirm', message: 'Sure?', defaultPrompt: '', tab: 's1-t1' }
 */
import type { PageDialog } from '@errands/runtime'
import { Schema } from 'effect'

import type { DialogView } from '../answers.ts'

export type { DialogView }

/** What the runtime reports (its page verbs' `dialog`). */
export type RuntimeDialog = PageDialog

/**
 * The API's view of a runtime's dialog; `publicTab` turns its tab id into the session's.
 *
 * @example
 * dialogView(pending, (id) => publicTabId(session, id))
 */
export const dialogView = (d: RuntimeDialog, publicTab: (tabId: string) => string): DialogView => ({
  type: d.type,
  message: d.message,
  defaultPrompt: d.defaultPrompt,
  tab: publicTab(d.tabId),
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
  'No dialog is waiting in this session: it was answered already, dismissed after the page deadline, or a DevTools ' +
  'client attached to this errand answers its dialogs. Read GET /v1/state (its dialog field) before answering.'
