/**
 * An errand's way out through an upstream proxy behind the egress (G3): the proxy it was opened
 * with or the runtime's default, and another one chained while it is open. The person's main
 * context never leaves through an errand's upstream proxy; a runtime without the egress chains
 * nothing.
 */
import { ContextNotFound, InvalidUpstreamProxy, type ContextId, type UpstreamProxy } from '@errands/runtime'
import { Effect, Redacted } from 'effect'
import type { BrowserContext } from 'playwright-core'
import type { EgressWiring } from './containment.ts'

/** What chaining needs of an open context. */
interface Chained {
  readonly kind: 'main' | 'errand'
  readonly context: BrowserContext
  readonly state: string
}

/**
 * One runtime's upstream proxies.
 *
 * @example
 * const upstream = new UpstreamChaining(egress, options.upstreamProxy)
 * egress?.assign(context, errandId, upstream.textOf(spec.upstreamProxy))
 */
export class UpstreamChaining {
  /**
   * @param wiring the runtime's egress (undefined: switched off)
   * @param fallback the runtime's default upstream proxy, for an errand that names none
   */
  constructor(
    private readonly wiring: EgressWiring | undefined,
    private readonly fallback: UpstreamProxy | undefined,
  ) {}

  /**
   * The proxy URL (a secret) an errand leaves through: `proxy`, else the runtime's default; undefined: none.
   *
   * @example
   * upstream.textOf(undefined) // the default's URL, or undefined
   */
  textOf(proxy: UpstreamProxy | undefined): string | undefined {
    const chosen = proxy ?? this.fallback
    return chosen === undefined ? undefined : Redacted.value(chosen)
  }

  /**
   * Chains the open context `entryOf` finds (at run time) through `proxy` from now on; its open
   * connections are closed so none keeps the old way out.
   *
   * @example
   * upstream.set(contextId, () => this.entryOf(contextId), proxy)
   */
  set(
    contextId: ContextId,
    entryOf: () => Chained | undefined,
    proxy: UpstreamProxy | undefined,
  ): Effect.Effect<void, ContextNotFound | InvalidUpstreamProxy> {
    const wiring = this.wiring
    if (wiring === undefined) {
      return Effect.fail(
        new InvalidUpstreamProxy({
          reason: 'unsupported',
          message: 'This browser runs without the egress, so it cannot chain an errand through a proxy.',
        }),
      )
    }
    return Effect.suspend((): Effect.Effect<void, ContextNotFound | InvalidUpstreamProxy> => {
      const entry = entryOf()
      if (entry === undefined || entry.state !== 'open') {
        return Effect.fail(
          new ContextNotFound({ reason: 'unknown-context', contextId, message: `no open context ${contextId}` }),
        )
      }
      if (entry.kind === 'main' || !wiring.setUpstream(entry.context, this.textOf(proxy))) {
        return Effect.fail(
          new InvalidUpstreamProxy({
            reason: 'unsupported',
            message: "The person's main context never leaves through an errand's upstream proxy.",
          }),
        )
      }
      return Effect.void
    })
  }
}
