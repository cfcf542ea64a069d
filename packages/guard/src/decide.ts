/**
 * The guard's decision for one URL (SPEC G1, G2): pure, synchronous, explainable.
 *
 * URLs are canonicalised with `new URL()` (WHATWG rules, as Chromium's GURL parses them) before
 * any rule runs, so `http://2130706433/`, `http://0x7F.0.0.1/`, `HTTP://LOCALHOST./` and
 * `http://[::ffff:127.0.0.1]/` are all judged as the loopback address they are.
 *
 * Rules, in order (first match wins):
 * 1. `invalid-url` — unparseable: blocked.
 * 2. `scheme` — scheme (or `about:` page) not in `allowedSchemes`: blocked.
 * 3. `local-scheme` — an allowed scheme with no network host (`data:`, `blob:`, `about:blank`): allowed.
 * 4. `blocked-host` — host matches `blockedHosts`: blocked.
 * 5. `own-port` — a loopback (or unspecified) address on one of the engine's own ports: blocked.
 * 6. `loopback` — 127.0.0.0/8, ::1, `localhost`, `*.localhost`: allowed unless `allowLoopback` is false.
 * 7. `own-address` — an address of one of this machine's own interfaces (`ownAddresses`), which
 *    is the machine as much as loopback is, but no dev server's door (G2): blocked.
 * 8. `private-allowed` — a private address inside `allowPrivate`: allowed.
 * 9. `private` — any other private/local address: blocked.
 * 10. `public` — everything else: allowed.
 *
 * The `detail` names scheme, host and port only — never a path, query, fragment or user info (L7).
 *
 * @example
 * decide('file:///etc/passwd', defaultPolicy()) // { allow: false, rule: 'scheme', detail: 'scheme file: is not
 * allowed' }
 */
import {
  cidrContains,
  type Cidr,
  formatIp,
  type IpAddress,
  LOOPBACK_RANGES,
  parseCidr,
  parseIp,
  PRIVATE_RANGES,
  UNSPECIFIED_RANGES,
  unmapIpv4,
} from './ip.ts'
import type { GuardPolicy } from './policy.ts'

/** Which rule decided (see the module comment for the order). @example const r: Rule = 'own-port' */
export type Rule =
  | 'invalid-url'
  | 'scheme'
  | 'local-scheme'
  | 'blocked-host'
  | 'own-port'
  | 'loopback'
  | 'own-address'
  | 'private-allowed'
  | 'private'
  | 'public'

/**
 * A guard decision: whether the URL may be reached, the rule that matched, and why in words
 * that carry scheme, host and port only.
 *
 * @example
 * const d: Decision = { allow: false, rule: 'private', detail: 'http://10.0.0.1:80: 10.0.0.1 is in private range
 * 10.0.0.0/8' }
 */
export interface Decision {
  readonly allow: boolean
  readonly rule: Rule
  readonly detail: string
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, ws: 80, https: 443, wss: 443, ftp: 21 }

/** Schemes whose URLs carry no network host: judged by scheme alone. */
const LOCAL_SCHEMES = new Set(['data', 'blob', 'about', 'javascript'])

interface Compiled {
  readonly schemes: ReadonlySet<string>
  readonly exactHosts: ReadonlySet<string>
  readonly suffixes: ReadonlyArray<string>
  readonly allowPrivate: ReadonlyArray<Cidr>
  readonly ownPorts: ReadonlySet<number>
  readonly allowLoopback: boolean
}

/**
 * A host as the guard compares it: lower-case, no trailing dots, no brackets; IP forms and IDNs
 * canonicalised like a URL's host (`2130706433` → `127.0.0.1`, `BÜCHER.example` → `xn--bcher-kva.example`).
 *
 * @example
 * normaliseHost('LOCALHOST.') // "localhost"
 */
