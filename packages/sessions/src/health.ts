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
  /** Open errands frozen by idleness (C4): counted in `open`, their pages held until the next use. */
  readonly frozen: number
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
