/**
 * IP literals and CIDR ranges, parsed without any I/O. Addresses are kept as `bigint`s with their
 * family so a range check is one shift and one compare.
 *
 * Hosts reach this module already canonicalised by `new URL()` (WHATWG URL, the same rules as
 * Chromium's GURL): `http://2130706433/`, `http://0x7f.1/` and `http://127.1/` all arrive as
 * `127.0.0.1`, and IPv6 arrives lower-case and compressed (`[::ffff:7f00:1]`).
 *
 * @example
 * const net = parseCidr('10.0.0.0/8')!
 * cidrContains(net, parseIp('10.1.2.3')!) // true
 */

/** An IPv4 or IPv6 address. @example const ip: IpAddress = { family: 4, value: 2130706433n } */
export interface IpAddress {
  readonly family: 4 | 6
  readonly value: bigint
}

/** A CIDR range: the network address and its prefix length. @example parseCidr('10.0.0.0/8') */
export interface Cidr {
  readonly family: 4 | 6
  readonly network: bigint
  readonly prefix: number
  /** The range as written in canonical form, e.g. `10.0.0.0/8`. */
  readonly text: string
}

const bits = (family: 4 | 6): number => (family === 4 ? 32 : 128)

/**
 * Parses a dotted-quad IPv4 address (exactly four decimal parts, as URL canonicalisation leaves it).
 *
 * @example
 * parseIpv4('192.168.0.1') // { family: 4, value: 3232235521n }
 */
export const parseIpv4 = (text: string): IpAddress | undefined => {
  const parts = text.split('.')
  if (parts.length !== 4) return undefined
  let value = 0n
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined
    const n = Number(part)
    if (n > 255) return undefined
    value = (value << 8n) | BigInt(n)
  }
  return { family: 4, value }
}

/**
 * Parses an IPv6 address (with `::` compression and an optional trailing dotted IPv4 part;
 * brackets and a zone id are tolerated).
 *
 * @example
 * parseIpv6('::1') // { family: 6, value: 1n }
 */
export const parseIpv6 = (input: string): IpAddress | undefined => {
  let text = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input
  const zone = text.indexOf('%')
  if (zone >= 0) text = text.slice(0, zone)
  if (!text.includes(':')) return undefined
  const lastColon = text.lastIndexOf(':')
  const last = text.slice(lastColon + 1)
  if (last.includes('.')) {
    // A trailing dotted IPv4 part ("::ffff:1.2.3.4") becomes two hex groups.
    const v4 = parseIpv4(last)
    if (!v4) return undefined
    text = `${text.slice(0, lastColon + 1)}${(v4.value >> 16n).toString(16)}:${(v4.value & 0xffffn).toString(16)}`
  }
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  const parseGroups = (s: string): Array<number> | undefined => {
    if (s === '') return []
    const groups: Array<number> = []
    for (const g of s.split(':')) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined
      groups.push(parseInt(g, 16))
    }
    return groups
  }
  const head = parseGroups(halves[0] ?? '')
  const rest = halves.length === 2 ? parseGroups(halves[1] ?? '') : []
  if (!head || !rest) return undefined
  const explicit = head.length + rest.length
  let groups: Array<number>
  if (halves.length === 2) {
    if (explicit > 7) return undefined
    groups = [...head, ...new Array<number>(8 - explicit).fill(0), ...rest]
  } else {
    groups = head
    if (groups.length !== 8) return undefined
  }
  let value = 0n
  for (const g of groups) value = (value << 16n) | BigInt(g)
  return { family: 6, value }
}

/**
 * Parses an IPv4 or IPv6 literal; `undefined` for a host name.
 *
 * @example
 * parseIp('[fe80::1]')?.family // 6
 */
export const parseIp = (text: string): IpAddress | undefined => parseIpv4(text) ?? parseIpv6(text)

/**
 * The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), if it is one.
 * Chromium connects to the IPv4 address for these, so the guard judges them as that address.
 *
 * @example
 * unmapIpv4(parseIp('::ffff:7f00:1')!) // { family: 4, value: 2130706433n }
 */