export const normaliseHost = (host: string): string => {
  let h = host.trim().toLowerCase().replace(/\.+$/, '')
  try {
    h = new URL(`http://${h.includes(':') && !h.startsWith('[') ? `[${h}]` : h}/`).hostname.replace(/\.+$/, '')
  } catch {
    // Not a valid URL host: keep the lower-cased text, it can still match literally.
  }
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h
}

const compiledCache = new WeakMap<GuardPolicy, Compiled>()

const compile = (policy: GuardPolicy): Compiled => {
  const cached = compiledCache.get(policy)
  if (cached) return cached
  const exactHosts = new Set<string>()
  const suffixes: Array<string> = []
  for (const pattern of policy.blockedHosts) {
    if (pattern.startsWith('*.')) suffixes.push(normaliseHost(pattern.slice(2)))
    else exactHosts.add(normaliseHost(pattern))
  }
  const compiled: Compiled = {
    schemes: new Set(policy.allowedSchemes.map((s) => s.toLowerCase())),
    exactHosts,
    suffixes,
    allowPrivate: policy.allowPrivate.map((c) => parseCidr(c)).filter((c): c is Cidr => c !== undefined),
    ownPorts: new Set(policy.ownPorts.map((p) => p.port)),
    allowLoopback: policy.allowLoopback,
  }
  compiledCache.set(policy, compiled)
  return compiled
}

/**
 * A URL reduced to what may be logged: `scheme://host:port` (or `scheme:` for host-less URLs,
 * `about:page` for `about:` URLs, `blob:` + the blob's origin). Never a path, query, fragment
 * or user info (L7).
 *
 * @example
 * describeTarget('https://u:p@shop.example/cart?token=1#x') // "https://shop.example:443"
 */
export const describeTarget = (url: string): string => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return '(invalid url)'
  }
  const scheme = parsed.protocol.slice(0, -1)
  if (scheme === 'about') return `about:${parsed.pathname}`
  if (scheme === 'blob') {
    try {
      const inner = new URL(parsed.pathname)
      return `blob:${inner.origin}`
    } catch {
      return 'blob:'
    }
  }
  if (!parsed.hostname) return `${scheme}:`
  const port = parsed.port || DEFAULT_PORTS[scheme]
  return `${scheme}://${parsed.hostname}${port !== undefined ? `:${port}` : ''}`
}

const matchesInRanges = (ranges: ReadonlyArray<Cidr>, ip: IpAddress): Cidr | undefined =>
  ranges.find((range) => cidrContains(range, ip))

// The machine's addresses change (read again by their holder, egress's machine.ts): compiled per
// list, not per policy, so a policy whose list is live is never judged on an old one.
const ownAddressSets = new WeakMap<ReadonlyArray<string>, ReadonlySet<string>>()

/** `ownAddresses` as canonical text (IPv4-mapped IPv6 unmapped); entries that are no address are left out. */
const ownAddressSet = (list: ReadonlyArray<string>): ReadonlySet<string> => {
  const cached = ownAddressSets.get(list)
  if (cached) return cached
  const set = new Set<string>()
  for (const entry of list) {
    const ip = parseIp(entry.trim())
    if (ip) set.add(formatIp(unmapIpv4(ip) ?? ip))
  }
  ownAddressSets.set(list, set)
  return set
}

/**
 * Decides whether a URL may be requested, navigated to or connected to (G1, G2).
 *
 * @example
 * const policy = defaultPolicy([{ host: '127.0.0.1', port: 7070 }])
 * decide('ws://localhost:7070/live', policy).rule  // "own-port"
 * decide('http://127.0.0.1:3000/', policy).allow   // true — local dev servers are fine
 * decide('http://192.168.1.1/', policy).rule       // "private"
 */
