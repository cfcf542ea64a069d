/**
 * Which upstream proxy each errand leaves through (issue #21): told by `open` or
 * `setUpstreamProxy`, read when its context opens, sealed with it when it parks, and taken back
 * from the sealed record when it resumes in a process that was told nothing since (a restart).
 * Values stay `Redacted`: this book is never shown, logged or journalled.
 *
 * @example
 * const book = new UpstreamBook()
 * book.set('task-1', proxy)
 * book.sealed('task-1') // the URL's text, for the sealed record only
 */
import { parseUpstreamProxy, type UpstreamProxy } from '@errands/runtime'
import { Either, Redacted } from 'effect'

/** The upstream proxies of the errands of one supervisor. @example new UpstreamBook().get('task-1') // undefined */
export class UpstreamBook {
  // A key with `undefined`: told "none" in this process, which outranks a sealed record's proxy.
  private readonly told = new Map<string, UpstreamProxy | undefined>()

  /** Whether this process was told anything about the errand's proxy. @example book.has('task-1') */
  has(errandId: string): boolean {
    return this.told.has(errandId)
  }

  /** The errand's proxy, if any. @example book.get('task-1') */
  get(errandId: string): UpstreamProxy | undefined {
    return this.told.get(errandId)
  }

  /** Records what the errand was told (`undefined`: none). @example book.set('task-1', undefined) */
  set(errandId: string, proxy: UpstreamProxy | undefined): void {
    this.told.set(errandId, proxy)
  }

  /** The errand closed: what it was told goes with it. @example book.delete('task-1') */
  delete(errandId: string): void {
    this.told.delete(errandId)
  }

  /** The text to seal in the errand's record. @example record.upstreamProxy = book.sealed('task-1') */
  sealed(errandId: string): string | undefined {
    const proxy = this.told.get(errandId)
    return proxy === undefined ? undefined : Redacted.value(proxy)
  }

  /**
   * On a resume from the sealed record: what this process was told since wins; otherwise the
   * record's proxy, which is remembered from here on (a record that no longer parses is dropped).
   *
   * @example
   * const proxy = book.restore('task-1', record.upstreamProxy)
   */
  restore(errandId: string, sealed: string | undefined): UpstreamProxy | undefined {
    if (this.told.has(errandId)) return this.told.get(errandId)
    const proxy = sealed === undefined ? undefined : Either.getOrUndefined(parseUpstreamProxy(sealed))
    this.told.set(errandId, proxy)
    return proxy
  }
}
