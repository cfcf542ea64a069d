/**
 * The page verbs in flight per context, and the freeze that waits for them (the first step of
 * setting an errand aside, docs/parking.md). A freeze that lands while a verb is still working on
 * the page would pause the page under it — a verb longer than the idle limit, or one that starts
 * as the sweep decides, would then wait on a paused page until its deadline and answer nothing
 * (docs/adr/0047-frozen-errands.md, "a hazard seen in the bench"). So a freeze waits until the
 * context has no verb in flight, and a verb that reaches a frozen context thaws it first — the
 * supervisor thaws before every verb already; this is the runtime's own guarantee that no verb
 * ever runs on a frozen page, whatever path it came by.
 *
 * One freeze or thaw runs at a time per context; a verb arriving while the freeze waits is
 * counted and waited for too (an errand in use is not idle), one arriving during the freeze
 * itself thaws it again once the freeze is done.
 *
 * @example
 * const gate = new VerbGate()
 * const read = gate.verb(id, tab.text(id, 't1', 1_000)) // counted; thaws a frozen context first
 * yield* gate.freeze(id, freezePages(id), thawPages(id)) // after every verb in flight has answered
 */
import { Deferred, Effect, FiberId } from 'effect'
import type { TabPageVerbs } from './pages.ts'
import type { ContextError } from './Runtime.ts'
import type { ContextId } from './types.ts'

/** One context's verbs in flight and whether its pages are frozen. */
interface Gate {
  inFlight: number
  frozen: boolean
  /** Freezes waiting for `inFlight` to reach 0. */
  readonly quiet: Set<Deferred.Deferred<void>>
  /** One freeze or thaw at a time. */
  readonly turn: Effect.Semaphore
  /** How this context's pages are thawed, from its last freeze (a verb arriving on it thaws it the same way). */
  thaw: Effect.Effect<void, ContextError> | undefined
}

/**
 * Counts page verbs per context and orders freezes and thaws around them.
 *
 * @example
 * const gate = new VerbGate()
 * yield* gate.verb(id, effect) // runs `effect`, counted
 * gate.inFlight(id) // 0 again
 */
export class VerbGate {
  private readonly gates = new Map<ContextId, Gate>()

  /** The verbs of a context in flight now. @example gate.inFlight(id) // 1 while a read waits on the page */
  inFlight(contextId: ContextId): number {
    return this.gates.get(contextId)?.inFlight ?? 0
  }

  /** Whether the context's pages are frozen (or being frozen) now. @example gate.isFrozen(id) */
  isFrozen(contextId: ContextId): boolean {
    return this.gates.get(contextId)?.frozen ?? false
  }

  /**
   * Runs a page verb of the context, counted while it runs; on a frozen context the pages are
   * thawed first (the verb fails with the thaw's error if that fails).
   */
  verb<A, E>(contextId: ContextId, effect: Effect.Effect<A, E>): Effect.Effect<A, E | ContextError> {
    return Effect.uninterruptibleMask((restore) =>
      Effect.suspend((): Effect.Effect<A, E | ContextError> => {
        const g = this.gateOf(contextId)
        if (g.frozen) return Effect.zipRight(restore(this.thawGate(g)), this.verb(contextId, effect))
        g.inFlight++
        return Effect.ensuring(
          restore(effect),
          Effect.sync(() => this.leave(g)),
        )
      }),
    )
  }

  /**
   * Freezes the context with `freeze` once no verb of it is in flight; `thaw` is how a verb that
   * arrives later lets go of it. A failed freeze leaves it counted as frozen: whatever it held is
   * let go by the next thaw.
   */
  freeze(
    contextId: ContextId,
    freeze: Effect.Effect<void, ContextError>,
    thaw: Effect.Effect<void, ContextError>,
  ): Effect.Effect<void, ContextError> {
    const g = this.gateOf(contextId)
    return g.turn.withPermits(1)(
      Effect.zipRight(
        this.closeWhenQuiet(g),
        Effect.suspend(() => {
          g.thaw = thaw
          return freeze
        }),
      ),
    )
  }

  /** Thaws the context with `thaw` (idempotent: `thaw` runs even when nothing is counted as frozen). */
  thaw(contextId: ContextId, thaw: Effect.Effect<void, ContextError>): Effect.Effect<void, ContextError> {
    const g = this.gateOf(contextId)
    return g.turn.withPermits(1)(
      Effect.tap(thaw, () =>
        Effect.sync(() => {
          g.frozen = false
        }),
      ),
    )
  }

