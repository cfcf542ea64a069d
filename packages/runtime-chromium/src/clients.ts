/**
 * Which contexts have a DevTools client attached right now (A1, A4). The DevTools proxy counts
 * its connections in here; whatever the engine does on its own connection to a page that a
 * client may also want to do (answering a JavaScript dialog) asks here first and leaves it to
 * the client while one is attached.
 *
 * @example
 * const release = clients.attach(contextId) // when a client connects
 * clients.has(contextId) // true
 * release()              // when it disconnects (a second call is a no-op)
 */
export class DevToolsClients {
  private readonly counts = new Map<string, number>()

  /** Counts one client of `contextId`; the returned function un-counts it, once. */
  attach(contextId: string): () => void {
    this.counts.set(contextId, (this.counts.get(contextId) ?? 0) + 1)
    let released = false
    return () => {
      // Idempotent: a socket's close and an errand's end may both release the same client.
      if (released) return
      released = true
      const left = (this.counts.get(contextId) ?? 1) - 1
      if (left > 0) this.counts.set(contextId, left)
      else this.counts.delete(contextId)
    }
  }

  /** Whether at least one client of `contextId` is attached. */
  has(contextId: string): boolean {
    return (this.counts.get(contextId) ?? 0) > 0
  }
}
