/**
 * The stateless endpoints (B3): `POST /v1/fetch` and `GET /v1/localhosts`. They need no session
 * key and touch no browser context.
 *
 * @example
 * const stateless = yield* Stateless
 * yield* stateless.fetch('http://127.0.0.1:3000/')
 */
import type { GuardPolicy } from '@errands/guard'
import { Context, Effect, Layer } from 'effect'
import type { BadRequest, BlockedByPolicy, PageError } from '../errors.ts'
import { guardedFetch, type FetchResult } from './fetch.ts'
import { scanLocalhosts, type LocalService } from './localhosts.ts'

/** What the stateless endpoints do. */
export interface StatelessShape {
  readonly fetch: (url: string) => Effect.Effect<FetchResult, BlockedByPolicy | BadRequest | PageError>
  readonly localhosts: Effect.Effect<ReadonlyArray<LocalService>>
}

/** How the stateless endpoints are set up. */
export interface StatelessOptions {
  readonly policy: GuardPolicy
  readonly localhostPorts: ReadonlyArray<number>
  readonly deadlineMs: number
}

/**
 * The stateless service (`@errands/host/Stateless`).
 *
 * @example
 * Stateless.layer({ policy, localhostPorts: [3000], deadlineMs: 10_000 })
 */
export class Stateless extends Context.Tag('@errands/host/Stateless')<Stateless, StatelessShape>() {
  /**
   * Fetch through the policy; scan the configured ports minus the policy's own ports.
   *
   * @example
   * Stateless.layer({ policy: defaultPolicy([{ port: 7777 }]), localhostPorts: [3000], deadlineMs: 10_000 })
   */
  static layer(options: StatelessOptions): Layer.Layer<Stateless> {
    return Layer.succeed(Stateless, {
      fetch: (url) => guardedFetch(url, { policy: options.policy, deadlineMs: options.deadlineMs }),
      localhosts: Effect.promise(() =>
        scanLocalhosts({ ports: options.localhostPorts, exclude: options.policy.ownPorts.map((p) => p.port) }),
      ),
    })
  }

  /**
   * A stand-in whose missing methods die loudly.
   *
   * @example
   * Stateless.layerTest({ localhosts: Effect.succeed([]) })
   */
  static layerTest(partial: Partial<StatelessShape>): Layer.Layer<Stateless> {
    return Layer.succeed(Stateless, {
      fetch: () => Effect.dieMessage('Stateless.layerTest: "fetch" was not provided'),
      localhosts: Effect.dieMessage('Stateless.layerTest: "localhosts" was not provided'),
      ...partial,
    })
  }
}
