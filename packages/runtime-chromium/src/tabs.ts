import { tabIdFor } from '@errands/runtime'

/**
 * Tab bookkeeping of one context, independent of the browser: stable ids (`t1`, `t2`, … never
 * reused within a context), order, and which tab is active. The runtime — not Chromium —
 * decides the active tab: an opened tab becomes active; closing the active tab activates its
 * right neighbour (or the left one when it was last); closing the last tab leaves none.
 *
 * @example
 * const book = new TabBook<string>()
 * const a = book.add('page-a')          // "t1", active
 * const b = book.add('page-b')          // "t2", active
 * book.remove(b)                        // "t1" active again
 */
export class TabBook<H> {
  private readonly order: Array<{ readonly id: string; readonly handle: H }> = []
  private activeId: string | undefined
  private next = 1

  /**
   * Adds a tab at the end (or at `index`) and returns its id; it becomes active unless
   * `activate` is false (or there is no active tab yet).
   *
   * @example
   * book.add(page, { activate: false })
   */
  add(handle: H, options: { readonly activate?: boolean; readonly index?: number; readonly id?: string } = {}): string {
    const { id, next } = tabIdFor(options.id, (taken) => this.order.some((t) => t.id === taken), this.next)
    this.next = next
    const index = options.index ?? this.order.length
    this.order.splice(Math.max(0, Math.min(index, this.order.length)), 0, { id, handle })
    if (options.activate !== false || this.activeId === undefined) this.activeId = id
    return id
  }

  /**
   * Removes a tab; returns the id now active (undefined when no tab is left or it was unknown).
   *
   * @example
   * book.remove('t2')
   */
  remove(id: string): string | undefined {
    const index = this.order.findIndex((t) => t.id === id)
    if (index < 0) return this.activeId
    this.order.splice(index, 1)
    if (this.activeId === id) this.activeId = (this.order[index] ?? this.order[index - 1])?.id
    return this.activeId
  }

  /**
   * Makes a tab active; false when it is unknown.
   *
   * @example
   * book.activate('t1')
   */
  activate(id: string): boolean {
    if (!this.order.some((t) => t.id === id)) return false
    this.activeId = id
    return true
  }

  /** The active tab's id, if any. @example book.active() */
  active(): string | undefined {
    return this.activeId
  }

  /** The handle of a tab. @example book.get('t1') */
  get(id: string): H | undefined {
    return this.order.find((t) => t.id === id)?.handle
  }

  /** The id of a handle. @example book.idOf(page) */
  idOf(handle: H): string | undefined {
    return this.order.find((t) => t.handle === handle)?.id
  }

  /** Tabs in order. @example book.list().map((t) => t.id) */
  list(): ReadonlyArray<{ readonly id: string; readonly handle: H; readonly active: boolean }> {
    return this.order.map((t) => ({ ...t, active: t.id === this.activeId }))
  }

  /** How many tabs. @example book.size */
  get size(): number {
    return this.order.length
  }
}
