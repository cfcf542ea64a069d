/**
 * Health, in words a person understands (H3, V2): a bounded list of recent messages. Messages
 * name conversations and sites, never secrets (L7).
 */

/** One health message. */
export interface HealthMessage {
  readonly at: number
  readonly level: 'info' | 'warning'
  readonly text: string
  readonly conversationId?: string | undefined
}

/** What health shows about capacity. */
export interface Capacity {
  readonly open: number
  readonly parked: number
  readonly limit: number
  /** Errands a person drives from the live view now (P1): never parked for room or idleness. */
  readonly personDriving: number
  /** Errands whose agent waits for the person (P3, P4), open or parked. */
  readonly waitingForPerson: number
}

/**
 * A ring of the most recent health messages.
 *
 * @example
 * const log = new HealthLog(50)
 * log.add({ at: 0, level: 'info', text: "Reopened a task's browser as it was" })
 */
export class HealthLog {
  private readonly messages: HealthMessage[] = []
  private readonly listeners = new Set<(m: HealthMessage) => void>()
  constructor(private readonly max = 100) {}

  add(message: HealthMessage): void {
    this.messages.push(message)
    if (this.messages.length > this.max) this.messages.shift()
    for (const l of this.listeners) l(message)
  }

  recent(): ReadonlyArray<HealthMessage> {
    return [...this.messages]
  }

  onMessage(listener: (m: HealthMessage) => void): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }
}

/** The words health uses. One place, so tests and docs agree. */
export const words = {
  healed: "Reopened a task's browser as it was",
  crashed: "A task's browser crashed; it reopens as it was on next use",
  crashedAgain:
    "A task's browser crashed again soon after it was reopened; it waits a little longer before each new try",
  healGaveUp:
    "A task's browser kept crashing, so it is no longer reopened by itself; it was set aside as it was — resume it " +
    'to try again',
  parked: (cause: string) => `Set a task's browser aside (${cause})`,
  recordDropped: (reason: string) => `A set-aside task's browser could not be read (${reason}) and was dropped`,
  parkFailed: (reason: string) => `Could not set a task's browser aside (${reason}); it stays open`,
  filesLost: (why: string) => `A task's files could not be kept with its browser (${why}); download them again`,
  indexedDbLeftOut: (origin: string, reason: string) =>
    `A task's IndexedDB of ${origin} is not kept with its browser (${
      reason === 'over-cap'
        ? 'it is over the cap, ERRANDS_INDEXEDDB_MAX_ERRAND_BYTES'
        : reason === 'unsupported'
          ? 'it holds a value no script can read back'
          : 'it could not be read'
    }); the rest is kept`,
  sealFailed: (reason: string) =>
    `Could not seal a task's latest snapshot (${reason}); it stays open here, and another host would reopen it as ` +
    `last sealed`,
} as const
