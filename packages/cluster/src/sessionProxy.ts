/**
 * `PUT /v1/session/proxy` in cluster mode (L7, K1): the change goes to the errand's entity, on
 * whichever runner holds it (this one included — the cluster delivers that locally), and the owner
 * runs the single host's `SessionProxy` (the session service's `setUpstreamProxy`, ADR 0044) on the
 * one context there is. Built on the asked host's own services, the proxy change opened a second
 * context there: that copy took the owners row, and when its host stopped gracefully it sealed an
 * empty snapshot over the real errand and deleted the row, so a later SIGKILL of the owner healed
 * nothing and the cookies were gone.
 *
 * @example
 * Layer.effect(SessionProxy, clusterSessionProxy)
 */
import { SessionProxy } from '@errands/host'
import { Effect } from 'effect'
import { Errand } from './ErrandEntity.ts'
import { asBrowsingError } from './forward.ts'

/**
 * The session proxy, set by each session's owner.
 *
 * @example
 * const proxy = yield* clusterSessionProxy
 * yield* proxy.set(key, Redacted.make('http://proxy.example:3128')) // { upstreamProxy: 'set' }
 */
export const clusterSessionProxy = Effect.gen(function* () {
  const client = yield* Errand.client
  return SessionProxy.of({
    set: (key, proxy) => Effect.mapError(client(key).setProxy(proxy === undefined ? {} : { proxy }), asBrowsingError),
  })
})
