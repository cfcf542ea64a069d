/**
 * MCP in cluster mode (A2, issue #24): a tool call for an errand held by another host runs on
 * that host. The tools work on a live page, which cannot cross a process, so this host sends the
 * whole call — the tool's name and arguments — to the key's entity (the `mcpTool` RPC) and hands
 * the owner's result to the agent. Before, the tools that read or act on the page failed here
 * with "held by another host", and an agent was told to go elsewhere.
 *
 * @example
 * Layer.effect(McpRoute, clusterMcpRoute)
 */
import { Sharding } from '@effect/cluster'
import { McpRoute } from '@errands/host'
import { Effect } from 'effect'
import { Errand } from './ErrandEntity.ts'

/**
 * Where this host's MCP tool calls run: here for the keys it holds, at the owner for the others.
 *
 * @example
 * const route = yield* clusterMcpRoute
 */
export const clusterMcpRoute = Effect.gen(function* () {
  const sharding = yield* Sharding.Sharding
  const client = yield* Errand.client
  const ownedHere = (key: string) => sharding.hasShardId(sharding.getShardId(key as never, 'default'))
  return McpRoute.of({
    elsewhere: (key, tool, args) =>
      ownedHere(key)
        ? undefined
        : Effect.mapError(client(key).mcpTool({ tool, args }), (e) => ({
            _tag: 'PageError',
            message: `The host that holds this browser could not be reached (${e._tag}); it may be moving to another host — try again in a few seconds.`,
          })),
  })
})
