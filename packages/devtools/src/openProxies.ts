/**
 * The DevTools endpoint's open client connections, per errand, and how they follow the errand's
 * life through the one session service (`Sessions`, ADR 0027): **park** closes every connection of
 * the errand (4001) and revokes its tokens; **release** and the errand's end do too (4002); a
 * **heal** closes connections (4004) but keeps the token, so a client reconnects with the same URL
 * and finds the tabs back; a person taking the wheel or handing it back pauses or lets go of the
 * clients (#26); a connection with no message for the idle limit is closed (4003), so an idle
 * socket does not pin its errand forever.
 *
 * @example
 * const proxies = new OpenProxies(tokens, idleMs)
 * const stop = proxies.follow(sessions) // until the endpoint closes
 * proxies.add('session:task-42', proxy)
 */
import type { Sessions } from '@errands/sessions'
import type { Context } from 'effect'
import { CLOSE } from './limits.ts'
import type { CloseReason, ErrandProxy } from './proxy.ts'
import type { TokenBook } from './tokens.ts'

const ENDED = new Set(['closing', 'closed'])

/**
 * The open connections of every errand of one endpoint.
 *
 * @example
 * proxies.count('session:task-42') // 1
 */
export class OpenProxies {
  private readonly open = new Map<string, Set<ErrandProxy>>()

  constructor(
    private readonly tokens: TokenBook,
    private readonly idleMs: number,
  ) {}

  /** Keeps `proxy` among the errand's connections until it closes. @example proxies.add(id, proxy) */
  add(conversationId: string, proxy: ErrandProxy): void {
    const set = this.open.get(conversationId) ?? new Set<ErrandProxy>()
    this.open.set(conversationId, set)
    set.add(proxy)
    proxy.onClose(() => {
      set.delete(proxy)
      if (set.size === 0 && this.open.get(conversationId) === set) this.open.delete(conversationId)
    })
  }

  /** Open connections of one errand, or of all. @example proxies.count() */
  count(conversationId?: string): number {
    return conversationId === undefined
      ? [...this.open.values()].reduce((n, s) => n + s.size, 0)
      : (this.open.get(conversationId)?.size ?? 0)
  }

  /** Closes every connection of the errand. @example proxies.closeAll(id, CLOSE.parked) */
  closeAll(conversationId: string, why: CloseReason): void {
    for (const proxy of [...(this.open.get(conversationId) ?? [])]) proxy.close(why)
  }

  /** Closes every connection of every errand. @example proxies.closeEvery(CLOSE.shutdown) */
  closeEvery(why: CloseReason): void {
    for (const id of [...this.open.keys()]) this.closeAll(id, why)
  }

  /**
   * Follows the errands' lives (park, release, heal, the wheel) and closes idle connections;
   * answers how to stop.
   *
   * @example
   * const stop = proxies.follow(sessions)
   */
  follow(sessions: Context.Tag.Service<typeof Sessions>): () => void {
    const stopWatching = sessions.onChange((view) => {
      if (view.state === 'parking' || view.state === 'parked') {
        this.tokens.revoke(view.conversationId)
        this.closeAll(view.conversationId, CLOSE.parked)
      } else if (ENDED.has(view.state)) {
        this.tokens.revoke(view.conversationId)
        this.closeAll(view.conversationId, CLOSE.released)
      } else if (view.state === 'healing') {
        this.closeAll(view.conversationId, CLOSE.healing)
      } else {
        // A person took the wheel or handed it back (#26): the errand's clients pause or go on.
        for (const proxy of this.open.get(view.conversationId) ?? []) proxy.wheel.set(view.personDriving === true)
      }
    })
    // The note comes just before the hand-back's change (Sessions.onHandBack).
    const stopHearing = sessions.onHandBack((conversationId, note) => {
      for (const proxy of this.open.get(conversationId) ?? []) proxy.wheel.noteOf(note)
    })
    const idleCheck = setInterval(
      () => {
        const now = Date.now()
        for (const proxies of this.open.values())
          for (const proxy of [...proxies])
            if (now - proxy.lastActivity >= this.idleMs && !proxy.waiting) proxy.close(CLOSE.idle)
      },
      Math.max(50, Math.min(30_000, Math.floor(this.idleMs / 4))),
    )
    idleCheck.unref()
    return () => {
      stopWatching()
      stopHearing()
      clearInterval(idleCheck)
    }
  }
}
