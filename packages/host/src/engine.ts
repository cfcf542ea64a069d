/**
 * The host's engine: the same parts as `@errands/engine`'s `engineLayer` (local Chromium, the
 * sealed store under `<dataDir>/store`, the supervisor), plus what the host adds — lending and
 * the person's settings (the supervisor is built with lending's seed, L1), a remote DevTools
 * browser when one is configured (R2), and the host's own services (page verbs, the person's
 * calls, health, the stateless endpoints).
 *
 * The containment policy blocks the host's own port for every context (G2).
 *
 * Layers release in reverse order: the host's services first (screencasts stop), then lending,
 * then the supervisor (every open errand parked, E5), then the store and the browsers — no
 * Chromium process outlives the scope.
 *
 * @example
 * const layer = hostEngineLayer({ settings, port: 7777, log: console.error, notes: new HealthLog(50) })
 */
import { DevTools } from '@errands/devtools'
import { withMachineAddresses } from '@errands/egress'
import { Chromium, engineOver } from '@errands/engine'
import { defaultPolicy, type GuardPolicy } from '@errands/guard'
import type { Lending, Settings, SettingsError } from '@errands/lending'
import { Runtime, type RuntimeShape } from '@errands/runtime'
import { ChromiumRuntime, makeRoutedRuntime, type ChromiumRuntimeOptions } from '@errands/runtime-chromium'
import type { SealedStore, StoreConfigError, StoreError } from '@errands/store'
import type { HealthLog, Sessions } from '@errands/sessions'
import { InspectorSwitch, openInspectorRelay, type Supervisor, type SupervisorOptions } from '@errands/supervisor'
import { join } from 'node:path'
import { Vault, type VaultUnavailable } from '@errands/passwords'
import { Context, Effect, Layer } from 'effect'
import { Browsing } from './browsing/Browsing.ts'
import { makeBrowsing } from './browsing/make.ts'
import { SessionProxy } from './browsing/SessionProxy.ts'
import type { HostSettings } from './config.ts'
import { HostHealth, makeHostHealth, type RuntimeReport } from './health.ts'
import { Placement } from './placement.ts'
import { makePerson } from './person/make.ts'
import { Person } from './person/Person.ts'
import { Stateless } from './stateless/Stateless.ts'

/** The runtime errands use (its pages are its page verbs, `runtime.pages`) and where it runs. */
export interface HostBrowserShape {
  readonly runtime: RuntimeShape
  readonly describe: () => RuntimeReport
}

/**
 * The host's browser (`@errands/host/HostBrowser`): our own Chromium, or the routed runtime
 * over a remote DevTools browser.
 *
 * @example
 * const { describe } = yield* HostBrowser
 */
export class HostBrowser extends Context.Tag('@errands/host/HostBrowser')<HostBrowser, HostBrowserShape>() {}

/** How to assemble the host's engine. */
export interface HostEngineOptions {
  readonly settings: HostSettings
  /** The port actually listened on (the policy blocks it for every context). */
  readonly port: number
  /** Other ports of ours no context may reach (a live view, the Daily Browser door …). */
  readonly extraOwnPorts?: ReadonlyArray<number> | undefined
  readonly log: (line: string) => void
  /** The host's own health messages (the remote fallback is said here). */
  readonly notes: HealthLog
  /** Extra options for our own Chromium (tests: a binary, no warm spare …). */
  readonly chromium?: Partial<Omit<ChromiumRuntimeOptions, 'dataDir' | 'policy'>> | undefined
  /** Several hosts as one (issue #16): set by `@errands/cluster` when `ERRANDS_DATABASE_URL` is. */
  readonly cluster?: HostCluster | undefined
  /**
   * Wraps the runtime every part of the host uses, to watch its seam (tests count the calls a verb
   * makes: docs/adr/0049-runtime-owns-the-page.md). Unset: the runtime as it is.
   */
  readonly observeRuntime?: ((runtime: RuntimeShape) => RuntimeShape) | undefined
  /**
   * Hears every line of the supervisor's journal (its inputs: the asks of a person and their ends among them, with
   * names, sites and times only, L7). Unset: the host keeps no journal.
   */
  readonly journal?: SupervisorOptions['journal']
}

