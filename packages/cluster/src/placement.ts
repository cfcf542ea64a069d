/**
 * Where errands are held, in cluster mode (issue #24): the owners table says which host holds
 * each open errand, and what cannot cross a process goes to that host. An MCP tool works on a
 * live page, so a tool call for an errand held by another host goes whole to the key's entity
 * (the `mcpTool` RPC) — the tool's name and arguments one way, the owner's result the other.
 * Before, the tools that read or act on the page failed on any other host with "held by another
 * host", and the live view listed an errand open elsewhere as parked.
 *
 * @example
 * Layer.effect(Placement, clusterPlacement)
 */
import { Sharding } from '@effect/cluster'
import { Placement } from '@errands/host'
import { Effect } from 'effect'
import { Errand } from './ErrandEntity.ts'
import { unreachable } from './forward.ts'
import { ownedHere } from './ownedHere.ts'
import { Owners } from './owners.ts'

/**
 * This host's placement: here for the keys whose shard it holds, at their owner for the others.
 *
 * @example
 * const placement = yield* clusterPlacement
 */
export const clusterPlacement = Effect.gen(function* () {
  const sharding = yield* Sharding.Sharding
  const client = yield* Errand.client
  const owners = yield* Owners
  const here = ownedHere(sharding)
  return Placement.of({
    tool: (key, tool, args) =>
      here(key) ? undefined : Effect.mapError(client(key).mcpTool({ tool, args }), unreachable),
    heldElsewhere: owners.heldElsewhere,
  })
})
