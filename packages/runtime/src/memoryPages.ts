/**
 * The memory runtime's page verbs (`pages.ts`), faked deterministically: a tab's URL is what
 * `visit` or `navigate` gave it and its title that URL, its text and HTML are what a test sets,
 * and what is done to it (clicks, fills, input, history steps) is recorded for the test to read.
 * A click or fill on a selector the test did not declare times out, as a missing element does in
 * a browser; a verb on a closed tab is `target-closed`. An expression evaluates to the value the
 * test declared for it (any other throws, as an undefined name does in a page); the console and
 * network logs are what the test puts there; an upload names files the test put in the
 * context's fake files folder (`putFile`).
 *
 * @example
 * memory.pages.set(id, 't1', { text: 'Basket: 1 apple', selectors: ['#buy'] })
 * yield* memory.pages.act(id, 't1', { type: 'click', selector: '#buy', timeoutMs: 1_000 })
 * memory.pages.record(id, 't1').actions // [{ type: 'click', selector: '#buy', ... }]
 */
import { Effect } from 'effect'
import { RuntimeError } from './errors.ts'
import type { DriveVerbs } from './driveVerbs.ts'
import { type OwnerParts, PageOwner } from './pageOwner.ts'
import {
  isPlainFileName,
  type PageAction,
  type PageConsoleMessage,
  type PageDialog,
  type PageDialogAnswer,
  type PageHistoryStep,
  type PageInput,
  type PageOutcome,
  type PageRequest,
  type PageShotOptions,
  type PageSize,
  type PageText,
  type PageVerbs,
  type PageWhere,
  type RawPage,
} from './pages.ts'
import type { ContextError } from './Runtime.ts'
import type { ContextId } from './types.ts'

/** What a fake page holds and what was done to it. */
export interface MemoryPageRecord {
  text: string
  html: string
  /** Selectors a click or fill finds; any other times out. */
  selectors: ReadonlyArray<string>
  scrollX: number
  scrollY: number
  viewport: PageSize | undefined
  /** What an expression evaluates to, by its text; any other throws. */
  evaluations: Readonly<Record<string, unknown>>
  console: ReadonlyArray<PageConsoleMessage>
  requests: ReadonlyArray<PageRequest>
  readonly actions: Array<PageAction>
  readonly inputs: Array<PageInput>
  readonly steps: Array<PageHistoryStep>
}

/** The memory runtime's hooks into its tabs: where one is, or a failure when it is gone. */
export type MemoryTabLookup = (contextId: ContextId, tabId: string) => Effect.Effect<PageWhere, ContextError>

/** The memory runtime's active tab of a context (a failure when the context is gone). */
export type MemoryActiveTab = (contextId: ContextId) => Effect.Effect<string | undefined, ContextError>

const cut = (s: string, limit: number): PageText => ({ text: s.slice(0, limit), truncated: s.length > limit })

/** A one-pixel PNG's signature and header: enough for a caller that checks it is a PNG. */
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/** The whole-verb calls: the shared owner's (`pageOwner.ts`) over these tab verbs, put on by the constructor. */
export interface MemoryPages extends DriveVerbs {}

