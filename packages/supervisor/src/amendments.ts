/**
 * The supervisor's in-memory snapshots (H1), and the amendments others make to them.
 *
 * A snapshot is what a crashed errand is healed from (H2) and what a crashed errand is sealed
 * from when it is parked. When lending takes a site back (L5) or lends one into an open errand
 * (L2), the snapshot must say so at once — or a heal or a park from it brings the revoked
 * sign-in back, or loses the lent one. An amendment is applied to every snapshot held now
 * **and** to every snapshot being read from Chromium at that moment: a read that began before the
 * amendment lands amended, so it cannot bring back what was just taken out of the context.
 *
 * Synchronous bookkeeping only; the supervisor's effects call {@link read} around each
 * `runtime.snapshot`.
 *
 * @example
 * const book = new SnapshotBook()
 * book.amend((id, s) => ({ ...s, storage: withoutShop(s.storage) }))
 * const snapshot = yield* book.read('t1', readFromChromium)
 */
import { originOf, type Snapshot } from '@errands/runtime'
import { Effect } from 'effect'

/**
 * Rewrites one errand's snapshot; must be pure (it also runs on snapshots read later).
 *
 * @example
 * const dropShop: SnapshotAmendment = (_errandId, s) => ({ ...s, storage: { ...s.storage, cookies:
 * s.storage.cookies.filter((c) => c.domain !== 'shop.example') } })
 */
export type SnapshotAmendment = (errandId: string, snapshot: Snapshot) => Snapshot

/**
 * The snapshots of open errands, and the amendments that reads in flight still owe.
 *
 * @example
 * const book = new SnapshotBook()
 */
export class SnapshotBook {
  private readonly held = new Map<string, Snapshot>()
  /** Amendments newer than the oldest read in flight, by sequence number. */
  private pending: Array<{ readonly seq: number; readonly amend: SnapshotAmendment }> = []
  /** The sequence number each read in flight started at. */
  private readonly reading = new Map<symbol, number>()
  private seq = 0

  /** Fresher snapshots on their way (a crashed context's last words), by errand. */
  private readonly arriving = new Map<string, Promise<void>>()

  /**
   * A fresher snapshot of the errand is on its way (`coming` keeps it when it lands): heals and
   * parks of it wait for it first (`arrived`).
   *
   * @example
   * book.expect('t1', runPromise(readLastWords))
   */
  expect(errandId: string, coming: Promise<void>): void {
    const settled = coming.then(
      () => undefined,
      () => undefined,
    )
    this.arriving.set(errandId, settled)
    void settled.then(() => this.arriving.get(errandId) === settled && this.arriving.delete(errandId))
  }

  /** Waits for a snapshot of the errand that is on its way, if one is. @example yield* book.arrived('t1') */
  arrived(errandId: string): Effect.Effect<void> {
    return Effect.suspend(() => {
      const coming = this.arriving.get(errandId)
      return coming === undefined ? Effect.void : Effect.promise(() => coming)
    })
  }

  /** The errand's snapshot, if one is held. @example book.get('t1') */
  get(errandId: string): Snapshot | undefined {
    return this.held.get(errandId)
  }

  /** Keeps `snapshot` as the errand's last one (a restore, a heal). @example book.set('t1', snapshot) */
  set(errandId: string, snapshot: Snapshot): void {
    this.held.set(errandId, snapshot)
  }

  /** Forgets the errand's snapshot (parked: the record is the truth; closed). @example book.delete('t1') */
  delete(errandId: string): void {
    this.held.delete(errandId)
  }

  /** How many amendments reads in flight still owe (tests). @example book.owed() // 0 */
  owed(): number {
    return this.pending.length
  }

  /**
   * Applies `amend` to every held snapshot now, and to every read in flight when it lands.
   *
   * @example
   * book.amend((id, s) => (id === 't1' ? { ...s, tabs: [] } : s))
   */
  amend(amend: SnapshotAmendment): void {
    for (const [id, snapshot] of this.held) this.held.set(id, amend(id, snapshot))
    this.seq++
    if (this.reading.size > 0) this.pending.push({ seq: this.seq, amend })
  }

  /**
   * Runs `read` — a storage and tab read from the runtime, or a context being opened from a
   * snapshot — and returns the snapshot it yields with every amendment made while it ran
   * applied. Not kept: the caller decides.
   *
   * @example
   * const snapshot = yield* book.read('t1', Effect.map(runtime.snapshot(contextId), (s) => ({ ...s, takenAt: now })))
   */
  read<E, R>(errandId: string, read: Effect.Effect<Snapshot, E, R>): Effect.Effect<Snapshot, E, R> {
    return Effect.acquireUseRelease(
      Effect.sync(() => {
        const token = Symbol(errandId)
        this.reading.set(token, this.seq)
        return token
      }),
      (token) =>
        Effect.map(read, (snapshot) => {
          const from = this.reading.get(token)!
          return this.pending.filter((p) => p.seq > from).reduce((s, p) => p.amend(errandId, s), snapshot)
        }),
      (token) =>
        Effect.sync(() => {
          this.reading.delete(token)
          const oldest = Math.min(...this.reading.values())
          this.pending = this.pending.filter((p) => p.seq > oldest)
        }),
    )
  }
}

/**
 * A crashed context's last words, completed from the snapshot held before the crash (H2, E7):
 * a dead renderer's tabs can no longer tell their sessionStorage, and an IndexedDB read that
 * failed after the crash leaves none — the held snapshot's is then the freshest there is. A tab
 * is matched by its id and kept only while it shows the same origin.
 *
 * @example
 * withHeldOwnData(lastWords, book.get('t1')) // lastWords, with the held sessionStorage and IndexedDB
 */
export const withHeldOwnData = (words: Snapshot, held: Snapshot | undefined): Snapshot => {
  if (held === undefined) return words
  const heldTabs = new Map(held.tabs.flatMap((t) => (t.id === undefined ? [] : [[t.id, t] as const])))
  const tabs = words.tabs.map((tab) => {
    const before = tab.id === undefined ? undefined : heldTabs.get(tab.id)
    const kept = before?.sessionStorage
    return tab.sessionStorage !== undefined || kept === undefined || originOf(tab.url) !== kept.origin
      ? tab
      : { ...tab, sessionStorage: kept }
  })
  const indexedDB = words.indexedDB ?? held.indexedDB
  return { ...words, tabs, ...(indexedDB === undefined ? {} : { indexedDB }) }
}
