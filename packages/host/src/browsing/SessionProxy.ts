/**
 * `PUT /v1/session/proxy` (issue #21): names the upstream proxy a session's errand leaves through
 * from now on, or none (`null`: the host's default `ERRANDS_UPSTREAM_PROXY`, if any). The errand
 * is brought up like on every verb — opened with the proxy when this is the session's first call —
 * and re-chained at once; its open connections are closed so none keeps the old way out. The
 * answer says whether a proxy is set, never which (L7).
 *
 * @example
 * yield* sessionProxy.set(key, Redacted.make('http://user:pass@proxy.example:3128')) // { upstreamProxy: 'set' }
 */
import type { UpstreamProxy } from '@errands/runtime'
import { Sessions } from '@errands/sessions'
import { Context, Effect, Layer } from 'effect'
import { PageError } from '../errors.ts'
import { conversationIdOf, type SessionKey } from '../sessionKey.ts'
import { Browsing, sessionTarget, type BrowsingError } from './Browsing.ts'

/** What the route answers: whether the errand now has a proxy of its own. */
export interface SessionProxyView {
  readonly upstreamProxy: 'set' | 'none'
}

/** The operation behind the route. */
export interface SessionProxyShape {
  readonly set: (key: SessionKey, proxy: UpstreamProxy | undefined) => Effect.Effect<SessionProxyView, BrowsingError>
}

/**
 * The session proxy service (`@errands/host/SessionProxy`), over the page verbs and the session
 * service. The engine builds it after a cluster's overlay, so in a cluster both are the overlaid ones
 * and the change runs on the errand's owner (K1; docs/adr/0053-data-only-verbs-cross-the-cluster.md):
 * built over a non-owner's own services, it once opened a second context beside the owner's.
 *
 * @example
 * SessionProxy.layer // needs Browsing and Sessions
 */
export class SessionProxy extends Context.Tag('@errands/host/SessionProxy')<SessionProxy, SessionProxyShape>() {
  /** Over the host's own verbs and session service. @example Layer.provide(SessionProxy.layer, services) */
  static readonly layer: Layer.Layer<SessionProxy, never, Browsing | Sessions> = Layer.effect(
    SessionProxy,
    Effect.gen(function* () {
      const browsing = yield* Browsing
      const sessions = yield* Sessions
      return {
        set: (key, proxy) =>
          Effect.gen(function* () {
            // Up first (opened with the proxy on a first call), so the change lands on a live context.
            yield* browsing.tabs(sessionTarget(key, proxy))
            yield* sessions.setUpstreamProxy(conversationIdOf(key), proxy).pipe(
              // Parked meanwhile: the proxy is the errand's and is taken when it resumes.
              Effect.catchTag('ContextNotFound', () => Effect.void),
              Effect.catchTag('RuntimeError', () =>
                Effect.fail(
                  new PageError({
                    reason: 'unavailable',
                    message: "The session's browser did not take the proxy; try again.",
                  }),
                ),
              ),
            )
            return { upstreamProxy: proxy === undefined ? 'none' : 'set' } as const
          }),
      }
    }),
  )

  /** A stand-in whose `set` dies loudly unless given. @example SessionProxy.layerTest({}) */
  static layerTest(partial: Partial<SessionProxyShape>): Layer.Layer<SessionProxy> {
    return Layer.succeed(SessionProxy, {
      set: () => Effect.dieMessage('SessionProxy.layerTest: "set" was not provided'),
      ...partial,
    })
  }
}