/**
 * What a cluster changes in the host (`@errands/cluster` builds it; the host does not import
 * it): the sealed store and the person's settings the peers share instead of the data dir's
 * files, every debounced snapshot
 * sealed there too (H1, so a peer heals this host's errands when it dies), and an overlay built
 * over the single host's services whose `Browsing`, `Person`, `Placement` and `Sessions` replace theirs — session
 * calls reach the key's owner; a DevTools URL and an MCP tool call of an errand held elsewhere, the take-backs on
 * every runner and health's cluster part go through its `Placement`; the faces built after it (`SessionProxy`,
 * `HostHealth`) act through its `Sessions` and `Placement` (docs/adr/0053-data-only-verbs-cross-the-cluster.md) — and
 * the guard (`holds`) that
 * keeps the supervisor from opening an errand another runner owns.
 *
 * @example
 * hostEngineLayer({ ...options, cluster: { store, overlay } })
 */
export interface HostCluster {
  readonly store: Layer.Layer<SealedStore, StoreError | StoreConfigError>
  /** The person's settings every host shares (issue #24), instead of this host's settings.json. */
  readonly settings: Layer.Layer<Settings, SettingsError>
  /** The person's passwords every host shares (W1), instead of this host's `passwords.sealed`. */
  readonly vault: Layer.Layer<Vault, VaultUnavailable>
  readonly overlay: Layer.Layer<Browsing | Person | Placement | Sessions, unknown, Exclude<HostServices, SessionProxy>>
  /** The runner's own port on this machine: no context may reach it (G2). */
  readonly ownPorts: ReadonlyArray<number>
  /**
   * Whether this runner may hold a conversation's errand open now (its shard is here, K1): the
   * supervisor asks it before it opens, resumes or heals anything, so no face can open a second
   * context beside the owner's.
   */
  readonly holds: (conversationId: string) => boolean
}

/** Everything the host's engine provides. */
export type HostServices =
  | Browsing
  | Person
  | HostHealth
  | Stateless
  | HostBrowser
  | Runtime
  | Chromium
  | Supervisor
  | Sessions
  | SealedStore
  | Lending
  | Settings
  | InspectorSwitch
  | DevTools
  | SessionProxy
  | Placement

/**
 * The containment policy of a host on `port` (plus other ports of its own), with the machine's
 * own interface addresses kept current (G2: pages, `/v1/fetch`, `/v1/navigate` and the egress
 * all judge by this one policy).
 *
 * @example
 * hostPolicy(7777).ownPorts // [{ host: '127.0.0.1', port: 7777 }]
 */
export const hostPolicy = (port: number, extra: ReadonlyArray<number> = []): GuardPolicy =>
  withMachineAddresses(defaultPolicy([port, ...extra].map((p) => ({ host: '127.0.0.1', port: p }))))

/** A runtime report with the egress's (issue #21) and the dialogs' (issue #22) counts: counts only, X1. */
const withCounts = (report: RuntimeReport, chromium: ChromiumRuntime, deadlineMs: number): RuntimeReport => {
  const stats = chromium.egress?.stats()
  return {
    ...report,
    dialogs: { dismissedUnanswered: chromium.dialogs.dismissedUnanswered, deadlineMs },
    passwords: chromium.secrets.counts(),
    egress: {
      on: stats !== undefined,
      remoteBypasses: report.remote?.state === 'connected',
      allowed: stats?.allowed ?? 0,
      refused: stats?.refused ?? 0,
      byRule: { ...stats?.byRule },
      lastRefusedAt: stats?.lastRefusal?.at ?? null,
    },
  }
}

/** A DevTools endpoint on loopback (`ERRANDS_CDP_URL` pointing at this machine): its port. */
const loopbackPort = (url: string | undefined): Array<number> => {
  if (url === undefined) return []
  try {
    const u = new URL(url)
    const port = Number(u.port || (u.protocol === 'https:' || u.protocol === 'wss:' ? 443 : 80))
    return /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i.test(u.hostname) ? [port] : []
  } catch {
    return []
  }
}

/**
 * The host's engine as one layer.
 *
 * @example
 * Effect.provide(program, hostEngineLayer(options))
 */
export const hostEngineLayer = (options: HostEngineOptions) => hostEngineOn(options)

