/**
 * Holding the workers of one browser context still (a frozen errand's, `lifecycle.ts`): every
 * dedicated, shared and service worker target of the context is attached from a browser-level
 * CDP session of the runtime's own and its thread paused with `Debugger.pause`, until `release`
 * lets go (`Debugger.disable`, as for a page, then detach). A page's pause does not reach its
 * workers: they are threads of their own, with their own timers and network.
 *
 * The worker sessions are not flattened: Playwright's browser session sends on its own session
 * only, so each worker's messages go through `Target.sendMessageToTarget` (measured on this
 * Chromium 156: a worker's 10 ms interval stops while held and runs again after the release).
 *
 * @example
 * const hold = await holdWorkers(browser, browserContextId)
 * await hold.release()
 */
import type { Browser, CDPSession } from 'playwright-core'

/** The kinds of targets that run a page's scripts off its main thread. */
const WORKER_TYPES = new Set(['worker', 'shared_worker', 'service_worker'])

/** Workers held still; `release` lets go of them (idempotent, failures of a gone worker ignored). */
export interface WorkerHold {
  /** How many workers are held. */
  readonly count: number
  readonly release: () => Promise<void>
}

/**
 * The commands to workers attached without flattening, each answered when the worker's thread has
 * taken it (its answer comes back as `Target.receivedMessageFromTarget`), or when the worker is gone.
 */
const workerChannel = (session: CDPSession) => {
  const waiting = new Map<string, () => void>()
  let next = 0
  session.on('Target.receivedMessageFromTarget', ({ sessionId, message }) => {
    const { id } = JSON.parse(message) as { id?: number }
    if (id !== undefined) waiting.get(`${sessionId}/${id}`)?.()
  })
  // A worker that ends answers nothing more: what waits on it is let go.
  session.on('Target.detachedFromTarget', ({ sessionId }) => {
    for (const [key, done] of waiting) if (key.startsWith(`${sessionId}/`)) done()
  })
  return (sessionId: string, method: string): Promise<void> => {
    const key = `${sessionId}/${++next}`
    const answered = new Promise<void>((resolve) =>
      waiting.set(key, () => {
        waiting.delete(key)
        resolve()
      }),
    )
    return session
      .send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: next, method, params: {} }) })
      .then(
        () => answered,
        () => waiting.get(key)?.(),
      )
  }
}

/**
 * Holds every worker of the browser context `browserContextId` now running.
 *
 * @example
 * const hold = await holdWorkers(browser, 'A1B2…')
 */
export const holdWorkers = async (browser: Browser, browserContextId: string): Promise<WorkerHold> => {
  const session = await browser.newBrowserCDPSession()
  const tell = workerChannel(session)
  const held: Array<string> = []
  try {
    const { targetInfos } = await session.send('Target.getTargets')
    const workers = targetInfos.filter((t) => WORKER_TYPES.has(t.type) && t.browserContextId === browserContextId)
    await Promise.all(
      workers.map(async (worker) => {
        // A worker that ends between the list and the attach has nothing left to hold.
        const attached = await session
          .send('Target.attachToTarget', { targetId: worker.targetId, flatten: false })
          .catch(() => undefined)
        if (attached === undefined) return
        held.push(attached.sessionId)
        // Answered once the worker's thread took the pause: its next statement does not run.
        await tell(attached.sessionId, 'Debugger.enable')
        await tell(attached.sessionId, 'Debugger.pause')
      }),
    )
  } catch (error) {
    await session.detach().catch(() => undefined)
    throw error
  }
  let released = false
  return {
    count: held.length,
    release: async () => {
      if (released) return
      released = true
      await Promise.all(
        held.map(async (sessionId) => {
          await tell(sessionId, 'Debugger.disable')
          await session.send('Target.detachFromTarget', { sessionId }).catch(() => undefined)
        }),
      )
      await session.detach().catch(() => undefined)
    },
  }
}
