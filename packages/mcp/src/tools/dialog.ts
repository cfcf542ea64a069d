/**
 * `browser_handle_dialog` (Playwright MCP's name and shape): accepts or dismisses the JavaScript
 * dialog (alert, confirm, prompt) the errand's page is waiting on (#22). The engine holds a
 * page's dialog for the agent while no DevTools client drives the errand, and dismisses one
 * nobody answers within the page deadline.
 *
 * @example
 * await client.callTool({ name: 'browser_handle_dialog', arguments: { accept: true } })
 */
import { Effect } from 'effect'
import { z } from 'zod'
import { ToolRefused } from '../errors.ts'
import { afterAction, tool } from './tool.ts'
import { onPlaywrightPage } from '../playwrightPage.ts'

/** `browser_handle_dialog`. @example browserHandleDialog.run(ctx, { accept: true }) */
export const browserHandleDialog = tool({
  name: 'browser_handle_dialog',
  title: 'Handle a dialog',
  description: 'Handle a dialog',
  inputSchema: {
    accept: z.boolean().describe('Whether to accept the dialog.'),
    promptText: z.string().max(100_000).optional().describe('The text of the prompt in case of a prompt dialog.'),
  },
  run: (ctx, { accept, promptText }) =>
    Effect.gen(function* () {
      const answer = ctx.errand.dialog
      if (answer === undefined) {
        return yield* new ToolRefused({
          reason: 'invalid-argument',
          message: 'This browser answers no dialogs here: no dialog is waiting.',
        })
      }
      const d = yield* answer({ accept, promptText })
      // Answered: the page's log no longer shows it under ### Modal state.
      yield* onPlaywrightPage(ctx.errand, 'dialog answered', async (page) => {
        const log = ctx.logs.watch(page)
        if (log.modal?.kind === 'dialog') log.modal = undefined
      })
      const typed = accept && promptText !== undefined ? ` with ${JSON.stringify(promptText.slice(0, 80))}` : ''
      const said = JSON.stringify(d.message.slice(0, 200))
      const done = `${accept ? 'Accepted' : 'Dismissed'} the ${d.type} dialog ${said}${typed}.`
      return yield* afterAction(ctx, done)
    }),
})

/** The dialog tools. @example dialogTools.map((t) => t.name) */
export const dialogTools = [browserHandleDialog] as const
