/**
 * Limits failed pairing-code redeems per **source** — the peer address and the Origin together
 * (D1, issue 23's "rate limits per source": every local process is 127.0.0.1, so the address alone would
 * put the person's extension in the same bucket as any guesser) — over a sliding window. Time is
 * passed in (the service's clock), so tests step it.
 *
 * While a source is limited, even a correct code from it is refused: otherwise a guesser could
 * keep guessing and learn which guess got through. The global limit stops a spread-out guess
 * (many sources) but holds back only sources that have failed themselves in the window: a
 * source with no failure — the person's extension typing the code it was shown — is never
 * locked out by somebody else's guesses (the person's code always works).
 *
 * @example
 * const limiter = new FailureLimiter({ perPeer: 5, global: 20, windowMs: 60_000 })
 * limiter.failed('127.0.0.1', now)
 * limiter.retryAfterMs('127.0.0.1', now) // 0 while under the limit
 */
export class FailureLimiter {
  private readonly peers = new Map<string, Array<number>>()
  private global: Array<number> = []

  constructor(
    private readonly limits: { readonly perPeer: number; readonly global: number; readonly windowMs: number },
  ) {}

  /** Records one failure of `peer` at `now`. */
  failed(peer: string, now: number): void {
    this.prune(now)
    const list = this.peers.get(peer) ?? []
    list.push(now)
    this.peers.set(peer, list)
    this.global.push(now)
  }

  /** How long `peer` must wait before trying again: 0 when it may try now. */
  retryAfterMs(peer: string, now: number): number {
    this.prune(now)
    const own = this.peers.get(peer) ?? []
    if (own.length === 0) return 0
    return Math.max(this.waitFor(own, this.limits.perPeer, now), this.waitFor(this.global, this.limits.global, now))
  }

  private waitFor(list: ReadonlyArray<number>, limit: number, now: number): number {
    if (list.length < limit) return 0
    // The oldest failure that keeps the count at the limit must leave the window first.
    return list[list.length - limit]! + this.limits.windowMs - now
  }

  private prune(now: number): void {
    const from = now - this.limits.windowMs
    this.global = this.global.filter((t) => t > from)
    for (const [peer, list] of this.peers) {
      const kept = list.filter((t) => t > from)
      if (kept.length === 0) this.peers.delete(peer)
      else this.peers.set(peer, kept)
    }
  }
}
