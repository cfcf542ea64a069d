/**
 * The cluster's `Sessions` overlay (docs/adr/0053-data-only-verbs-cross-the-cluster.md): the session boundary the
 * faces go through, with each verb that must run where a session's errand is sent to its key's owner — one RPC of
 * the `Errand` entity, which the cluster delivers locally when the owner is this runner. Every other verb is this
 * host's own, and so is a chat's conversation (`chat:<id>`: never a cluster entity).
 *
 * Today one verb crosses: `setUpstreamProxy` (L7, K1). The single host's `SessionProxy` face, built over this
 * overlay, brings the errand up on its owner with the page verbs and sets the proxy there; built over the local
 * boundary on a runner that does not own the key, it opened a second context beside the owner's.
 *
 * @example
 * Layer.effect(Sessions, clusterSessions)
 */
import { parseSessionKey } from '@errands/host'
import { RuntimeError } from '@errands/runtime'
import { Sessions, type SessionsShape } from '@errands/sessions'
import { Effect, Either, Option } from 'effect'
import { Errand } from './ErrandEntity.ts'
import type { ErrandClient } from './forward.ts'

const SESSION = 'session:'

/** The session key of an agent's conversation (`session:<key>`), the entity id; none for a chat. */
const keyOf = (conversationId: string) =>
  conversationId.startsWith(SESSION)
    ? Either.getRight(parseSessionKey(conversationId.slice(SESSION.length)))
    : Option.none()

/** The owner's typed errors as they are; the cluster's own failures as the runtime's "unavailable". */
const OWNER_ERRORS = new Set(['AllBusy', 'ErrandUnavailable', 'InvalidRequest', 'UnknownConversation'])
const CONTEXT_ERRORS = new Set(['ContextNotFound', 'RuntimeError'])

type ProxyError = Effect.Effect.Error<ReturnType<SessionsShape['setUpstreamProxy']>>

/**
 * What a failure of a forwarded `setUpstreamProxy` becomes.
 *
 * @example
 * Effect.mapError(client(key).setUpstreamProxy({}), asProxyError)
 */
export const asProxyError = (e: { readonly _tag: string }): ProxyError =>
  OWNER_ERRORS.has(e._tag) || CONTEXT_ERRORS.has(e._tag)
    ? (e as ProxyError)
    : new RuntimeError({
        reason: 'unavailable',
        message:
          `The host that holds this session could not be reached (${e._tag}); it may be moving to another host — ` +
          'try again in a few seconds.',
      })

/**
 * The session boundary over the cluster: `local` with the owner's verbs sent to the owner.
 *
 * @example
 * const sessions = overlaySessions(local, yield* Errand.client)
 */
export const overlaySessions = (local: SessionsShape, client: ErrandClient): SessionsShape => ({
  ...local,
  setUpstreamProxy: (conversationId, proxy) =>
    Option.match(keyOf(conversationId), {
      onNone: () => local.setUpstreamProxy(conversationId, proxy),
      onSome: (key) =>
        Effect.mapError(client(key).setUpstreamProxy(proxy === undefined ? {} : { proxy }), asProxyError),
    }),
})

/**
 * The overlay as a service: over this host's own `Sessions` (the layer below it).
 *
 * @example
 * Layer.effect(Sessions, clusterSessions)
 */
export const clusterSessions = Effect.gen(function* () {
  const local = yield* Sessions
  const client: ErrandClient = yield* Errand.client
  return Sessions.of(overlaySessions(local, client))
})
