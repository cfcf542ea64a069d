/**
 * Which requests the browser must pause for the guard at all.
 *
 * Pausing a request costs a round trip to the engine (~3–6 ms here, measured in
 * docs/containment.md). Most requests go to public hosts that the guard allows anyway, so the
 * browser is told to pause only URLs that **might** be blocked: Chromium's `Fetch.enable`
 * takes URL patterns (`*` any run of characters, `?` one character, matched against the whole
 * canonical URL). {@link interceptPatterns} over-approximates the set `decide` blocks: every
 * http(s) URL that `decide` blocks matches one of the patterns (a property test checks this on
 * random URLs); a matched URL is still judged by `decide`, so matching too much only costs time.
 *
 * @example
 * interceptPatterns(defaultPolicy([{ port: 7070 }])).includes('*://10.*') // true
 */
import { normaliseHost } from './decide.ts'
import type { GuardPolicy } from './policy.ts'

const DEFAULT_PORT: Readonly<Record<string, number>> = { http: 80, https: 443 }

/** Canonical request URLs put a host right after `://` or after user info's `@`. */
const hostStarts = (rest: string): Array<string> => [`*://${rest}`, `*@${rest}`]

/** Private IPv4 prefixes as dotted text (100.64.0.0/10 and 172.16.0.0/12 spelled out). */
const PRIVATE_V4_PREFIXES: ReadonlyArray<string> = [
  '10.',
  '192.168.',
  '169.254.',
  '0.',
  ...Array.from({ length: 16 }, (_, i) => `172.${16 + i}.`),
  ...Array.from({ length: 64 }, (_, i) => `100.${64 + i}.`),
]

const hostPatterns = (host: string): Array<string> =>
  // exact host, with or without a trailing dot, followed by a port or the path
  [`${host}/*`, `${host}:*`, `${host}./*`, `${host}.:*`].flatMap(hostStarts)

/**
 * Fetch URL patterns that cover every http(s) URL the policy may block (see the module comment).
 * Schemes other than http and https are covered by their own `scheme:*` pattern when the policy
 * does not allow them; `ws:`/`wss:` never reach Chromium's Fetch domain (they are guarded by
 * WebSocket routing).
 *
 * @example
 * await cdp.send('Fetch.enable', { patterns: interceptPatterns(policy).map((urlPattern) => ({ urlPattern })) })
 */
export const interceptPatterns = (policy: GuardPolicy): ReadonlyArray<string> => {
  const schemes = new Set(policy.allowedSchemes.map((s) => s.toLowerCase()))
  const patterns = new Set<string>()
  for (const scheme of ['http', 'https']) if (!schemes.has(scheme)) patterns.add(`${scheme}:*`)
  for (const scheme of ['file', 'filesystem', 'ftp', 'chrome', 'chrome-extension', 'devtools']) {
    if (!schemes.has(scheme)) patterns.add(`${scheme}:*`)
  }

  for (const pattern of policy.blockedHosts) {
    const host = normaliseHost(pattern.replace(/^\*\./, ''))
    if (/[*?\\[\]]/.test(host) || host === '') return ['*'] // cannot be said as a pattern safely
    for (const p of hostPatterns(host)) patterns.add(p)
    if (pattern.startsWith('*.'))
      for (const p of [`*.${host}/*`, `*.${host}:*`, `*.${host}./*`, `*.${host}.:*`]) patterns.add(p)
    // An IDN written in Unicode reaches Chromium in punycode: without a safe spelling, pause all.
    if (!/^[a-z0-9.-]+$/.test(host) && !/^[0-9a-f:.]+$/.test(host)) return ['*']
  }

  // Every IPv6 literal (mapped IPv4, loopback, private, unspecified, the machine's own) is judged by decide().
  for (const p of hostStarts('[*')) patterns.add(p)
  // The machine's own IPv4 addresses as the policy names them now (the egress reads them again as
  // they change; this second line pauses those known when interception starts).
  for (const address of policy.ownAddresses) {
    const host = normaliseHost(address)
    if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) for (const p of hostPatterns(host)) patterns.add(p)
  }
  for (const prefix of PRIVATE_V4_PREFIXES) for (const p of hostStarts(`${prefix}*`)) patterns.add(p)

  const loopbackHosts = ['127.*', 'localhost*']
  if (!policy.allowLoopback) {
    for (const h of loopbackHosts) for (const p of hostStarts(h)) patterns.add(p)
    patterns.add('*.localhost*')
  } else {
    for (const { port } of policy.ownPorts) {
      for (const h of loopbackHosts) for (const p of hostStarts(`${h}:${port}/*`)) patterns.add(p)
      patterns.add(`*.localhost*:${port}/*`)
      // A default port is not written in a canonical URL: pause all loopback of that scheme.
      for (const [scheme, defaultPort] of Object.entries(DEFAULT_PORT)) {
        if (port === defaultPort) {
          for (const h of loopbackHosts) {
            patterns.add(`${scheme}://${h}`)
            patterns.add(`${scheme}://*@${h}`)
          }
          patterns.add(`${scheme}://*.localhost*`)
        }
      }
    }
  }
  return [...patterns]
}

/**
 * Whether a URL matches a Fetch pattern (`*` any run, `?` one character, `\` escapes), the way
 * Chromium matches them — for tests and for explaining why a request was (not) paused.
 *
 * @example
 * matchesPattern('http://10.0.0.1/', '*://10.*') // true
 */
export const matchesPattern = (url: string, pattern: string): boolean => {
  let regex = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '\\' && i + 1 < pattern.length) regex += escapeRegex(pattern[++i]!)
    else if (c === '*') regex += '[\\s\\S]*'
    else if (c === '?') regex += '[\\s\\S]'
    else regex += escapeRegex(c)
  }
  return new RegExp(`^${regex}$`).test(url)
}

const escapeRegex = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