export const unmapIpv4 = (ip: IpAddress): IpAddress | undefined =>
  ip.family === 6 && ip.value >> 32n === 0xffffn ? { family: 4, value: ip.value & 0xffffffffn } : undefined

/**
 * Formats an address canonically (dotted quad, or full lower-case IPv6 groups compressed once).
 *
 * @example
 * formatIp(parseIp('0:0:0:0:0:0:0:1')!) // "::1"
 */
export const formatIp = (ip: IpAddress): string => {
  if (ip.family === 4) {
    return [24n, 16n, 8n, 0n].map((s) => String((ip.value >> s) & 0xffn)).join('.')
  }
  const groups = Array.from({ length: 8 }, (_, i) => Number((ip.value >> BigInt(112 - 16 * i)) & 0xffffn))
  // The longest run of zero groups (length ≥ 2) is compressed, as RFC 5952 says.
  let bestStart = -1
  let bestLen = 0
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i
      bestLen = j - i
    }
    i = j
  }
  const hex = groups.map((g) => g.toString(16))
  if (bestStart < 0) return hex.join(':')
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`
}

/**
 * Parses `addr/prefix` (or a bare address, meaning a single host). Host bits are cleared.
 *
 * @example
 * parseCidr('192.168.1.7/16')?.text // "192.168.0.0/16"
 */
export const parseCidr = (text: string): Cidr | undefined => {
  const slash = text.lastIndexOf('/')
  const addrText = slash >= 0 ? text.slice(0, slash) : text
  const ip = parseIp(addrText.trim())
  if (!ip) return undefined
  const max = bits(ip.family)
  let prefix = max
  if (slash >= 0) {
    const p = text.slice(slash + 1).trim()
    if (!/^\d{1,3}$/.test(p)) return undefined
    prefix = Number(p)
    if (prefix > max) return undefined
  }
  const shift = BigInt(max - prefix)
  const network = (ip.value >> shift) << shift
  return { family: ip.family, network, prefix, text: `${formatIp({ family: ip.family, value: network })}/${prefix}` }
}

/**
 * Whether `ip` lies in `cidr` (families must match; IPv4-mapped IPv6 is unmapped by the caller).
 *
 * @example
 * cidrContains(parseCidr('fc00::/7')!, parseIp('fd12::1')!) // true
 */
export const cidrContains = (cidr: Cidr, ip: IpAddress): boolean => {
  if (cidr.family !== ip.family) return false
  const shift = BigInt(bits(ip.family) - cidr.prefix)
  return ip.value >> shift === cidr.network >> shift
}

const cidrs = (...texts: Array<string>): ReadonlyArray<Cidr> => texts.map((t) => parseCidr(t)!)

/**
 * Loopback ranges: `127.0.0.0/8` and `::1`.
 *
 * @example
 * LOOPBACK_RANGES.some((c) => cidrContains(c, parseIp('127.9.9.9')!)) // true
 */
export const LOOPBACK_RANGES: ReadonlyArray<Cidr> = cidrs('127.0.0.0/8', '::1/128')

/**
 * The "unspecified" addresses. On Linux a connection to `0.0.0.0` or `::` reaches the local
 * machine, so the guard treats them as loopback for the own-ports rule and as private otherwise.
 *
 * @example
 * UNSPECIFIED_RANGES.length // 2
 */
export const UNSPECIFIED_RANGES: ReadonlyArray<Cidr> = cidrs('0.0.0.0/8', '::/128')

/**
 * Private and local ranges that are blocked unless the policy allows them (G2):
 * RFC 1918, link-local, carrier-grade NAT, "this network", unique-local and link/site-local IPv6.
 *
 * @example
 * PRIVATE_RANGES.map((c) => c.text)
 */
export const PRIVATE_RANGES: ReadonlyArray<Cidr> = cidrs(
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '169.254.0.0/16',
  '100.64.0.0/10',
  '0.0.0.0/8',
  '::/128',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
)
