/**
 * How the egress resolves a name (G3): Chromium's own `--host-resolver-rules` first (a browser
 * behind a proxy never resolves the names it asks the proxy for, so the rules it was started with
 * must hold here, or a test site named `shop.example` would resolve nowhere), then the operating
 * system's resolver (`dns.lookup`, every address: `/etc/hosts` included).
 *
 * @example
 * const resolver = makeResolver(parseResolverRules('MAP *.example 127.0.0.1'))
 * await resolver('shop.example', 443) // { addresses: ['127.0.0.1'], port: 443 }
 */
import { lookup } from 'node:dns/promises'
import { parseIp } from '@errands/guard'

/** One rule of `--host-resolver-rules`: `MAP pattern target[:port]` or `EXCLUDE pattern`. */
export interface ResolverRule {
  readonly kind: 'map' | 'exclude'
  readonly pattern: RegExp
  /** A host or address, or `~NOTFOUND`. */
  readonly target?: string | undefined
  readonly port?: number | undefined
}

/** What a name resolved to, and the port to connect to (a rule may change it). */
export interface Resolution {
  readonly addresses: ReadonlyArray<string>
  readonly port: number
}

/**
 * Resolves a name on a port. @example const r: Resolver = (host, port) => Promise.resolve({ addresses: ['127.0.0.1'],
 * port })
 */
export type Resolver = (host: string, port: number) => Promise<Resolution>

const wildcard = (pattern: string): RegExp =>
  new RegExp(
    `^${pattern
      .toLowerCase()
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  )

const splitHostPort = (text: string): { host: string; port?: number | undefined } => {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text)
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2] !== undefined ? Number(bracketed[2]) : undefined }
  const m = /^([^:]+):(\d+)$/.exec(text)
  return m ? { host: m[1]!, port: Number(m[2]) } : { host: text }
}

/**
 * Parses Chromium's `--host-resolver-rules` value (comma-separated `MAP` and `EXCLUDE` rules;
 * unknown rules are ignored, as Chromium logs and ignores them).
 *
 * @example
 * parseResolverRules('MAP *.wire.test 127.0.0.1, EXCLUDE real.wire.test').length // 2
 */
export const parseResolverRules = (value: string): ReadonlyArray<ResolverRule> =>
  value.split(',').flatMap((text): Array<ResolverRule> => {
    const parts = text.trim().split(/\s+/)
    const kind = parts[0]?.toUpperCase()
    if (kind === 'MAP' && parts.length === 3) {
      const { host, port } = splitHostPort(parts[2]!)
      return [{ kind: 'map', pattern: wildcard(parts[1]!), target: host, port }]
    }
    if (kind === 'EXCLUDE' && parts.length === 2) return [{ kind: 'exclude', pattern: wildcard(parts[1]!) }]
    return []
  })

/**
 * The resolver rules among Chromium switches (the last `--host-resolver-rules` wins, as in Chromium).
 *
 * @example
 * resolverRulesIn(['--lang=de', '--host-resolver-rules=MAP * 127.0.0.1']).length // 1
 */
export const resolverRulesIn = (args: ReadonlyArray<string>): ReadonlyArray<ResolverRule> => {
  const flag = '--host-resolver-rules='
  const value = [...args].reverse().find((a) => a.startsWith(flag))
  return value === undefined ? [] : parseResolverRules(value.slice(flag.length))
}

const osLookup = async (host: string): Promise<ReadonlyArray<string>> => {
  try {
    return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)
  } catch {
    return []
  }
}

/**
 * A resolver: literal addresses as they are, names by the first matching rule (`EXCLUDE` sends
 * them to the system), else the system resolver with every address it knows.
 *
 * @example
 * const resolve = makeResolver([])
 * await resolve('localhost', 80) // { addresses: ['127.0.0.1', '::1'], port: 80 } (order as the system says)
 */
export const makeResolver =
  (rules: ReadonlyArray<ResolverRule>, system: (host: string) => Promise<ReadonlyArray<string>> = osLookup): Resolver =>
  async (rawHost, port) => {
    const host = rawHost.replace(/^\[|\]$/g, '')
    if (parseIp(host) !== undefined) return { addresses: [host], port }
    const name = host.toLowerCase()
    const rule = rules.find((r) => r.pattern.test(name) || r.pattern.test(`${name}:${port}`))
    if (rule?.kind === 'map') {
      const target = rule.target!
      const mappedPort = rule.port ?? port
      if (target === '~NOTFOUND') return { addresses: [], port: mappedPort }
      return { addresses: parseIp(target) !== undefined ? [target] : await system(target), port: mappedPort }
    }
    return { addresses: await system(name.replace(/\.+$/, '') || name), port }
  }
