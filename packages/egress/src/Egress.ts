/**
 * The egress (G3): one proxy server in the engine process that every browser context's
 * connections leave through — plain HTTP requests, CONNECT tunnels (TLS, WebSockets, WebRTC's
 * TURN over TCP) — built on proxy-chain (ADR 0017).
 *
 * For each request or tunnel it resolves the name itself ({@link makeResolver}: Chromium's
 * `--host-resolver-rules`, then every address the system resolver knows), decides on those
 * addresses with `@errands/guard` (`decideResolved`: the engine's own ports — this egress's own
 * included — on every loopback and unspecified address, private ranges, blocked hosts), and
 * connects to the address it checked: the upstream socket gets a lookup that answers that address
 * and nothing else, so there is no second lookup to rebind.
 *
 * **Lanes.** Each context gets a lane of its own: a listener on its own loopback port, which is
 * the context's proxy server. The lane says which errand a connection belongs to (and which
 * upstream proxy it chains to). Lanes stand in for per-context proxy credentials: Playwright
 * answers a proxy's 407 by pausing every request of every page through `Fetch` and switching the
 * HTTP cache off (ADR 0017), which costs every request and breaks T5's cache.
 *
 * **Lanes are the engine's own.** Any local process can connect to a loopback port: a lane that
 * took every caller would be an open proxy with the errand's upstream credentials attached. A
 * lane hands a connection to the proxy only when the socket at its other end is held by this
 * process or one it started — our Chromium's network service (`admitCaller`, callers.ts); any
 * other caller gets a 403 and the lane closes (docs/containment.md, "Lanes are the engine's own").
 *
 * **The machine is every address of its own.** The policy is given the machine's interface
 * addresses (`withMachineAddresses`, machine.ts), read again as they change; the guard's
 * `own-address` rule refuses them, in every spelling, for pages and for upstream proxies alike.
 * An upstream proxy's name is resolved and decided like a page's (`own-port`, `own-address`), and
 * the connection to it is pinned to the address that was decided.
 *
 * Every decision is logged once (`egress: allowed|refused <scheme>://<host>:<port> for <errand>
 * rule=<rule> (<why>)`, never a path or query, never an upstream's credentials) and counted.
 *
 * @example
 * const egress = await Egress.start({ policy, log: console.error })
 * const lane = await egress.openLane('e1')
 * await browser.newContext({ proxy: { server: lane.server, bypass: '<-loopback>' } })
 */
import { Agent as HttpAgent } from 'node:http'
import { Agent as HttpsAgent } from 'node:https'
import type { lookup as dnsLookup } from 'node:dns'
import { createServer, type Server as NetServer, type Socket } from 'node:net'
import {
  canonicalAddress,
  decideResolved,
  describeConnection,
  type Decision,
  type GuardPolicy,
  type Rule,
} from '@errands/guard'
import {
  RequestError,
  Server as ProxyServer,
  type PrepareRequestFunctionOpts,
  type PrepareRequestFunctionResult,
} from 'proxy-chain'
import { admitOwnProcesses, canTellCallers, type Admission } from './callers.ts'
import { changedPolicy, withMachineAddresses } from './machine.ts'
import { makeResolver, type Resolver, type ResolverRule } from './resolve.ts'

/**
 * What the egress is started with.
 *
 * - `policy`: the containment policy (its `ownPorts` are the engine's; the egress adds its own lanes).
 * - `log`: one line per decision; never a path, query or credential.
 * - `resolverRules`: Chromium's `--host-resolver-rules`, so names resolve here as the browser was told.
 * - `resolve`: replaces the resolver altogether (tests).
 * - `admit`: who may use a lane (default: sockets held by this process or one it started, callers.ts).
 * - `machineAddresses`: reads the machine's own addresses (default: its interfaces, machine.ts).
 *
 * @example
 * const options: EgressOptions = { policy, log: console.error, resolverRules: resolverRulesIn(extraArgs) }
 */
