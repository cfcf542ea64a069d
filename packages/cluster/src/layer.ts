/**
 * Joining a cluster (issue #16, K1–K3): what `errands host` adds when `ERRANDS_DATABASE_URL` is
 * set. The host's engine gets the Postgres sealed store the peers share (`@errands/store-pg`)
 * with every debounced snapshot sealed there too, and an overlay over its services:
 *
 * - `@effect/cluster` sharding over Postgres (SQL runner and message storage, advisory shard
 *   locks): this host is a runner at `ERRANDS_CLUSTER_HOST:PORT`, its socket TLS-PSK under a key
 *   derived from the shared key file (transport.ts, ADR 0019);
 * - the `Errand` entity's handlers (owner.ts) registered with it;
 * - `Sessions` overlaid (sessions.ts): the boundary's verbs that must run on a session's owner go
 *   there, so the faces the host builds after the overlay (`SessionProxy`) reach the owner through it
 *   (docs/adr/0053-data-only-verbs-cross-the-cluster.md);
 * - `Browsing` replaced by the forwarder: every session call goes to its key's owner;
 * - the owners book and its healer: an open errand of a runner that died is asked to heal, so
 *   it comes back on its shard's new owner from its last sealed snapshot;
 * - `Placement` (placement.ts): which host holds each open errand, and what a face sends to that host
 *   that is not a session verb — an MCP tool call, a DevTools URL — the take-backs (revoke, sign out
 *   everywhere) on every runner, and health's cluster part (the runners, this runner's shards); the
 *   host builds its DevTools route and health over it, not replaced;
 * - `Person` whose card and Allow for a session run on its errand's owner, and whose asks of the
 *   person (help, a sign-in question's waiting) wait on that owner's errand machine (person.ts,
 *   askRpcs.ts), its take-backs through `Placement`;
 * - the person's settings in a table every host shares (personSettings.ts).
 *
 * Release order: the entities park their errands before the shards are let go, then the
 * owners book stops following, then the single host's engine shuts down as before.
 *
 * @example
 * const cluster = hostCluster(settings, { key })
 * startHost({ settings: hostSettings, cluster })
 */
import { RunnerAddress, Sharding } from '@effect/cluster'
import { PgClient } from '@effect/sql-pg'
import {
  Browsing,
  PageError,
  PersonWheel,
  Placement,
  Person,
  type BrowsingShape,
  type HostCluster,
} from '@errands/host'
import { driverUrl, PgSealedStore, toStoreError } from '@errands/store-pg'
import { Sessions } from '@errands/sessions'
import { Duration, Effect, Layer, Option, type Redacted, Schedule } from 'effect'
import type { ClusterSettings } from './config.ts'
import { clusterPlacement, selfAddress } from './placement.ts'
import { makeHolding } from './holding.ts'
import { forgetReleased } from './released.ts'
import { clusterSessions } from './sessions.ts'
import { Errand } from './ErrandEntity.ts'
import { ownedHere } from './ownedHere.ts'
import { forwardingBrowsing, type ErrandClient } from './forward.ts'
import { errandOwnerLayer } from './owner.ts'
import { clusterPerson } from './person.ts'
import { clusterWheel } from './wheel.ts'
import { makeOwnerBook, Owners } from './owners.ts'
import { PgSettings } from './personSettings.ts'
import { PgVault } from './vault.ts'
import { runnerPsk, tlsClusterSocket } from './transport.ts'

/** What else the cluster needs. */
export interface HostClusterOptions {
  /**
   * The device key the peers share: records one host seals, another opens (S1); the runner
   * socket's TLS key is derived from it (ADR 0019).
   */
  readonly key: Redacted.Redacted<Uint8Array>
}

export { selfAddress } from './placement.ts'

/** The sharding settings: the rebalance time follows `lockExpiryMs`. */
const shardingConfig = (s: ClusterSettings) => {
  const quarter = Math.max(500, Math.floor(s.lockExpiryMs / 4))
  return {
    runnerAddress: Option.some(RunnerAddress.make(s.host, s.port)),
    // One setting for where other runners reach this one and where it listens (K1): ERRANDS_CLUSTER_HOST:PORT.
    runnerListenAddress: Option.some(RunnerAddress.make(s.host, s.port)),
    shardsPerGroup: s.shards,
    shardLockExpiration: Duration.millis(s.lockExpiryMs),
    // The refresh interval is also @effect/cluster's deadline for every shard-lock call
    // (`effectiveInterval`: at most a third of the expiry). One refresh slower than that and the
    // runner drops every shard and interrupts its entities: a stalled Postgres or event loop on
    // a loaded machine then fails calls in flight (503). A third is the most slack it allows.
    shardLockRefreshInterval: Duration.millis(Math.max(500, Math.floor(s.lockExpiryMs / 3))),
    // Also how often unowned shards are tried: a dead runner's shards are taken this soon after
    // its locks expire.
    entityMessagePollInterval: Duration.millis(Math.max(500, Math.floor(quarter / 2))),
    refreshAssignmentsInterval: Duration.millis(Math.min(3_000, quarter)),
    runnerHealthCheckInterval: Duration.millis(quarter),
    entityMaxIdleTime: Duration.infinity,
    // Parking an errand as its shard leaves takes a few seconds with a slow page.
    entityTerminationTimeout: Duration.seconds(30),
  }
}

/** How often the cluster's own loops run (the healer, forgetting released keys): a quarter of the lock expiry. */
const loopMs = (s: ClusterSettings) => Math.max(500, Math.floor(s.lockExpiryMs / 4))

