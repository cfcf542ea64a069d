/**
 * What a runtime over Playwright contexts keeps about each open context, what it is told at
 * construction, and the label as it keeps it.
 */
import type { GuardPolicy } from '@errands/guard'
import type { ContextId, FilesCaps, SessionLabel } from '@errands/runtime'
import type { BrowserContext, Page } from 'playwright-core'
import type { PageWork } from './pageWork.ts'
import type { TabBook } from './tabs.ts'

/**
 * What a runtime keeps about each open context; a runtime may add fields of its own.
 *
 * @example
 * interface Entry extends ContextEntry { readonly generation: number }
 */
export interface ContextEntry {
  readonly id: ContextId
  readonly context: BrowserContext
  label: SessionLabel
  readonly tabs: TabBook<Page>
  /** While > 0, new pages are the runtime's own (restore, helpers) and registered by it. */
  quietPages: number
  /** Page creation and storage reads of this context, one at a time (see `PageWork`). */
  readonly pageWork: PageWork
  state: 'open' | 'closing'
}

/** The fields {@link ContextRuntime.track} fills in itself. */
export type Kept = 'tabs' | 'quietPages' | 'pageWork' | 'state'

/**
 * What every runtime over Playwright contexts is told at construction.
 *
 * @example
 * super({ deadlineMs: 30_000, policy, log: console.error, noun: 'remote context' })
 */
export interface ContextSettings {
  /** The deadline of every browser call. */
  readonly deadlineMs: number
  readonly policy: GuardPolicy
  readonly log: (line: string) => void
  /** How log lines name one of these contexts: `context`, `remote context`. */
  readonly noun: string
  /** The caps of each errand's files folder, downloads included (issue #25); none: uncapped. */
  readonly files?: FilesCaps | undefined
  /** The engine's data dir, marked on the errands' files root so a later start sweeps it (ADR 0013). */
  readonly owner?: string | undefined
}

/**
 * A label as the runtime keeps it: lent sites sorted (labels are compared and shown as is).
 *
 * @example
 * keptLabel({ reason: 'task', lentSites: ['b.example', 'a.example'] }).lentSites // ['a.example', 'b.example']
 */
export const keptLabel = (label: SessionLabel): SessionLabel => ({
  reason: label.reason,
  lentSites: [...label.lentSites].sort(),
})
