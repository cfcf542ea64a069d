/**
 * Where errands are held (issue #24). On one host, here: every errand is this host's, and an MCP
 * tool drives the errand's page through `Browsing.onPage`. In a cluster an errand may be held by
 * another host; the cluster replaces {@link Placement} with one that knows which (its owners
 * table) and sends what cannot cross a process to the owner: an MCP tool call, whose page work
 * runs there with `toolRunner` (mcp.ts).
 *
 * @example
 * const placement = yield* Placement
 * placement.tool(key, 'browser_snapshot', {}) // undefined: run it here
 */
import type { EngineFailure, ToolResult } from '@errands/mcp'
import { Context, Effect, Layer } from 'effect'
import type { SessionKey } from './sessionKey.ts'

/** The service. */
export interface PlacementShape {
  /** A tool call for `key` run by the host that holds its errand, or `undefined` to run it here. */
  readonly tool: (key: SessionKey, tool: string, args: unknown) => Effect.Effect<ToolResult, EngineFailure> | undefined
  /** Errands open on other hosts now: conversation id → the host (runner address) that holds it. */
  readonly heldElsewhere: Effect.Effect<ReadonlyMap<string, string>>
}

/** Where errands are held. @example Layer.succeed(Placement, Placement.here) */
export class Placement extends Context.Tag('@errands/host/Placement')<Placement, PlacementShape>() {
  /** Everything is here (a single host). @example Placement.layer */
  static readonly layer: Layer.Layer<Placement> = Layer.succeed(Placement, {
    tool: () => undefined,
    heldElsewhere: Effect.succeed(new Map()),
  })
}
