/**
 * Where errands are held (issue #24), and what a face sends to the host that holds one when it is not a session
 * verb (docs/adr/0053-data-only-verbs-cross-the-cluster.md). On one host everything is here: no tool, URL or
 * take-back goes anywhere else, and health has no cluster part. In a cluster an errand may be held by another host;
 * the cluster provides {@link Placement} (its owners table, one typed RPC each) under the faces, which are the
 * single host's code built over it:
 *
 * - an MCP tool call, whose page work runs on the owner with `toolRunner` (mcp.ts): its refs are the owner's
 *   snapshots', so the call crosses, not the page;
 * - a DevTools URL, minted by the owner: a client's WebSocket must reach the port of the host whose Chromium holds
 *   the context, and the URL's token is that host's listener's (`GET /v1/session/devtools`, routes.ts);
 * - the person's permission card and Allow for a session's errand (L2), read and lent where the errand is, an
 *   Allow carrying this host's main-context sign-in (the browser the person pressed Allow in);
 * - the take-backs on every runner (revoke a site, sign out everywhere: L5), a verb of the whole cluster;
 * - the cluster's part of health (its runners, this runner's shards), merged into this host's report (health.ts).
 *
 * @example
 * const placement = yield* Placement
 * placement.tool(key, 'browser_snapshot', {}) // undefined: run it here
 */
import type { DevToolsEndpoint, DevToolsUnavailable } from '@errands/devtools'
import type { LendFailed, LendingError, LendReport, Permission, TakeBackReport } from '@errands/lending'
import type { EngineFailure, ToolResult } from '@errands/mcp'
import type { SupervisorError } from '@errands/sessions'
import { Context, Effect, Layer } from 'effect'
import type { ClusterReport } from './health.ts'
import type { SessionKey } from './sessionKey.ts'

/** What the other hosts took back (their open errands'), to add to this host's own report. */
export type TakenElsewhere = Pick<TakeBackReport, 'errands' | 'dropped'>

/** The service. */
export interface PlacementShape {
  /** A tool call for `key` run by the host that holds its errand, or `undefined` to run it here. */
  readonly tool: (key: SessionKey, tool: string, args: unknown) => Effect.Effect<ToolResult, EngineFailure> | undefined
  /**
   * A DevTools URL into `key`'s errand minted by the host that holds it (brought up there already), or `undefined`
   * to mint it here.
   */
  readonly devtools: (
    key: SessionKey,
  ) => Effect.Effect<DevToolsEndpoint, DevToolsUnavailable | SupervisorError> | undefined
  /** The permission card for `site` in `key`'s errand, read where the errand is, or `undefined` to read it here. */
  readonly ask: (key: SessionKey, site: string) => Effect.Effect<Permission, LendingError> | undefined
  /**
   * The person's Allow of `site` for `key`'s errand: this host's main-context sign-in for it lent into the errand
   * where it is, or `undefined` to lend it here.
   */
  readonly allow: (key: SessionKey, site: string) => Effect.Effect<LendReport, LendingError> | undefined
  /** Errands open on other hosts now: conversation id → the host (runner address) that holds it. */
  readonly heldElsewhere: Effect.Effect<ReadonlyMap<string, string>>
  /**
   * Every other host takes back what it has open: `site` (a revoke) or every site (`null`, signing out everywhere).
   * This host's own errands and the sealed records are the caller's (lending's); fails when a host cannot be
   * reached.
   */
  readonly takeBack: (site: string | null) => Effect.Effect<TakenElsewhere, LendFailed>
  /** The cluster this host runs in, for health (`undefined`: a single host). */
  readonly cluster: Effect.Effect<ClusterReport | undefined>
}

/** Where errands are held. @example Layer.succeed(Placement, Placement.here) */
export class Placement extends Context.Tag('@errands/host/Placement')<Placement, PlacementShape>() {
  /** Everything is here (a single host). @example Placement.here.tool(key, 'browser_snapshot', {}) // undefined */
  static readonly here: PlacementShape = {
    tool: () => undefined,
    devtools: () => undefined,
    ask: () => undefined,
    allow: () => undefined,
    heldElsewhere: Effect.succeed(new Map()),
    takeBack: () => Effect.succeed({ errands: [], dropped: [] }),
    cluster: Effect.succeed(undefined),
  }

  /** A single host's placement. @example Placement.layer */
  static readonly layer: Layer.Layer<Placement> = Layer.succeed(Placement, Placement.here)
}

/**
 * A take-back everywhere (L5): `here` (this host's lending: its open errands and every sealed record), then every
 * other host's open errands through `placement`, in one report.
 *
 * @example
 * const report = yield* everywhere(placement, 'shop.example', lending.revoke('shop.example'))
 */
export const everywhere = <E>(
  placement: PlacementShape,
  site: string | null,
  here: Effect.Effect<TakeBackReport, E>,
): Effect.Effect<TakeBackReport, E | LendFailed> =>
  Effect.flatMap(here, (report) =>
    Effect.map(placement.takeBack(site), (there) => ({
      sites: report.sites,
      errands: [...report.errands, ...there.errands],
      dropped: [...new Set([...report.dropped, ...there.dropped])].sort(),
    })),
  )
