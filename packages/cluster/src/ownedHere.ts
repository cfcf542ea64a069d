/**
 * Whether this runner holds a session key's shard now, so its errand lives here: the one test
 * every face uses to decide between running here and asking the key's entity (issue #24).
 *
 * @example
 * const here = ownedHere(yield* Sharding.Sharding)
 * if (here(key)) return local.endpoint(conversationId)
 */
import type { Sharding } from '@effect/cluster'

/**
 * The test over this runner's sharding.
 *
 * @example
 * ownedHere(sharding)('task-42') // true when task-42's shard is this runner's
 */
export const ownedHere =
  (sharding: Sharding.Sharding['Type']) =>
  (key: string): boolean =>
    sharding.hasShardId(sharding.getShardId(key as never, 'default'))
