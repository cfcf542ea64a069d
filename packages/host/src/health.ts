/**
 * Health in two doors (V2, X1). `GET /health` is open: liveness, which kind of browser errands
 * run in, open and parked counts, the cap and the cluster's runners — nothing that names a
 * conversation, a session key or an address that is authority (the remote DevTools endpoint).
 * `GET /v1/person/health` (the person's token) is the whole report: the runtime's endpoint and
 * the recent health messages in words — the supervisor's, which name their conversation, and
 * the host's own (such as "the DevTools browser cannot make contexts; errands run here", R2).
 * The open answer is *derived* from the full one ({@link publicHealth}) by listing what may go
 * out, so a field added to the report later stays behind the token until someone says otherwise.
 *
 * @example
 * const health = yield* HostHealth
 * yield* health.note('warning', 'The DevTools browser at ws://10.0.0.5:9222 cannot make browser contexts …')
 */
import { HealthLog, Sessions, type HealthMessage } from '@errands/sessions'
import { Clock, Context, Effect, Layer, Option } from 'effect'
import { Placement } from './placement.ts'

/** Where errands run right now. */
export interface RuntimeReport {
  /** `chromium` (our own browser here) or `cdp` (a DevTools browser elsewhere). */
  readonly kind: string
  readonly where: 'local' | 'remote'
  /** The DevTools address as scheme/host/port, when one was configured. */
  readonly remote?: { readonly endpoint: string; readonly state: 'connected' | 'fallback' | 'disconnected' } | undefined
  /** The egress's counts (issue #21); absent for a runtime without one (tests). */
  readonly egress?: EgressReport | undefined
  /** JavaScript dialogs (issue #22): counts only. */
  readonly dialogs?: DialogReport | undefined
  /**
   * Password stand-ins (W3, docs/passwords.md): live now, swapped into requests to their site, and
   * withheld (sent elsewhere: attempted exfiltrations). Counts only; the person's report alone.
   */
  readonly passwords?: { readonly live: number; readonly swapped: number; readonly withheld: number } | undefined
}

/**
 * What became of dialogs nobody answered (issue #22): with no DevTools client attached, a dialog
 * waits for `POST /v1/dialog` or MCP's `browser_handle_dialog`; one still unanswered after the
 * page deadline is dismissed (and logged, naming its errand and tab). Counts only (X1).
 */
export interface DialogReport {
  /** Dialogs dismissed because nobody answered within the page deadline, since start. */
  readonly dismissedUnanswered: number
  /** The page deadline after which that happens (ms). */
  readonly deadlineMs: number
}

/**
 * What the egress (G3) has decided so far: counts only — never an errand, a key or an address
 * (X1), so the open `/health` carries it as it is. `remoteBypasses`: errands in a remote DevTools
 * browser leave through that browser's own network, not the egress; only the CDP guard judges
 * their requests there (docs/containment.md).
 */
export interface EgressReport {
  readonly on: boolean
  readonly remoteBypasses: boolean
  readonly allowed: number
  readonly refused: number
  /** Decisions by the guard's rule (`own-port`, `private`, `loopback`, `public`, …). */
  readonly byRule: Readonly<Record<string, number>>
  /** When a page was last refused something (epoch ms), or null. */
  readonly lastRefusedAt: number | null
}