export interface EgressOptions {
  readonly policy: GuardPolicy
  readonly log: (line: string) => void
  readonly resolverRules?: ReadonlyArray<ResolverRule> | undefined
  readonly resolve?: Resolver | undefined
  readonly admit?: Admission | undefined
  readonly machineAddresses?: (() => ReadonlyArray<string>) | undefined
}

/**
 * One decision the egress made, as counted and shown (health, tests).
 *
 * @example
 * const d: EgressDecision = { errand: 'e1', allow: false, rule: 'own-port', target: 'connect://127.0.0.1:7070', at:
 * Date.now() }
 */
export interface EgressDecision {
  readonly errand: string
  readonly allow: boolean
  readonly rule: Rule
  readonly target: string
  readonly at: number
}

/**
 * What the egress has done so far: decisions by rule, and the last refusal (for health).
 *
 * @example
 * egress.stats().refused // 3
 */
export interface EgressStats {
  readonly allowed: number
  readonly refused: number
  readonly byRule: Readonly<Partial<Record<Rule, number>>>
  readonly lastRefusal: EgressDecision | undefined
  readonly lanes: number
  /** Connections to a lane refused because no process of the engine's held their other end. */
  readonly strangers: number
}

/**
 * A context's way out: its proxy server (`server`, for Playwright's `proxy.server`) and whose it is.
 *
 * @example
 * const lane = await egress.openLane()   // a warm spare: nobody's yet
 * lane.assign('e7')                      // handed out to errand e7
 */
export interface Lane {
  readonly port: number
  readonly server: string
  /** The errand whose connections these are (`main` for the person's context, `spare` until handed out). */
  readonly errand: () => string
  assign(errand: string): void
  /**
   * Chains this lane's connections through an upstream proxy (`http://user:pass@host:port`);
   * `undefined`: none. A secret: never logged. A change closes the lane's open connections, so
   * no tunnel keeps using the old way out.
   */
  setUpstream(url: string | undefined): void
  close(): Promise<void>
}

const LANE = Symbol('errands.egress.lane')

interface LaneState extends Lane {
  readonly listener: NetServer
  readonly sockets: Set<Socket>
  readonly httpAgent: HttpAgent
  readonly httpsAgent: HttpsAgent
  upstream: string | undefined
}

/** The refusal a browser gets: a 403 naming the rule, never the reason's details. */
const refusal = (decision: Decision): RequestError =>
  new RequestError(`refused by the errands egress (rule ${decision.rule})`, 403)

/** A lookup that answers the one address the egress checked (no second lookup). */
const pinned = (address: string): typeof dnsLookup => {
  const family = address.includes(':') ? 6 : 4
  return ((_host: string, options: { all?: boolean }, callback: (...args: Array<unknown>) => void) => {
    if (options?.all) callback(null, [{ address, family }])
    else callback(null, address, family)
  }) as unknown as typeof dnsLookup
}

/**
 * The egress. Start it with {@link Egress.start}; close it with {@link Egress.close}.
 *
 * @example
 * const egress = await Egress.start({ policy, log })
 */
export class Egress {
  private readonly lanes = new Set<LaneState>()
  private readonly proxy: ProxyServer
  private readonly resolve: Resolver
  private readonly admit: Admission
  /** The operator's policy with the machine's own addresses, read as they change. */
  private readonly base: GuardPolicy
  private policyWithLanes: GuardPolicy
  private counts = { allowed: 0, refused: 0, strangers: 0, byRule: {} as Partial<Record<Rule, number>> }
  private lastRefusal: EgressDecision | undefined
  private readonly observers = new Set<(d: EgressDecision) => void>()
  private closed = false

  private constructor(private readonly options: EgressOptions) {
    this.resolve = options.resolve ?? makeResolver(options.resolverRules ?? [])
    this.admit = options.admit ?? admitOwnProcesses()
    if (options.admit === undefined && !canTellCallers())
      options.log("egress: no /proc here, so lanes cannot tell the engine's browser from other local processes")
    this.base = withMachineAddresses(options.policy, options.machineAddresses)
    this.policyWithLanes = this.base
    this.proxy = new ProxyServer({
      port: 0,
      host: '127.0.0.1',
      verbose: false,
      prepareRequestFunction: (o) => this.prepare(o),
    })
    // proxy-chain logs unexpected failures with the request URL in them: we count them instead (L7).
    this.proxy.on('requestFailed', () => undefined)
  }

