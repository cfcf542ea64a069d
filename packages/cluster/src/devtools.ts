/**
 * The DevTools endpoint in cluster mode (A1, issue #24): a URL into a session's errand is minted
 * by the host that owns the errand, whichever host was asked. Minted by a host that does not own
 * it, the URL would have that host's supervisor open a second context for the errand beside the
 * owner's: two cookie jars drifting apart, each sealing over the other. So the asked host sends
 * the request to the key's entity, and the owner answers with a URL on its own port, which the
 * client connects to. Upgrades and connection counts stay each host's own: a client only ever
 * connects to the host that minted its URL.
 *
 * @example
 * Layer.effect(DevTools, clusterDevTools)
 */
import { Sharding } from '@effect/cluster'
import { DevTools, DevToolsUnavailable } from '@errands/devtools'
import { sessionKeyOf } from '@errands/host'
import { Effect } from 'effect'
import { Errand } from './ErrandEntity.ts'
import { ownedHere } from './ownedHere.ts'

/**
 * What the asked host says when the owner's answer is a failure of its own: the DevTools
 * endpoint's error as it is, the supervisor's typed ones as they are, anything else in words.
 */
const asEndpointError = (e: { readonly _tag: string; readonly message?: string }) =>
  e._tag === 'DevToolsUnavailable' ||
  e._tag === 'AllBusy' ||
  e._tag === 'ErrandUnavailable' ||
  e._tag === 'InvalidRequest' ||
  e._tag === 'UnknownConversation'
    ? (e as DevToolsUnavailable)
    : new DevToolsUnavailable({
        reason: 'browser-unreachable',
        message:
          `The host that holds this session could not mint a DevTools URL ` +
          `(${e._tag}${e.message === undefined ? '' : `: ${e.message.slice(0, 200)}`}); try again in a few seconds.`,
      })

/**
 * This host's DevTools endpoint, with URLs of sessions held elsewhere minted by their owner.
 *
 * @example
 * const devtools = yield* clusterDevTools
 */
export const clusterDevTools = Effect.gen(function* () {
  const local = yield* DevTools
  const sharding = yield* Sharding.Sharding
  const client = yield* Errand.client
  const here = ownedHere(sharding)
  return DevTools.of({
    ...local,
    endpoint: (conversationId) => {
      const key = sessionKeyOf(conversationId)
      // A chat's conversation is this host's own; a session's errand lives where its shard is.
      if (key === undefined || here(key)) return local.endpoint(conversationId)
      return Effect.mapError(client(key).devtools({}), asEndpointError)
    },
  })
})
