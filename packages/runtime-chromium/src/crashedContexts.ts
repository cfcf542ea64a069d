/**
 * Crashed contexts' last words: what a context held when its renderer crashed (its storage
 * outlives the renderer, with its tabs' URLs), read before it closes and kept for the heal to
 * reopen (lossless, not the last debounced snapshot; found by the soak, issue #15).
 */
import type { ContextId, Snapshot, StorageState, TabSpec } from '@errands/runtime'
import type { ContextEntry } from './contextEntry.ts'
import { closeWithin, within } from './failures.ts'

/** What a crashed context left: its storage and tabs, or undefined when they could not be read. */
type LastWords = Promise<Omit<Snapshot, 'takenAt'> | undefined>

/**
 * The crashed contexts of one runtime: their last words until taken, and their closing until done.
 *
 * @example
 * const crashed = new CrashedContexts({ deadlineMs: 30_000, log: console.error, noun: 'context' })
 * crashed.hold(entry, tabs, readStorage(entry))
 * await crashed.take(entry.id) // { storage, tabs } or undefined
 */
export class CrashedContexts {
  private readonly lastWordsOf = new Map<ContextId, LastWords>()
  /** Crashed contexts still open while their last words are read, until they are closed. */
  private readonly closingCrashed = new Set<Promise<unknown>>()

  constructor(
    private readonly settings: {
      readonly deadlineMs: number
      readonly log: (line: string) => void
      readonly noun: string
    },
  ) {}

  /**
   * Keeps the last words of a crashed context the runtime has already forgotten — `tabs`, and
   * the storage `read` is reading — and closes the context once they are read.
   *
   * @example
   * crashed.hold(entry, this.tabSpecsOf(entry), this.readStorage(entry))
   */
  hold(
    entry: ContextEntry,
    tabs: Array<TabSpec>,
    read: Promise<StorageState>,
    own: Promise<Pick<Snapshot, 'indexedDB' | 'leftOut'>> = Promise.resolve({}),
  ): void {
    const { deadlineMs, log, noun } = this.settings
    read.catch((e: unknown) =>
      log(
        `${noun} ${entry.id}: its storage could not be read after the crash ` +
          `(${e instanceof Error ? e.message.split('\n')[0] : String(e)}); it heals from its last snapshot`,
      ),
    )
    const both = Promise.all([read, own.catch(() => ({}))])
    const words = within(Math.min(10_000, deadlineMs), both).then((got) =>
      got === undefined ? undefined : { storage: got[0], tabs, ...got[1] },
    )
    this.lastWordsOf.set(entry.id, words)
    const closed = words.finally(() => closeWithin(deadlineMs, entry.context, log, `crashed ${noun} ${entry.id}`))
    this.closingCrashed.add(closed)
    void closed.finally(() => this.closingCrashed.delete(closed))
    // Never read (the errand ended meanwhile): not kept for good.
    setTimeout(() => this.lastWordsOf.get(entry.id) === words && this.lastWordsOf.delete(entry.id), 60_000).unref()
  }

  /** Takes a crashed context's last words (once; undefined when none are kept). @example await crashed.take(id) */
  take(contextId: ContextId): LastWords | undefined {
    const words = this.lastWordsOf.get(contextId)
    this.lastWordsOf.delete(contextId)
    return words
  }

  /** Waits until every crashed context being read is closed. @example await crashed.closed() */
  async closed(): Promise<void> {
    await Promise.all([...this.closingCrashed])
  }
}