  /**
   * Starts an egress (lanes listen as they are opened).
   *
   * @example
   * const egress = await Egress.start({ policy, log: console.error })
   */
  static start(options: EgressOptions): Promise<Egress> {
    return Promise.resolve(new Egress(options))
  }

  /** The lanes' ports: each is an engine port no context may reach (G2). @example egress.ports() */
  ports(): ReadonlyArray<number> {
    return [...this.lanes].map((l) => l.port)
  }

  /** Counts so far. @example egress.stats().byRule['own-port'] */
  stats(): EgressStats {
    return {
      ...this.counts,
      byRule: { ...this.counts.byRule },
      lastRefusal: this.lastRefusal,
      lanes: this.lanes.size,
    }
  }

  /**
   * Calls `observer` with every decision (tests count what was allowed to connect); returns an unsubscribe.
   *
   * @example
   * const stop = egress.observe((d) => seen.push(d))
   */
  observe(observer: (decision: EgressDecision) => void): () => void {
    this.observers.add(observer)
    return () => this.observers.delete(observer)
  }

  /**
   * Opens a lane for one context: a listener on a fresh loopback port.
   *
   * @example
   * const lane = await egress.openLane('main')
   */
  async openLane(errand = 'spare'): Promise<Lane> {
    if (this.closed) throw new Error('the egress is closed')
    const sockets = new Set<Socket>()
    let owner = errand
    const lane = {} as LaneState
    // Paused until the caller is known: nothing it sends is read before it is admitted.
    const listener = createServer({ noDelay: true, pauseOnConnect: true }, (socket) => {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => socket.destroy())
      void this.admit(socket).then(
        (admitted) => this.handOver(lane, socket, admitted),
        () => this.handOver(lane, socket, false),
      )
    })
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject)
      listener.listen(0, '127.0.0.1', () => resolve())
    })
    const port = (listener.address() as { port: number }).port
    Object.assign(lane, {
      port,
      server: `http://127.0.0.1:${port}`,
      listener,
      sockets,
      httpAgent: new HttpAgent({ keepAlive: true }),
      httpsAgent: new HttpsAgent({ keepAlive: true }),
      upstream: undefined,
      errand: () => owner,
      assign: (next: string) => {
        owner = next
      },
      setUpstream: (url: string | undefined) => {
        if (lane.upstream === url) return
        lane.upstream = url
        // From now on means now: Chromium keeps tunnels and keep-alive connections to the lane,
        // and the lane keeps some to the old upstream; closed, every next request dials anew.
        for (const socket of lane.sockets) socket.destroy()
        lane.httpAgent.destroy()
        lane.httpsAgent.destroy()
      },
      close: () => this.closeLane(lane),
    } satisfies Omit<LaneState, never>)
    this.lanes.add(lane)
    this.refreshPolicy()
    return lane
  }

  /**
   * Closes every lane and every connection through them. Idempotent.
   *
   * @example
   * await egress.close()
   */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.lanes].map((l) => this.closeLane(l)))
    this.proxy.closeConnections()
  }

  /** An admitted caller's connection goes to the proxy; any other gets a 403 and is closed. */
  private handOver(lane: LaneState, socket: Socket, admitted: boolean): void {
    if (socket.destroyed) return
    if (!admitted || !this.lanes.has(lane)) {
      this.counts.strangers++
      this.options.log(
        `egress: refused a connection to the lane of ${lane.errand()}: ` +
          'its other end is no process of the engine (lanes carry only its own browser)',
      )
      const body = "refused: this proxy carries only the engine's own browser\n"
      socket.end(
        'HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-type: text/plain\r\n' +
          `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      )
      return
    }
    ;(socket as Socket & { [LANE]?: LaneState })[LANE] = lane
    this.proxy.server.emit('connection', socket)
    socket.resume()
  }

  private async closeLane(lane: LaneState): Promise<void> {
    if (!this.lanes.delete(lane)) return
    this.refreshPolicy()
    for (const socket of lane.sockets) socket.destroy()
    lane.httpAgent.destroy()
    lane.httpsAgent.destroy()
    await new Promise<void>((resolve) => lane.listener.close(() => resolve()))
  }

  // The lanes are engine ports too: a page that asks its own proxy to reach a lane is refused.
  private refreshPolicy(): void {
    const base = this.base
    this.policyWithLanes = changedPolicy(base, {
      ownPorts: [...base.ownPorts, ...[...this.lanes].map((l) => ({ host: '127.0.0.1', port: l.port }))],
    })
  }

  private async prepare(o: PrepareRequestFunctionOpts): Promise<PrepareRequestFunctionResult> {
    const lane = (o.request.socket as Socket & { [LANE]?: LaneState })[LANE]
    if (lane === undefined || !this.lanes.has(lane)) throw new RequestError('not a lane of this egress', 403)
    const scheme = o.isHttp ? 'http' : 'connect'
    const host = o.hostname.replace(/^\[|\]$/g, '')
    const { addresses, port } = await this.resolve(host, o.port)
    const decision = decideResolved({ scheme, host, port, addresses }, this.policyWithLanes)
    this.record(lane.errand(), decision, describeConnection({ scheme, host, port: o.port }))
    if (!decision.allow) throw refusal(decision)
    const address = canonicalAddress(addresses[0]!)!
    if (lane.upstream !== undefined) {
      // The upstream resolves and connects on its side of the world; ours only reaches the upstream.
      const upstreamAddress = await this.upstreamAddress(lane)
      return {
        upstreamProxyUrl: lane.upstream,
        dnsLookup: pinned(upstreamAddress),
        httpAgent: lane.httpAgent,
        httpsAgent: lane.httpsAgent,
      }
    }
    if (port !== o.port)
      throw new RequestError('a resolver rule that changes the port is not supported by the egress', 502)
    return { dnsLookup: pinned(address), httpAgent: lane.httpAgent, httpsAgent: lane.httpsAgent }
  }

  /**
   * The address to reach the lane's upstream proxy at: its name resolved as a page's is (G2), and
   * refused when that is the machine itself — one of the engine's own ports on loopback (`own-port`:
   * `http://vm:7070` where `vm` is 127.0.0.1) or an address of the machine's own interfaces
   * (`own-address`). Other addresses are the operator's or the agent's choice (a proxy on loopback
   * or in a private network is allowed). The connection is pinned to the address decided here.
   */
  private async upstreamAddress(lane: LaneState): Promise<string> {
    const up = new URL(lane.upstream!)
    const port = Number(up.port || (up.protocol === 'https:' ? 443 : 80))
    const host = up.hostname.replace(/^\[|\]$/g, '')
    const described = `upstream ${up.protocol}//${up.host}`
    const { addresses, port: resolvedPort } = await this.resolve(host, port)
    const decision = decideResolved({ scheme: 'http', host, port, addresses }, this.policyWithLanes)
    if (decision.rule === 'own-port' || decision.rule === 'own-address' || decision.rule === 'invalid-url') {
      this.record(lane.errand(), decision, described)
      throw refusal(decision)
    }
    if (resolvedPort !== port)
      throw new RequestError('a resolver rule that changes the port is not supported by the egress', 502)
    const address = addresses[0] === undefined ? undefined : canonicalAddress(addresses[0])
    if (address === undefined) throw new RequestError("the upstream proxy's name resolves to no address", 502)
    return address
  }

  private record(errand: string, decision: Decision, target: string): void {
    const entry: EgressDecision = { errand, allow: decision.allow, rule: decision.rule, target, at: Date.now() }
    if (decision.allow) this.counts.allowed++
    else {
      this.counts.refused++
      this.lastRefusal = entry
    }
    this.counts.byRule[decision.rule] = (this.counts.byRule[decision.rule] ?? 0) + 1
    this.options.log(
      `egress: ${decision.allow ? 'allowed' : 'refused'} ${target} for ${errand} rule=${decision.rule} ` +
        `(${decision.detail})`,
    )
    for (const observer of this.observers) observer(entry)
  }
}
