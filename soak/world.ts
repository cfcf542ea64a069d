/**
 * What the sessions, the chaos loop and the monitor of one soak run share: the host child (killed
 * and restarted under them), the fixture sites, the journal, the counters and the violations, the
 * chaos epoch, the lending state, and the gate a quiet period closes.
 *
 * @example
 * const world = await World.start({ dir, options, sites, journal, mountStore: true })
 * await world.stop()
 */
import { answerMismatch } from '@errands/host'
import { appendFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { shortTmpDir, startHost, type Reply, type SoakHost } from './host.ts'
import type { Journal, RunOptions } from './journal.ts'
import type { SessionModel } from './model.ts'
import { osProbe, type OsProbe } from './os.ts'
import type { SoakSites } from './sites.ts'

/** One broken promise, as found on the wire or in the OS. */
export interface Violation {
  readonly t: number
  readonly kind: string
  readonly session: string
  readonly detail: string
}

/** Counters of a run. */
export interface Stats {
  requests: number
  refused: number
  sessions: number
  parksAcked: number
  parksRefused: number
  resumesChecked: number
  resumesExact: number
  checks: number
  healChecks: number
  lends: number
  revokes: number
  hostKills: number
  hostKillsMidWrite: number
  browserKills: number
  rendererKills: number
  diskFulls: number
  quietPeriods: number
  wireRequests: number
  wrongSessionCookies: number
  revokedCookies: number
  lentMissing: number
}

const zero = (): Stats => ({
  requests: 0,
  refused: 0,
  sessions: 0,
  parksAcked: 0,
  parksRefused: 0,
  resumesChecked: 0,
  resumesExact: 0,
  checks: 0,
  healChecks: 0,
  lends: 0,
  revokes: 0,
  hostKills: 0,
  hostKillsMidWrite: 0,
  browserKills: 0,
  rendererKills: 0,
  diskFulls: 0,
  quietPeriods: 0,
  wireRequests: 0,
  wrongSessionCookies: 0,
  revokedCookies: 0,
  lentMissing: 0,
})

/** Where and how a world runs. */
export interface WorldSpec {
  readonly dir: string
  readonly options: RunOptions
  readonly sites: SoakSites
  readonly journal: Journal
}

/**
 * The shared state of a run.
 *
 * @example
 * world.epoch // bumped by every chaos event
 */
export class World {
  readonly stats = zero()
  readonly violations: Violation[] = []
  readonly latencies: Array<{ t: number; path: string; ms: number }> = []
  readonly hostStarts: number[] = []
  readonly sessions: SessionModel[] = []
  /** Bumped by every chaos event: an op that saw it change proves nothing. */
  epoch = 0
  stopping = false
  readonly dataDir: string
  readonly tmpDir: string
  readonly probe: OsProbe
  readonly t0 = Date.now()
  private current: SoakHost | undefined
  private up: Promise<SoakHost>
  private outageOver: ((host: Promise<SoakHost>) => void) | undefined
  private closedGate: Promise<void> | undefined
  private openGate: (() => void) | undefined
  private inFlight = 0
  private revoking = 0
  private lending = new Set<string>()
  private lentState = new Map<string, { lent: 'yes' | 'no' | 'unknown'; certain: boolean }>()

  private constructor(readonly spec: WorldSpec) {
    this.dataDir = join(spec.dir, 'data')
    this.tmpDir = shortTmpDir()
    mkdirSync(join(this.dataDir, 'store'), { recursive: true })
    mkdirSync(this.tmpDir, { recursive: true })
    this.probe = osProbe({ owner: this.dataDir, tmpDir: this.tmpDir })
    this.up = Promise.reject(new Error('not started'))
    this.up.catch(() => undefined)
  }

  /**
   * Starts the first host and signs the person in to bank.example in the main context. @example await
   * World.start(spec)
   */
  static async start(spec: WorldSpec): Promise<World> {
    const w = new World(spec)
    await w.restart()
    const signIn = await w.call(undefined, 'POST', '/v1/person/main/navigate', {
      url: spec.sites.url('bank.example', '/signin?n=bank&v=main.1', 'main~0.1'),
    })
    if (signIn.status !== 200) throw new Error(`the person could not sign in to bank.example (${signIn.status})`)
    return w
  }

  get journal(): Journal {
    return this.spec.journal
  }
  get sites(): SoakSites {
    return this.spec.sites
  }
  get host(): SoakHost | undefined {
    return this.current
  }
  elapsed(): number {
    return Date.now() - this.t0
  }

  /** Starts a host on the data dir (after a kill: the same one); records its start time. */
  async restart(): Promise<SoakHost> {
    const starting = startHost({
      dataDir: this.dataDir,
      tmpDir: this.tmpDir,
      env: { ERRANDS_MAX_SESSIONS: String(this.spec.options.cap), ERRANDS_SESSION_IDLE_MS: '600000' },
      // The host's own log (no secrets in it, L7), beside the journal, to explain what the checks find.
      log: (line) => this.hostLog(line),
    })
    this.up = starting
    this.outageOver?.(starting)
    this.outageOver = undefined
    const host = await starting
    this.current = host
    this.hostStarts.push(host.startMs)
    this.journal.write({ kind: 'host-start', pid: host.pid, ms: Math.round(host.startMs) })
    return host
  }

  /** SIGKILLs the host; calls wait until `restart` brings the next one up. @example await world.killHost() */
  async killHost(): Promise<void> {
    const host = this.current
    this.current = undefined
    this.up = new Promise((r) => (this.outageOver = r))
    this.up.catch(() => undefined)
    await host?.kill()
  }

  private hostLog(line: string): void {
    appendFileSync(join(this.spec.options.out, 'host.log'), `${this.elapsed()} ${line}\n`)
  }

  /** Resolves once a host is up again. */
  async waitForHost(): Promise<void> {
    await this.up.catch(() => undefined)
  }

  /** One call through the current host; status 0 when it is down. */
  async call(key: string | undefined, method: string, path: string, body?: unknown): Promise<Reply> {
    const host = await this.up.catch(() => undefined)
    if (host === undefined || host.isDead()) return { status: 0, body: undefined, ms: 0 }
    this.inFlight++
    try {
      const r = await host.call(key, method, path, body)
      this.stats.requests++
      if (r.status === 500)
        this.violation('internal-error', key ?? '-', `${method} ${path}: ${JSON.stringify(r.body)?.slice(0, 300)}`)
      // Every 200 against the declared /v1 (issue #24): an answer /v1/openapi.json does not describe is a finding.
      const drift = r.status === 200 ? answerMismatch(method, new URL(path, 'http://host').pathname, r.body) : undefined
      if (drift !== undefined) this.violation('answer-drift', key ?? '-', drift.slice(0, 300))
      return r
    } finally {
      this.inFlight--
    }
  }

  latency(path: string, ms: number): void {
    this.latencies.push({ t: this.elapsed(), path, ms })
  }

  violation(kind: string, session: string, detail: string): void {
    const v = { t: this.elapsed(), kind, session, detail }
    this.violations.push(v)
    this.journal.write({ ...v, kind: 'violation', violation: v.kind })
  }

  /** A chaos event: every session not parked by an acknowledged park may be rolled back to a snapshot. */
  chaos(kind: string, detail: Record<string, unknown> = {}): void {
    this.epoch++
    for (const s of this.sessions) {
      if (s.parkedAcked) continue
      s.uncertain = true
      // A killed host loses an open errand's lent sign-in with the errand: no longer promised.
      if (s.lent === 'yes') s.lent = 'unknown'
    }
    this.journal.write({ kind: 'chaos', what: kind, ...detail })
  }

  /** Sessions wait here during a quiet period. */
  async gate(): Promise<void> {
    while (this.closedGate) await this.closedGate
  }
  /** Closes the gate and resolves when no session call is in flight. */
  async quiet(): Promise<void> {
    this.closedGate = new Promise((r) => (this.openGate = r))
    while (this.inFlight > 0) await new Promise((r) => setTimeout(r, 20))
  }
  reopen(): void {
    const open = this.openGate
    this.closedGate = undefined
    this.openGate = undefined
    open?.()
  }
  /** A session's pause between two steps (how a person or an agent paces work; not a wait for a condition). */
  think(random: () => number, min = 50, max = 400): Promise<void> {
    return new Promise((r) => setTimeout(r, min + random() * (max - min)))
  }

  /** What a request with this tag should carry from bank.example's lent sign-in. */
  lentAt(tag: string, s: SessionModel): void {
    const lent = this.revoking > 0 || this.lending.has(s.key) ? 'unknown' : s.lent
    this.lentState.set(tag, { lent, certain: !s.uncertain })
  }
  /** Read once by the wire check. */
  lentOf(tag: string): { lent: 'yes' | 'no' | 'unknown'; certain: boolean } | undefined {
    const v = this.lentState.get(tag)
    this.lentState.delete(tag)
    return v
  }

  /** The person presses Allow for bank.example in this session (L2). */
  async lend(s: SessionModel): Promise<void> {
    const before = s.lent
    this.lending.add(s.key)
    s.lent = 'unknown'
    const r = await this.call(undefined, 'POST', '/v1/person/lend', { session: s.key, site: 'bank.example' })
    this.lending.delete(s.key)
    this.journal.write({
      kind: 'req',
      session: s.key,
      op: 'lend',
      status: r.status,
      code: r.body?.error?.code,
      ms: Math.round(r.ms),
    })
    if (r.status === 200) {
      this.stats.lends++
      s.lent = this.revoking > 0 ? 'unknown' : 'yes'
    } else if (r.status >= 400 && r.status < 500) s.lent = before
  }

  /** The person revokes bank.example: taken back from every errand, open or parked (L5). */
  async revoke(): Promise<void> {
    this.revoking++
    const r = await this.call(undefined, 'DELETE', '/v1/person/settings/always-allowed/bank.example')
    this.revoking--
    this.journal.write({
      kind: 'req',
      session: '-',
      op: 'revoke',
      status: r.status,
      code: r.body?.error?.code,
      ms: Math.round(r.ms),
    })
    if (r.status !== 200) return
    this.stats.revokes++
    for (const s of this.sessions) s.lent = this.lending.has(s.key) || this.revoking > 0 ? 'unknown' : 'no'
  }
}
