/**
 * What this runner may hold open (K1): a chat's errand (a host's own), and a session's only while
 * the session key's shard is this runner's. The supervisor asks before it opens, resumes or heals
 * anything (`SupervisorOptions.holds`), so a face that forgot to route a call to the key's owner
 * gets `ErrandUnavailable('held-elsewhere')` — never a second context beside the owner's, whose
 * copy would take the owners row and seal over the real errand.
 *
 * @example
 * const holding = makeHolding()
 * startHost({ ..., cluster: { ..., holds: holding.holds } }) // bound once sharding is up: holding.bind
 */
import { Sharding } from '@effect/cluster'
import { isSessionConversation, sessionKeyOf } from '@errands/host'
import { Effect, Layer } from 'effect'
import { ownedHere } from './ownedHere.ts'

/** The guard, and the layer that binds it to this runner's sharding. */
export interface Holding {
  /** Whether this runner may hold the conversation's errand open now. */
  readonly holds: (conversationId: string) => boolean
  /** Binds `holds` to the sharding (built right after it, before any entity can run). */
  readonly bind: Layer.Layer<never, never, Sharding.Sharding>
}

/**
 * A guard for one runner.
 *
 * @example
 * makeHolding().holds('chat:c1') // true
 * makeHolding().holds('session:k1') // false until bound, then: is k1's shard here?
 */
export const makeHolding = (): Holding => {
  // Late-bound: the supervisor that asks is built below the sharding that answers (the entities
  // run on the supervisor, and park their errands into it before the shards go). Until it is bound
  // no session opens here, which is what a runner that holds no shard yet should do.
  let here: ((key: string) => boolean) | undefined
  return {
    holds: (conversationId) => {
      if (!isSessionConversation(conversationId)) return true
      const key = sessionKeyOf(conversationId)
      return key !== undefined && here?.(key) === true
    },
    bind: Layer.effectDiscard(
      Effect.map(Sharding.Sharding, (sharding) => {
        here = ownedHere(sharding)
      }),
    ),
  }
}