/** Orphans are asked to heal this often; the answer comes from whoever owns them now. */
const healer = (s: ClusterSettings) =>
  Effect.gen(function* () {
    const book = yield* Owners
    const client = yield* Errand.client
    // Side by side, each bounded: a shard that has no owner yet (its dead runner's lock not
    // expired) must not hold up the others; the next tick asks again.
    const tick = Effect.flatMap(book.orphans, (orphans) =>
      Effect.forEach(
        orphans,
        (orphan) =>
          client(orphan.key)
            .Heal({ from: orphan.runner })
            .pipe(
              // Reopening takes seconds on a loaded machine; the owner finishes it even when this gives up.
              Effect.timeout(Duration.millis(Math.max(30_000, s.lockExpiryMs * 2))),
              Effect.ignore,
            ),
        { concurrency: 'unbounded', discard: true },
      ),
    )
    yield* Effect.forkScoped(Effect.repeat(Effect.ignore(tick), Schedule.spaced(Duration.millis(loopMs(s)))))
  })

/** The page verbs in cluster mode; `onPage` (a function: no message carries it) runs only where the key is owned. */
const clusterBrowsing = Effect.gen(function* () {
  const local = yield* Browsing
  const sharding = yield* Sharding.Sharding
  const client: ErrandClient = yield* Errand.client
  const forwarding = forwardingBrowsing(local, client)
  const here = ownedHere(sharding)
  const onPage: BrowsingShape['onPage'] = (target, what, run) =>
    target._tag === 'main' || here(target.key)
      ? local.onPage(target, what, run)
      : Effect.fail(
          new PageError({
            reason: 'unavailable',
            message:
              `${what}: this session is held by another host of the cluster; connect to that host (see GET ` +
              `/health) or use the HTTP verbs, which reach it from here.`,
          }),
        )
  return Browsing.of({ ...forwarding, onPage })
})

/**
 * The host's cluster: the shared store and the overlay.
 *
 * @example
 * startHost({ settings, cluster: hostCluster(clusterSettings, { key }) })
 */
export const hostCluster = (s: ClusterSettings, options: HostClusterOptions): HostCluster => {
  // sslmode as libpq reads it, and a connection that fails says what failed (K2, L7), not only "SqlError".
  const sql = PgClient.layer({ url: driverUrl(s.databaseUrl), applicationName: 'errands-cluster' }).pipe(
    Layer.catchAll((e) => Layer.fail(toStoreError("connect to the cluster's tables")(e))),
  )
  const owners = Layer.effect(Owners, makeOwnerBook({ self: selfAddress(s), expiryMs: s.lockExpiryMs }))
  // Released first: a host leaving gracefully takes its rows out before it leaves the cluster,
  // so no peer mistakes the errands it is parking for orphans of a dead runner.
  const follow = Layer.scopedDiscard(
    Effect.flatMap(Effect.zip(Owners, Sessions), ([book, sessions]) => book.follow(sessions)),
  )
  const sharding = tlsClusterSocket({
    psk: runnerPsk(options.key),
    shardingConfig: shardingConfig(s),
    handshakeDeadlineMs: s.handshakeMs,
  })
  // The supervisor's guard, bound to the sharding as soon as it is built: before any entity runs here.
  const holding = makeHolding()
  // Built bottom-up, released top-down: the follower stops first, entities park before the shards go.
  const lower = holding.bind.pipe(Layer.provideMerge(sharding), Layer.provideMerge(owners), Layer.provideMerge(sql))
  // Where errands are held and what a face sends to their holder that is not a session verb (an MCP tool call, a
  // DevTools URL), the take-backs on every runner and health's cluster part: the faces built after the overlay
  // (DevTools' route, health) read it, and so does Person's take-back until Person is built after it too.
  const placement = Layer.effect(Placement, clusterPlacement(s))
  const overlay = Layer.mergeAll(
    Layer.effect(Browsing, clusterBrowsing),
    // The session boundary, its owner's verbs sent to the owner (docs/adr/0053-data-only-verbs-cross-the-cluster.md):
    // the faces built after the overlay (SessionProxy) reach the owner through it (L7, K1).
    Layer.effect(Sessions, clusterSessions),
    placement,
    Layer.effect(Person, clusterPerson).pipe(Layer.provide(placement)),
    // K4: the person's wheel of a session's errand is taken and driven on its owner.
    Layer.effect(PersonWheel, clusterWheel),
    errandOwnerLayer,
    Layer.scopedDiscard(healer(s)),
    // K2: a key released on its owner leaves this host's listings too.
    Layer.scopedDiscard(forgetReleased(loopMs(s))),
    follow,
  ).pipe(Layer.provide(lower))
  return {
    // The configured retention (S2): counted over the whole table, which every host shares.
    store: PgSealedStore.layer({ url: s.databaseUrl, key: options.key, ...s.retention }),
    // One always-allowed list and trust mode for every host (issue #24): each host's own file, an
    // "allow always" reached only the host that got it.
    settings: PgSettings.layer({ url: s.databaseUrl }),
    // One vault for every host (W1): a password saved through any host fills on the errand's owner.
    vault: PgVault.layer({ url: s.databaseUrl, key: options.key }),
    overlay: overlay as unknown as HostCluster['overlay'],
    // Loopback is open to contexts except the engine's own ports (G2): the runner socket is one.
    ownPorts: [s.port],
    holds: holding.holds,
  }
}