/** The health report. */
export interface HealthReport {
  readonly ok: boolean
  readonly runtime: RuntimeReport
  readonly open: number
  readonly parked: number
  /** Open errands frozen by idleness (C4, docs/parking.md): a count. */
  readonly frozen: number
  readonly cap: number
  readonly sessions: number
  /** Errands a person drives from the live view now (P1): a count, never which (X1). */
  readonly personDriving: number
  /** Errands whose agent waits for the person, for help or a sign-in (P3, P4): a count (X1). */
  readonly waitingForPerson: number
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

/** The open `/health` answer: liveness and counts only (X1). */
export interface PublicHealthReport {
  readonly ok: boolean
  readonly runtime: {
    readonly kind: string
    readonly where: 'local' | 'remote'
    readonly remote?: { readonly state: 'connected' | 'fallback' | 'disconnected' } | undefined
    readonly egress?: EgressReport | undefined
    readonly dialogs?: DialogReport | undefined
  }
  readonly open: number
  readonly parked: number
  /** Open errands frozen by idleness (C4, docs/parking.md): a count. */
  readonly frozen: number
  readonly cap: number
  readonly sessions: number
  readonly personDriving: number
  readonly waitingForPerson: number
  /** How many health messages the person's report holds (read them at `/v1/person/health`). */
  readonly messages: number
  readonly cluster?: ClusterReport | undefined
}

/**
 * The open subset of a report (X1): an allow-list, so nothing per session — a key, a
 * conversation id, a message that names one — nor the remote endpoint goes out without the token.
 *
 * @example
 * publicHealth(report) // { ok: true, runtime: { kind: 'chromium', where: 'local' }, open: 1, …, messages: 3 }
 */
export const publicHealth = (report: HealthReport): PublicHealthReport => ({
  ok: report.ok,
  runtime: {
    kind: report.runtime.kind,
    where: report.runtime.where,
    ...(report.runtime.remote ? { remote: { state: report.runtime.remote.state } } : {}),
    // Counts and rule names only: copied field by field so nothing else rides along.
    ...(report.runtime.egress
      ? { egress: { ...report.runtime.egress, byRule: { ...report.runtime.egress.byRule } } }
      : {}),
    ...(report.runtime.dialogs
      ? {
          dialogs: {
            dismissedUnanswered: report.runtime.dialogs.dismissedUnanswered,
            deadlineMs: report.runtime.dialogs.deadlineMs,
          },
        }
      : {}),
  },
  open: report.open,
  parked: report.parked,
  frozen: report.frozen,
  cap: report.cap,
  sessions: report.sessions,
  // Counts over every errand: they name no conversation, so they go out open like `open` (X1).
  personDriving: report.personDriving,
  waitingForPerson: report.waitingForPerson,
  messages: report.messages.length,
  ...(report.cluster ? { cluster: report.cluster } : {}),
})

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
  static layer(
    describe: () => RuntimeReport,
    notes: HealthLog = new HealthLog(50),
  ): Layer.Layer<HostHealth, never, Sessions> {
    return Layer.effect(HostHealth, makeHostHealth(describe, notes))
  }

  /**
   * A fixed report, for router tests.
   *
   * @example
   * HostHealth.layerTest({ ok: true, runtime: { kind: 'memory', where: 'local' }, open: 0, parked: 0, cap: 2,
   * sessions: 0, personDriving: 0, waitingForPerson: 0, messages: [] })
   */
  static layerTest(report: HealthReport): Layer.Layer<HostHealth> {
    return Layer.succeed(HostHealth, { report: Effect.succeed(report), note: () => Effect.void })
  }
}

/**
 * Builds the health service: the session boundary's counts and messages, this host's notes, and the cluster's part
 * when a cluster's {@link Placement} is provided (the engine builds it after the cluster's overlay).
 *
 * @example
 * const health = yield* makeHostHealth(() => ({ kind: 'chromium', where: 'local' }), new HealthLog(50))
 */
export const makeHostHealth = (
  describe: () => RuntimeReport,
  notes: HealthLog,
): Effect.Effect<HostHealthShape, never, Sessions> =>
  Effect.gen(function* () {
    const sessions = yield* Sessions
    // A cluster's part (its runners, this runner's shards) is merged in when one is provided (placement.ts).
    const placement = Option.getOrElse(yield* Effect.serviceOption(Placement), () => Placement.here)
    return {
      report: Effect.gen(function* () {
        const cluster = yield* placement.cluster
        const capacity = yield* sessions.capacity
        const views = yield* sessions.list
        const messages = [...(yield* sessions.health), ...notes.recent()].sort((a, b) => a.at - b.at).slice(-50)
        return {
          ok: true,
          runtime: describe(),
          open: capacity.open,
          parked: capacity.parked,
          frozen: capacity.frozen,
          cap: capacity.limit,
          sessions: views.filter((v) => v.conversationId.startsWith('session:') && v.state !== 'closed').length,
          personDriving: capacity.personDriving,
          waitingForPerson: capacity.waitingForPerson,
          messages,
          ...(cluster === undefined ? {} : { cluster }),
        }
      }),
      note: (level, text) => Effect.map(Clock.currentTimeMillis, (at) => notes.add({ at, level, text })),
    }
  })
