/**
 * A URL judged as the egress would judge its connection (G2, G3): by its text first (`decide`:
 * schemes, blocked hosts, every spelling of a literal address), then — for a name — by every
 * address that name resolves to (`decideResolved`), with the same resolver the egress uses.
 *
 * The host asks this before it starts a navigation an agent asked for (`POST /v1/navigate`,
 * `POST /v1/tabs`): `http://vm:7070/` must be refused like `http://127.0.0.1:7070/`, with the same
 * answer, instead of becoming a page the egress refuses inside the browser.
 *
 * @example
 * const d = await decideUrl('http://vm:7070/', policy, makeResolver([]))
 * d.rule // "own-port" — /etc/hosts maps vm to 127.0.0.1
 */
import { decide, decideResolved, parseIp, type Decision, type GuardPolicy } from '@errands/guard'
import type { Resolver } from './resolve.ts'

const NETWORK_SCHEMES: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 }

/**
 * Decides `url` on its text, then on what its name resolves to. A name that resolves to nothing
 * keeps the text's decision: nothing can be reached through it, and the browser says so itself.
 *
 * @example
 * (await decideUrl('http://engine.test:7070/', policy, makeResolver(parseResolverRules('MAP engine.test
 * 127.0.0.1')))).allow // false
 */
export const decideUrl = async (url: string, policy: GuardPolicy, resolve: Resolver): Promise<Decision> => {
  const byText = decide(url, policy)
  if (!byText.allow) return byText
  const parsed = new URL(url)
  const defaultPort = NETWORK_SCHEMES[parsed.protocol]
  // data:, blob:, about:blank reach no network; literal addresses were judged by their text.
  if (defaultPort === undefined || parseIp(parsed.hostname.replace(/^\[|\]$/g, '')) !== undefined) return byText
  const port = parsed.port === '' ? defaultPort : Number(parsed.port)
  const { addresses, port: resolvedPort } = await resolve(parsed.hostname, port)
  if (addresses.length === 0) return byText
  return decideResolved(
    { scheme: parsed.protocol.slice(0, -1), host: parsed.hostname, port: resolvedPort, addresses },
    policy,
  )
}
