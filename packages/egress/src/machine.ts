/**
 * The machine's own addresses (G2): every address of its own interfaces besides loopback — the
 * eth0 address, a second NIC's, a VPN's, IPv6 global and link-local ones. A service bound to
 * `0.0.0.0` answers on each of them, so a page that asks for `http://<eth0 address>:port/` reaches
 * the machine as surely as one that asks for 127.0.0.1 — and when that address is not private
 * (a public or TEST-NET address on eth0), the guard's `public` rule used to let it through.
 *
 * {@link withMachineAddresses} gives a policy whose `ownAddresses` are read from
 * `os.networkInterfaces()` when first asked and again whenever the last reading is older than
 * {@link MACHINE_READ_MS}: interfaces change (DHCP, a VPN, a container's veth) and Node has no
 * event for it. The guard's `own-address` rule blocks them; IPv4-mapped spellings
 * (`[::ffff:192.0.2.2]`) are unmapped before they are judged.
 *
 * @example
 * const policy = withMachineAddresses(defaultPolicy([{ port: 7070 }]))
 * decide('http://192.0.2.2:8080/', policy).rule // "own-address" on a machine whose eth0 is 192.0.2.2
 */
import { networkInterfaces } from 'node:os'
import { cidrContains, type GuardPolicy, LOOPBACK_RANGES, parseIp } from '@errands/guard'

/**
 * How old a reading of the interfaces may be before it is read again: an address added to an
 * interface is the machine's within this time. A reading costs ~0.3 ms (measured on a loaded
 * two-core machine); once per connection would be paid by every page load.
 *
 * @example
 * MACHINE_READ_MS // 250
 */
export const MACHINE_READ_MS = 250

/**
 * Every address of this machine's interfaces that is not loopback (loopback has rules of its own).
 *
 * @example
 * interfaceAddresses() // ['192.0.2.2', 'fd00::2', 'fe80::fc:ff:fe00:1']
 */
export const interfaceAddresses = (): ReadonlyArray<string> =>
  Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((info) => info.address)
    .filter((address) => {
      const ip = parseIp(address)
      return ip !== undefined && !LOOPBACK_RANGES.some((range) => cidrContains(range, ip))
    })

const LIVE = Symbol.for('errands.egress.machineAddresses')

/**
 * `policy` with the machine's own addresses in `ownAddresses` (those it named kept too), read
 * again when older than {@link MACHINE_READ_MS}. A policy that already is one comes back as it is.
 * Spreading the answer (`{ ...policy }`) freezes today's list: change it with {@link changedPolicy}.
 *
 * @example
 * const policy = withMachineAddresses(hostPolicy(7777))
 */
export const withMachineAddresses = (
  policy: GuardPolicy,
  read: () => ReadonlyArray<string> = interfaceAddresses,
  now: () => number = Date.now,
): GuardPolicy => {
  if ((policy as { [LIVE]?: true })[LIVE]) return policy
  const named = policy.ownAddresses
  let list: ReadonlyArray<string> = named
  let key = ''
  let readAt = Number.NEGATIVE_INFINITY
  const current = (): ReadonlyArray<string> => {
    if (now() - readAt < MACHINE_READ_MS) return list
    readAt = now()
    const next = [...named, ...read()]
    const nextKey = next.join(',')
    // The same list keeps its identity, so the guard's compiled copy of it stays good.
    if (nextKey !== key) {
      key = nextKey
      list = next
    }
    return list
  }
  const live = { ...policy }
  Object.defineProperty(live, 'ownAddresses', { get: current, enumerable: true })
  Object.defineProperty(live, LIVE, { value: true })
  return live
}

/**
 * `policy` with `changes`, its live list of the machine's addresses kept live (a spread would
 * freeze today's list).
 *
 * @example
 * const withLanes = changedPolicy(policy, { ownPorts: [...policy.ownPorts, { host: '127.0.0.1', port: 41000 }] })
 */
export const changedPolicy = (policy: GuardPolicy, changes: Partial<GuardPolicy>): GuardPolicy => {
  const next = { ...policy, ...changes }
  const live = Object.getOwnPropertyDescriptor(policy, 'ownAddresses')
  if (live?.get !== undefined && changes.ownAddresses === undefined) {
    Object.defineProperty(next, 'ownAddresses', live)
    Object.defineProperty(next, LIVE, { value: true })
  }
  return next
}
