/**
 * Access to the Playwright pages behind a runtime's tabs — what the host's page verbs need
 * beyond the `Runtime` interface. `ChromiumRuntime` has it (`pageOf`, `browserContextOf`), and
 * so does the host's remote runtime (`remote/`).
 *
 * @example
 * const pages = yield* Pages
 * const page = pages.pageOf(contextId, 't1')
 */
import type { ContextId } from '@errands/runtime'
import { Context } from 'effect'
import type { BrowserContext, Page } from 'playwright-core'
import type { RuntimeDialog } from './dialog.ts'

/** Pages and contexts by the runtime's ids. */
export interface PageAccess {
  readonly pageOf: (contextId: ContextId, tabId: string) => Page | undefined
  readonly browserContextOf: (contextId: ContextId) => BrowserContext | undefined
  /** The oldest JavaScript dialog the runtime holds for the verbs (#22); absent: none are held. */
  readonly pendingDialog?: ((contextId: ContextId) => RuntimeDialog | undefined) | undefined
  /** Answers that dialog; undefined when none waits. */
  readonly answerDialog?:
    | ((contextId: ContextId, how: { readonly accept: boolean; readonly promptText?: string | undefined }) => Promise<RuntimeDialog | undefined>)
    | undefined
}

/**
 * The page-access service (`@errands/host/Pages`).
 *
 * @example
 * Layer.effect(Pages, Chromium) // ChromiumRuntime is a PageAccess
 */
export class Pages extends Context.Tag('@errands/host/Pages')<Pages, PageAccess>() {}