/**
 * The fake pages of one memory runtime, keyed by context and tab.
 *
 * @example
 * const pages = new MemoryPages((id, tab) => memory.whereOf(id, tab), (id) => memory.activeOf(id), {
 *   tabs: (id) => memory.tabs(id), openTab: memory.openTab, navigate: memory.navigate, screencast: memory.screencast,
 * })
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor assigns every member of the interface.
export class MemoryPages implements PageVerbs {
  private readonly owner: PageOwner
  private readonly records = new Map<string, MemoryPageRecord>()
  private readonly dialogs = new Map<ContextId, Array<PageDialog>>()
  private readonly files = new Map<ContextId, Set<string>>()
  /** Every dialog answered, with how, in order. */
  readonly answered: Array<{
    readonly contextId: ContextId
    readonly dialog: PageDialog
    readonly how: PageDialogAnswer
  }> = []

  constructor(
    private readonly lookup: MemoryTabLookup,
    private readonly activeOf: MemoryActiveTab,
    parts: OwnerParts,
  ) {
    this.owner = new PageOwner(this, parts)
    // The owner took these tab verbs as they are; the instance hands out the counted ones.
    Object.assign(this, this.owner.tabVerbs, this.owner.verbs)
  }

  /** Freezes a context once none of its page verbs is in flight (`verbGate.ts`). @example yield* pages.freeze(id) */
  freeze(contextId: ContextId): Effect.Effect<void, ContextError> {
    return this.owner.freeze(contextId)
  }

  /** Thaws a context. @example yield* pages.thaw(id) */
  thaw(contextId: ContextId): Effect.Effect<void, ContextError> {
    return this.owner.thaw(contextId)
  }

  /** A context's page verbs in flight now. @example memory.pages.inFlight(id) // 1 */
  inFlight(contextId: ContextId): number {
    return this.owner.inFlight(contextId)
  }

  /**
   * A page opens a JavaScript dialog: it waits for `answerDialog`, oldest first.
   *
   * @example
   * memory.pages.openDialog(id, { type: 'confirm', message: 'Sure?', defaultPrompt: '', tabId: 't1' })
   */
  openDialog(contextId: ContextId, dialog: PageDialog): void {
    this.dialogs.set(contextId, [...(this.dialogs.get(contextId) ?? []), dialog])
  }

  /**
   * Puts a file (by name) in a context's fake files folder, for an upload to name.
   *
   * @example
   * memory.pages.putFile(id, 'receipt.pdf')
   */
  putFile(contextId: ContextId, name: string): void {
    this.files.set(contextId, (this.files.get(contextId) ?? new Set()).add(name))
  }

  /**
   * What a test puts on a page (text, HTML, the selectors that exist).
   *
   * @example
   * memory.pages.set(id, 't1', { html: '<p>hi</p>', text: 'hi' })
   */
  set(
    contextId: ContextId,
    tabId: string,
    page: Partial<
      Pick<MemoryPageRecord, 'text' | 'html' | 'selectors' | 'viewport' | 'evaluations' | 'console' | 'requests'>
    >,
  ): void {
    Object.assign(this.record(contextId, tabId), page)
  }

  /**
   * A page's record: what it holds and what was done to it.
   *
   * @example
   * memory.pages.record(id, 't1').inputs.length // 2
   */
  record(contextId: ContextId, tabId: string): MemoryPageRecord {
    const key = `${contextId}/${tabId}`
    let record = this.records.get(key)
    if (record === undefined) {
      record = {
        text: '',
        html: '<html><head></head><body></body></html>',
        selectors: [],
        scrollX: 0,
        scrollY: 0,
        viewport: { width: 1280, height: 720 },
        evaluations: {},
        console: [],
        requests: [],
        actions: [],
        inputs: [],
        steps: [],
      }
      this.records.set(key, record)
    }
    return record
  }

  /**
   * Forgets the pages the predicate accepts (their tab or context closed), and a closed context's dialogs. @example
   * pages.forget((key) => key.startsWith('c1/'))
   */
  forget(which: (key: string) => boolean, contextId?: ContextId): void {
    if (contextId !== undefined) this.owner.forget(contextId)
    for (const key of [...this.records.keys()]) if (which(key)) this.records.delete(key)
    for (const contextId of [...this.dialogs.keys()]) if (which(`${contextId}/`)) this.dialogs.delete(contextId)
    for (const contextId of [...this.files.keys()]) if (which(`${contextId}/`)) this.files.delete(contextId)
  }

  readonly where = (contextId: ContextId, tabId: string) => this.lookup(contextId, tabId)

  readonly text = (contextId: ContextId, tabId: string, limit: number) =>
    this.on(contextId, tabId, (r) => cut(r.text, limit))

  readonly html = (contextId: ContextId, tabId: string, limit: number) =>
    this.on(contextId, tabId, (r) => cut(r.html, limit))

  readonly url = (contextId: ContextId, tabId: string) => Effect.map(this.lookup(contextId, tabId), (w) => w.url)

  readonly waitForLoad = (contextId: ContextId, tabId: string, _timeoutMs: number) =>
    this.on(contextId, tabId, () => undefined)

  // A JPEG is asked for as a PNG is: a test reads the bytes' presence, not the codec.
  readonly screenshot = (contextId: ContextId, tabId: string, _options: PageShotOptions) =>
    this.on(contextId, tabId, () => PNG.slice())

  readonly act = (contextId: ContextId, tabId: string, action: PageAction) =>
    Effect.flatMap(
      this.on(contextId, tabId, (r) => r),
      (r): Effect.Effect<PageOutcome, RuntimeError> => {
        const missing = selectorsOf(action).find((s) => !r.selectors.includes(s))
        if (missing !== undefined) {
          return Effect.fail(
            new RuntimeError({
              reason: 'timeout',
              message: `${action.type}: no element matches ${missing} within ${action.timeoutMs} ms`,
            }),
          )
        }
        if (action.type === 'upload') {
          const folder = this.files.get(contextId) ?? new Set<string>()
          const refused = action.names.find((n) => !isPlainFileName(n) || !folder.has(n))
          if (refused !== undefined) {
            return Effect.fail(
              new RuntimeError({
                reason: 'invalid',
                message: `upload: ${JSON.stringify(refused)} is not a file of this errand's files folder`,
              }),
            )
          }
        }
        r.actions.push(action)
        return Effect.succeed('done' as const)
      },
    )

  readonly evaluate = (contextId: ContextId, tabId: string, expression: string, limit: number) =>
    Effect.flatMap(
      this.on(contextId, tabId, (r) => r),
      (r) => {
        if (!Object.hasOwn(r.evaluations, expression)) {
          return Effect.fail(
            new RuntimeError({
              reason: 'invalid',
              message: `evaluate: the page threw: ReferenceError: ${expression.slice(0, 100)} is not defined`,
            }),
          )
        }
        const json = JSON.stringify(r.evaluations[expression]) ?? 'null'
        return Effect.succeed(
          json.length > limit
            ? { value: json.slice(0, limit), truncated: true }
            : { value: JSON.parse(json) as unknown, truncated: false },
        )
      },
    )

  readonly console = (contextId: ContextId, tabId: string) =>
    this.on(contextId, tabId, (r) => ({ entries: [...r.console], dropped: 0 }))

  readonly network = (contextId: ContextId, tabId: string) =>
    this.on(contextId, tabId, (r) => ({ entries: [...r.requests], dropped: 0 }))

  readonly scroll = (contextId: ContextId, tabId: string, dx: number, dy: number) =>
    this.on(contextId, tabId, (r) => {
      r.scrollX = Math.max(0, r.scrollX + dx)
      r.scrollY = Math.max(0, r.scrollY + dy)
      return { scrollX: r.scrollX, scrollY: r.scrollY }
    })

  readonly input = (contextId: ContextId, tabId: string, events: ReadonlyArray<PageInput>) =>
    this.on(contextId, tabId, (r) => {
      r.inputs.push(...events)
      return events.length
    })

  readonly history = (contextId: ContextId, tabId: string, step: PageHistoryStep, _timeoutMs: number) =>
    Effect.flatMap(
      this.on(contextId, tabId, (r) => r.steps.push(step)),
      () => this.lookup(contextId, tabId),
    )

  readonly setViewport = (contextId: ContextId, tabId: string, size: PageSize) =>
    this.on(contextId, tabId, (r) => {
      r.viewport = { ...size }
    })

  readonly viewport = (contextId: ContextId, tabId: string) => this.on(contextId, tabId, (r) => r.viewport)

  readonly activeTab = (contextId: ContextId) => this.activeOf(contextId)

  readonly dialog = (contextId: ContextId) => Effect.sync(() => this.dialogs.get(contextId)?.[0])

  readonly answerDialog = (contextId: ContextId, how: PageDialogAnswer) =>
    Effect.sync(() => {
      const [first, ...rest] = this.dialogs.get(contextId) ?? []
      if (first === undefined) return undefined
      if (rest.length === 0) this.dialogs.delete(contextId)
      else this.dialogs.set(contextId, rest)
      this.answered.push({ contextId, dialog: first, how })
      return first
    })

  // No browser library behind a fake page: the escape hatch fails loudly, as a layerTest's missing method does.
  readonly raw = (contextId: ContextId, tabId: string): Effect.Effect<RawPage, ContextError> =>
    Effect.flatMap(this.lookup(contextId, tabId), () =>
      Effect.fail(
        new RuntimeError({ reason: 'invalid', message: 'the memory runtime has no browser pages to hand out' }),
      ),
    )

  private on<A>(
    contextId: ContextId,
    tabId: string,
    f: (record: MemoryPageRecord) => A,
  ): Effect.Effect<A, ContextError> {
    return Effect.map(this.lookup(contextId, tabId), () => f(this.record(contextId, tabId)))
  }
}

/** The selectors an action needs to find. */
const selectorsOf = (action: PageAction): ReadonlyArray<string> =>
  action.type === 'fill-form'
    ? action.fields.map((f) => f.selector)
    : action.type === 'drag'
      ? [action.from, action.to]
      : [action.selector]