export const decide = (url: string, policy: GuardPolicy): Decision => {
  const c = compile(policy)
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { allow: false, rule: 'invalid-url', detail: 'not a valid URL' }
  }
  const scheme = parsed.protocol.slice(0, -1).toLowerCase()
  const target = describeTarget(url)

  if (scheme === 'about') {
    const page = `about:${parsed.pathname.toLowerCase()}`
    if (c.schemes.has('about') || c.schemes.has(page)) {
      return { allow: true, rule: 'local-scheme', detail: `${page} is allowed` }
    }
    return { allow: false, rule: 'scheme', detail: `${page} is not allowed (only ${aboutList(c)})` }
  }
  if (!c.schemes.has(scheme)) {
    return { allow: false, rule: 'scheme', detail: `scheme ${scheme}: is not allowed` }
  }
  const rawHost = parsed.hostname
  if (LOCAL_SCHEMES.has(scheme) || rawHost === '') {
    return { allow: true, rule: 'local-scheme', detail: `scheme ${scheme}: reaches no network host` }
  }

  const host = normaliseHost(rawHost)
  const blockedBy = c.exactHosts.has(host) ? host : c.suffixes.find((s) => host === s || host.endsWith(`.${s}`))
  if (blockedBy !== undefined) {
    const pattern = c.exactHosts.has(host) ? host : `*.${blockedBy}`
    return { allow: false, rule: 'blocked-host', detail: `${target}: host matches blocked host ${pattern}` }
  }

  const port = parsed.port !== '' ? Number(parsed.port) : DEFAULT_PORTS[scheme]
  const literal = parseIp(host)
  const ip = literal ? (unmapIpv4(literal) ?? literal) : undefined
  const isLoopback = ip
    ? matchesInRanges(LOOPBACK_RANGES, ip) !== undefined
    : host === 'localhost' || host.endsWith('.localhost')
  const isUnspecified = ip !== undefined && matchesInRanges(UNSPECIFIED_RANGES, ip) !== undefined

  // Own ports first: on Linux 0.0.0.0 and :: reach local listeners too, so they count here.
  if ((isLoopback || isUnspecified) && port !== undefined && c.ownPorts.has(port)) {
    return { allow: false, rule: 'own-port', detail: `${target}: port ${port} is one of the engine's own ports` }
  }
  if (isLoopback) {
    return c.allowLoopback
      ? { allow: true, rule: 'loopback', detail: `${target}: loopback is allowed` }
      : { allow: false, rule: 'loopback', detail: `${target}: loopback is not allowed by this policy` }
  }
  if (ip) {
    const canonical = formatIp(ip)
    if (ownAddressSet(policy.ownAddresses).has(canonical)) {
      return {
        allow: false,
        rule: 'own-address',
        detail: `${target}: ${canonical} is an address of this machine's own interfaces`,
      }
    }
    const privateRange = matchesInRanges(PRIVATE_RANGES, ip)
    if (privateRange) {
      const allowed = matchesInRanges(c.allowPrivate, ip)
      if (allowed) {
        return {
          allow: true,
          rule: 'private-allowed',
          detail: `${target}: ${formatIp(ip)} is in allowed range ${allowed.text}`,
        }
      }
      return {
        allow: false,
        rule: 'private',
        detail: `${target}: ${formatIp(ip)} is in private range ${privateRange.text}`,
      }
    }
  }
  return { allow: true, rule: 'public', detail: `${target}: public address` }
}

const aboutList = (c: Compiled): string => {
  const pages = [...c.schemes].filter((s) => s.startsWith('about:'))
  return pages.length > 0 ? pages.join(', ') : 'no about: pages'
}

/**
 * A log line for a decision: rule, target (scheme/host/port only) and the reason.
 *
 * @example
 * formatDecision('http://10.0.0.1/admin?token=x', decide('http://10.0.0.1/admin?token=x', policy))
 * // "guard: blocked http://10.0.0.1:80 rule=private (http://10.0.0.1:80: 10.0.0.1 is in private range 10.0.0.0/8)"
 */
export const formatDecision = (url: string, decision: Decision, what = 'request'): string =>
  `guard: ${decision.allow ? 'allowed' : 'blocked'} ${what} ${describeTarget(url)} rule=${decision.rule} ` +
  `(${decision.detail})`
