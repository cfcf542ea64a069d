/**
 * Why this exists: the supervisor keeps, for each open errand, the last snapshot it took (H1) and
 * heals a crashed context from it (H2); a crashed errand that is parked is sealed from it too.
 * A snapshot taken **before** a revocation still holds the revoked site's cookies, and the
 * supervisor offers no way to rewrite it. Without this guard a crash after "revoke" would bring
 * the revoked sign-in back (L5).
 *
 * So a revocation marks each errand's current in-memory snapshot as stale for the sites it took
 * back. When that errand is healed **from that same snapshot object**, the guard says which sites
 * to take out of the snapshot before its context opens (`onHeal`, found by the model soak: cleaning the healed
 * context afterwards raced whoever drove it — it could see the revoked sign-in, and what it wrote
 * for the site at once was wiped); when it is parked while such a mark stands, the guard says to
 * take those sites out of the record. A new snapshot (a new object, taken after the clean-up) clears the mark.
 *
 * Pure bookkeeping: `Lending` runs the actions this returns. It can go once the supervisor can
 * rewrite its in-memory snapshots (see docs/lending.md, "Open ends").
 *
 * @example
 * const guard = new StaleSnapshots()
 * guard.mark('t1', supervisor.lastSnapshot('t1'), new Set(['shop.example']), contextId)
 * supervisor.onChange((view) => { const action = guard.onChange(view, supervisor.lastSnapshot(view.conversationId)) })
 */
import type { ContextId, Snapshot } from '@errands/runtime'
import type { ErrandView } from '@errands/supervisor'
import type { Reach } from './moves.ts'

interface Mark {
  readonly snapshot: Snapshot
  reach: Reach
  /** The context already cleaned for this mark (the one open at revocation, or the last healed one). */
  cleanContext: ContextId | undefined
}

/**
 * What to do for one errand after a state change.
 *
 * @example
 * const a: GuardAction = { kind: 'context', conversationId: 't1', contextId: 'ctx-3', reach: 'all' }
 */
export type GuardAction =
  | { readonly kind: 'context'; readonly conversationId: string; readonly contextId: ContextId; readonly reach: Reach }
  | { readonly kind: 'record'; readonly conversationId: string; readonly reach: Reach }

const union = (a: Reach, b: Reach): Reach => (a === 'all' || b === 'all' ? 'all' : new Set([...a, ...b]))

/**
 * Marks of stale in-memory snapshots and the decisions that follow from them (see module comment).
 *
 * @example
 * const guard = new StaleSnapshots()
 */
export class StaleSnapshots {
  private readonly marks = new Map<string, Mark>()

  /**
   * Records that `snapshot` (the supervisor's current one for the conversation) predates a
   * take-back of `reach`; `cleanContext` is the context that was cleaned now, if it was open.
   */
  mark(conversationId: string, snapshot: Snapshot | undefined, reach: Reach, cleanContext: ContextId | undefined): void {
    if (snapshot === undefined) {
      // No snapshot: a heal would start empty, a park would seal a fresh one. Nothing is stale.
      this.marks.delete(conversationId)
      return
    }
    const existing = this.marks.get(conversationId)
    if (existing !== undefined && existing.snapshot === snapshot) {
      existing.reach = union(existing.reach, reach)
      existing.cleanContext = cleanContext ?? existing.cleanContext
      return
    }
    this.marks.set(conversationId, { snapshot, reach, cleanContext })
  }

  /** Whether a mark stands for the conversation (tests). */
  has(conversationId: string): boolean {
    return this.marks.has(conversationId)
  }

  /**
   * A crashed errand is about to be healed from `snapshot`: the sites to take out of it first,
   * when it is the marked one. The mark goes (the errand's last snapshot becomes the cleaned
   * copy), so {@link onChange} has nothing left to do for this heal.
   *
   * @example
   * const reach = guard.onHeal('t1', supervisor.lastSnapshot('t1')!) // Set { 'shop.example' } or undefined
   */
  onHeal(conversationId: string, snapshot: Snapshot): Reach | undefined {
    const mark = this.marks.get(conversationId)
    if (mark === undefined || mark.snapshot !== snapshot) return undefined
    this.marks.delete(conversationId)
    return mark.reach
  }

  /**
   * The action an errand's state change calls for, given the supervisor's current snapshot of
   * it (`supervisor.lastSnapshot(id)`), or `undefined`.
   */
  onChange(view: Pick<ErrandView, 'conversationId' | 'state' | 'contextId'>, current: Snapshot | undefined): GuardAction | undefined {
    const id = view.conversationId
    const mark = this.marks.get(id)
    if (mark === undefined) return undefined
    switch (view.state) {
      case 'closed':
      case 'main':
        this.marks.delete(id)
        return undefined
      case 'parked':
        // Sealed either from a fresh snapshot (already clean) or from the stale one: clean the
        // record either way; the in-memory snapshot is gone now.
        this.marks.delete(id)
        return { kind: 'record', conversationId: id, reach: mark.reach }
      case 'active': {
        if (current !== mark.snapshot) {
          // A snapshot taken after the clean-up (or a resume from a cleaned record) replaced it.
          this.marks.delete(id)
          return undefined
        }
        if (view.contextId === null || view.contextId === mark.cleanContext) return undefined
        mark.cleanContext = view.contextId
        return { kind: 'context', conversationId: id, contextId: view.contextId, reach: mark.reach }
      }
      default:
        return undefined
    }
  }
}
