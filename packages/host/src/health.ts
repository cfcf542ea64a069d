/**
 * `GET /health` (V2): whether the host answers, which browser errands run in, open and parked
 * counts, the cap, and recent health messages in words — the supervisor's and the host's own
 * (such as "the DevTools browser cannot make contexts; errands run here", said once, R2).
 *
 * @example
 * const health = yield* HostHealth
 * yield* health.note('warning', 'The DevTools browser at ws://10.0.0.5:9222 cannot make browser contexts …')
 */
import { HealthLog, Supervisor, type HealthMessage } from '@errands/supervisor'
import { Clock, Context, Effect, Layer } from 'effect'

/** Where errands run right now. */
export interface RuntimeReport {
  /** `chromium` (our own browser here) or `cdp` (a DevTools browser elsewhere). */
  readonly kind: string
  readonly where: 'local' | 'remote'
  /** The DevTools address as scheme/host/port, when one was configured. */
  readonly remote?: { readonly endpoint: string; readonly state: 'connected' | 'fallback' | 'disconnected' } | undefined
}

/** The health report. */
export interface HealthReport {
  readonly ok: boolean
  readonly runtime: RuntimeReport
  readonly open: number
  readonly parked: number
  readonly cap: number
  readonly sessions: number
  readonly messages: ReadonlyArray<HealthMessage>
  /** Several hosts as one (issue #16): the runners and which shards this one holds. */
  readonly cluster?: ClusterReport | undefined
}

/** What health says about the cluster this host runs in. */
export interface ClusterReport {
  /** This runner's address (`host:port`). */
  readonly runner: string
  /** Every runner the cluster knows, alive or not. */
  readonly runners: ReadonlyArray<{ readonly address: string; readonly healthy: boolean; readonly alive: boolean }>
  /** Shards of the cluster, and those this runner holds now. */
  readonly shards: { readonly total: number; readonly here: number }
}

/** What the health service does. */
export interface HostHealthShape {
  readonly report: Effect.Effect<HealthReport>
  /** Adds one message of the host's own (the caller says it once). */
  readonly note: (level: HealthMessage['level'], text: string) => Effect.Effect<void>
}

/**
 * The host's health service (`@errands/host/HostHealth`).
 *
 * @example
 * Effect.flatMap(HostHealth, (h) => h.report)
 */
export class HostHealth extends Context.Tag('@errands/host/HostHealth')<HostHealth, HostHealthShape>() {
  /**
   * Health over the supervisor, with `describe` saying where errands run.
   *
   * @example
   * HostHealth.layer(() => ({ kind: 'chromium', where: 'local' }))
   */
  static layer(describe: () => RuntimeReport, notes: HealthLog = new HealthLog(50)): Layer.Layer<HostHealth, never, Supervisor> {
    return Layer.effect(HostHealth, makeHostHealth(describe, notes))
  }

  /**
   * A fixed report, for router tests.
   *
   * @example
   * HostHealth.layerTest({ ok: true, runtime: { kind: 'memory', where: 'local' }, open: 0, parked: 0, cap: 2, sessions: 0, messages: [] })
   */
  static layerTest(report: HealthReport): Layer.Layer<HostHealth> {
    return Layer.succeed(HostHealth, { report: Effect.succeed(report), note: () => Effect.void })
  }
}

/**
 * Builds the health service.
 *
 * @example
 * const health = yield* makeHostHealth(() => ({ kind: 'chromium', where: 'local' }), new HealthLog(50))
 */
export const makeHostHealth = (describe: () => RuntimeReport, notes: HealthLog): Effect.Effect<HostHealthShape, never, Supervisor> =>
  Effect.gen(function* () {
    const supervisor = yield* Supervisor
    return {
      report: Effect.gen(function* () {
        const capacity = yield* supervisor.capacity
        const views = yield* supervisor.list
        const messages = [...(yield* supervisor.health), ...notes.recent()].sort((a, b) => a.at - b.at).slice(-50)
        return {
          ok: true,
          runtime: describe(),
          open: capacity.open,
          parked: capacity.parked,
          cap: capacity.limit,
          sessions: views.filter((v) => v.conversationId.startsWith('session:') && v.state !== 'closed').length,
          messages,
        }
      }),
      note: (level, text) => Effect.map(Clock.currentTimeMillis, (at) => notes.add({ at, level, text })),
    }
  })