// No Chromium of the engine listens on a port (A1, ADR 0016): the DevTools proxy rides the
// engine's own pipe, so there is no browser port to put into the policy.
const hostEngineOn = (options: HostEngineOptions) => {
  const { settings, log, notes } = options
  const dataDir = settings.supervisor.dataDir
  // The inspector's port is ours too, on or off (G2): no context may read the errands' states.
  const policy = hostPolicy(options.port, [
    ...(options.extraOwnPorts ?? []),
    settings.inspector.port,
    ...loopbackPort(settings.cdpUrl),
    ...(options.cluster?.ownPorts ?? []),
  ])
  const deadlineMs = settings.pageDeadlineMs

  const upstreamProxy = options.chromium?.upstreamProxy ?? settings.upstreamProxy
  const chromium = Layer.scoped(
    Chromium,
    ChromiumRuntime.scoped({
      ...options.chromium,
      dataDir,
      policy,
      log,
      deadlineMs,
      upstreamProxy,
      files: settings.files,
      indexedDbMaxBytes: settings.indexedDbMaxBytes,
    }),
  )
  const local: RuntimeReport = { kind: 'chromium', where: 'local' }
  const cdpUrl = settings.cdpUrl
  const browser =
    cdpUrl === undefined
      ? Layer.effect(
          HostBrowser,
          Effect.map(
            Chromium,
            (c): HostBrowserShape => ({ runtime: c, describe: () => withCounts(local, c, deadlineMs) }),
          ),
        )
      : Layer.scoped(
          HostBrowser,
          Effect.flatMap(Chromium, (c) =>
            Effect.map(
              makeRoutedRuntime(c, { cdpUrl, policy, log, deadlineMs, notes }),
              (r): HostBrowserShape => ({
                runtime: r,
                describe: () => withCounts(r.describe(), c, deadlineMs),
              }),
            ),
          ),
        )
  const runtime = Layer.effect(
    Runtime,
    Effect.map(HostBrowser, (b) => options.observeRuntime?.(b.runtime) ?? b.runtime),
  ).pipe(Layer.provideMerge(browser), Layer.provideMerge(chromium))

  // The XState inspector switch (V3, docs/inspector.md) sees every errand actor; it outlives the
  // supervisor, so it still shows the errands being parked at shutdown.
  const inspector = InspectorSwitch.layer({
    open: () =>
      openInspectorRelay({ port: settings.inspector.port, frameAncestors: [`http://127.0.0.1:${options.port}`] }),
    on: settings.inspector.on,
    log,
  })
  const engine = Layer.unwrapEffect(
    Effect.map(InspectorSwitch, (i) =>
      engineOver(runtime, {
        settings: settings.supervisor,
        supervisor: {
          inspect: i.inspect,
          sealSnapshots: options.cluster !== undefined,
          holds: options.cluster?.holds,
          journal: options.journal,
        },
        store: options.cluster?.store,
        personSettings: options.cluster?.settings,
      }),
    ),
  ).pipe(Layer.provideMerge(inspector))

  // W1: the person's passwords, sealed beside the errands under the store's device key (a
  // cluster's: one row every host shares). The page verbs read it where the errand is (a fill).
  const vault = options.cluster?.vault ?? Vault.layerFile({ dir: join(dataDir, 'store') })
  const services = Layer.mergeAll(
    Layer.scoped(Browsing, makeBrowsing({ deadlineMs, files: settings.files })),
    Layer.effect(Person, makePerson),
    Layer.effect(
      HostHealth,
      Effect.flatMap(HostBrowser, (b) => makeHostHealth(b.describe, notes)),
    ),
    Stateless.layer({ policy, localhostPorts: settings.localhostPorts, deadlineMs }),
    // Every errand is here; a cluster knows which are held elsewhere and routes to them.
    Placement.layer,
    // A DevTools endpoint per errand at /devtools/<token> on the host's own port (A1).
    // Clients may name files in their errand's own files folder only (#27).
    // Its limits come from the one config pass (settings.devtools), not from the environment again.
    DevTools.layer({
      baseUrl: () => `ws://127.0.0.1:${options.port}`,
      policy,
      log,
      idleMs: settings.supervisor.idleMs,
      ...settings.devtools,
    }),
  ).pipe(Layer.provideMerge(vault))
  const single = services.pipe(Layer.provideMerge(engine))
  const below = options.cluster === undefined ? single : options.cluster.overlay.pipe(Layer.provideMerge(single))
  // The faces built after the overlay, over the page verbs, the session boundary and the placement — in a cluster, the
  // overlaid ones (docs/adr/0053-data-only-verbs-cross-the-cluster.md): PUT /v1/session/proxy (issue #21) brings the
  // errand up and re-chains it on its owner; health merges the cluster's part (its runners, this runner's shards)
  // into this host's report. The health below the overlay, over the same notes, is the one the cluster's own parts
  // write to (an errand healed here, one that could not be read).
  const after = Layer.mergeAll(
    SessionProxy.layer,
    Layer.effect(
      HostHealth,
      Effect.flatMap(HostBrowser, (b) => makeHostHealth(b.describe, notes)),
    ),
  )
  return after.pipe(Layer.provideMerge(below))
}