  /** Forgets a closed context (a freeze still waiting on it goes on when its verbs end). @example gate.forget(id) */
  forget(contextId: ContextId): void {
    this.gates.delete(contextId)
  }

  private gateOf(contextId: ContextId): Gate {
    let g = this.gates.get(contextId)
    if (g === undefined) {
      g = { inFlight: 0, frozen: false, quiet: new Set(), turn: Effect.unsafeMakeSemaphore(1), thaw: undefined }
      this.gates.set(contextId, g)
    }
    return g
  }

  private leave(g: Gate): void {
    g.inFlight--
    if (g.inFlight > 0) return
    for (const d of g.quiet) Deferred.unsafeDone(d, Effect.void)
    g.quiet.clear()
  }

  /** Marks the gate frozen at the moment no verb is in flight, in one step: no verb slips in between. */
  private closeWhenQuiet(g: Gate): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (g.inFlight === 0) {
        g.frozen = true
        return Effect.void
      }
      const d = Deferred.unsafeMake<void>(FiberId.none)
      g.quiet.add(d)
      return Effect.zipRight(
        Effect.onInterrupt(Deferred.await(d), () => Effect.sync(() => g.quiet.delete(d))),
        this.closeWhenQuiet(g),
      )
    })
  }

  private thawGate(g: Gate): Effect.Effect<void, ContextError> {
    return g.turn.withPermits(1)(
      Effect.suspend(() => {
        if (!g.frozen) return Effect.void
        return Effect.tap(g.thaw ?? Effect.void, () =>
          Effect.sync(() => {
            g.frozen = false
          }),
        )
      }),
    )
  }
}

/**
 * A runtime's tab verbs with every one that works on a page counted by `gate` (and thawing a
 * frozen context first). The runtime's bookkeeping — the active tab, the held dialog and its answer, the
 * viewport, the console and network rings — ask no page and pass as they are: `/v1/state` reads
 * them and must neither wait on a busy page nor thaw a frozen one. Each verb is taken from `tab`
 * now, so `tab` may be the object that later holds the result.
 *
 * @example
 * const pages = { ...gatedTabVerbs(gate, chromiumTabVerbs), ...owner.verbs }
 */
export const gatedTabVerbs = (gate: VerbGate, tab: TabPageVerbs): TabPageVerbs => {
  const t = pickTabVerbs(tab)
  return {
    ...t,
    where: (id, tabId) => gate.verb(id, t.where(id, tabId)),
    text: (id, tabId, limit) => gate.verb(id, t.text(id, tabId, limit)),
    html: (id, tabId, limit) => gate.verb(id, t.html(id, tabId, limit)),
    url: (id, tabId) => gate.verb(id, t.url(id, tabId)),
    waitForLoad: (id, tabId, timeoutMs) => gate.verb(id, t.waitForLoad(id, tabId, timeoutMs)),
    screenshot: (id, tabId, options) => gate.verb(id, t.screenshot(id, tabId, options)),
    act: (id, tabId, action) => gate.verb(id, t.act(id, tabId, action)),
    scroll: (id, tabId, dx, dy) => gate.verb(id, t.scroll(id, tabId, dx, dy)),
    input: (id, tabId, events) => gate.verb(id, t.input(id, tabId, events)),
    history: (id, tabId, step, timeoutMs, wait) => gate.verb(id, t.history(id, tabId, step, timeoutMs, wait)),
    setViewport: (id, tabId, size) => gate.verb(id, t.setViewport(id, tabId, size)),
    evaluate: (id, tabId, expression, limit) => gate.verb(id, t.evaluate(id, tabId, expression, limit)),
    raw: (id, tabId) => gate.verb(id, t.raw(id, tabId)),
  }
}

/**
 * The tab verbs of `tab`, taken now (a class whose instance is later given other verbs of the same
 * names keeps these).
 *
 * @example
 * const own = pickTabVerbs(this) // before Object.assign(this, counted)
 */
export const pickTabVerbs = (tab: TabPageVerbs): TabPageVerbs => ({
  where: tab.where,
  text: tab.text,
  html: tab.html,
  url: tab.url,
  waitForLoad: tab.waitForLoad,
  screenshot: tab.screenshot,
  act: tab.act,
  scroll: tab.scroll,
  input: tab.input,
  history: tab.history,
  setViewport: tab.setViewport,
  viewport: tab.viewport,
  activeTab: tab.activeTab,
  dialog: tab.dialog,
  answerDialog: tab.answerDialog,
  evaluate: tab.evaluate,
  console: tab.console,
  network: tab.network,
  raw: tab.raw,
})
