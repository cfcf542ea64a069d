/**
 * Which local process holds the other end of a loopback TCP connection (Linux `/proc`).
 *
 * Every local process connects from 127.0.0.1, and every header it sends (an `Origin`, a user
 * agent) is its own to choose: on loopback the address says nothing about who calls. The kernel
 * knows: the caller's socket is a line of `/proc/net/tcp` (or `tcp6`) whose local end is our
 * peer's address and port and whose remote end is ours, that line names the socket's inode, and
 * the process holding it has a `/proc/<pid>/fd/*` link to `socket:[<inode>]`. Two uses:
 *
 * - the egress lanes accept only sockets held by this process or one it started — our own
 *   Chromium (docs/containment.md, "Lanes are the engine's own");
 * - the Daily door counts failed pairing codes per calling process, so one local process cannot
 *   lock the person's extension out (docs/daily-browser.md).
 *
 * Without `/proc` (not Linux) or when the caller's process cannot be read (another user's, for a
 * host that does not run as root), the answer is `undefined`: callers decide what that means.
 *
 * @example
 * const peer = await localPeerOf(req.socket)
 * peer?.pid // the calling process
 */
import { readdir, readFile, readlink } from 'node:fs/promises'

/** The local process at the other end of a connection: its pid and its start time (pids are reused). */
export interface LocalPeer {
  readonly pid: number
  /** Field 22 of `/proc/<pid>/stat`, in clock ticks since boot: with the pid, names one process for good. */
  readonly startTime: string
}

/** The two ends of a connection as this process sees them (a `net.Socket` is one). */
export interface ConnectionEnds {
  readonly localAddress?: string | undefined
  readonly localPort?: number | undefined
  readonly remoteAddress?: string | undefined
  readonly remotePort?: number | undefined
}

/** An address of `/proc/net/tcp{,6}` (hex, 32-bit words in host order — little-endian here) as text. */
const procAddress = (hex: string): string => {
  const words = hex.match(/.{8}/g) ?? []
  const bytes = words.flatMap((w) => [w.slice(6, 8), w.slice(4, 6), w.slice(2, 4), w.slice(0, 2)])
  if (bytes.length === 4) return bytes.map((b) => Number.parseInt(b, 16)).join('.')
  const groups: Array<string> = []
  for (let i = 0; i < 16; i += 2) groups.push(`${bytes[i]}${bytes[i + 1]}`.toLowerCase())
  // An IPv4-mapped IPv6 address is that IPv4 address, as Node reports it (`::ffff:127.0.0.1` → 127.0.0.1).
  if (groups.slice(0, 5).every((g) => g === '0000') && groups[5] === 'ffff')
    return bytes
      .slice(12)
      .map((b) => Number.parseInt(b, 16))
      .join('.')
  return groups.map((g) => g.replace(/^0{1,3}/, '')).join(':')
}

/** An address as Node reports it, in the form `procAddress` gives (mapped IPv4 unmapped, IPv6 uncompressed). */
const nodeAddress = (address: string): string => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return mapped[1]!
  if (!address.includes(':')) return address
  const [head = '', tail = ''] = address.toLowerCase().split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === '' ? [] : tail.split(':')
  const fill = address.includes('::') ? new Array<string>(8 - left.length - right.length).fill('0') : []
  return [...left, ...fill, ...right].map((g) => g.replace(/^0+(?=.)/, '')).join(':')
}

/**
 * The inode of the socket whose local end is `peer` and whose remote end is `us`: the caller's
 * socket of a connection we accepted. `undefined` when no such socket is listed (gone, or no `/proc`).
 */
const callerInode = async (
  peer: { address: string; port: number },
  us: { address: string; port: number },
): Promise<string | undefined> => {
  const local = `${nodeAddress(peer.address)}:${peer.port}`
  const remote = `${nodeAddress(us.address)}:${us.port}`
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = await readFile(file, 'latin1')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      if (fields.length < 10) continue
      const [localHex, localPort] = fields[1]!.split(':')
      const [remoteHex, remotePort] = fields[2]!.split(':')
      if (
        `${procAddress(localHex!)}:${Number.parseInt(localPort!, 16)}` === local &&
        `${procAddress(remoteHex!)}:${Number.parseInt(remotePort!, 16)}` === remote
      )
        return fields[9]
    }
  }
  return undefined
}

/** Whether process `pid` holds socket `inode` (one of its fds links to `socket:[inode]`). */
const holds = async (pid: number, inode: string): Promise<boolean> => {
  const link = `socket:[${inode}]`
  let fds: Array<string>
  try {
    fds = await readdir(`/proc/${pid}/fd`)
  } catch {
    return false
  }
  for (const fd of fds) {
    try {
      if ((await readlink(`/proc/${pid}/fd/${fd}`)) === link) return true
    } catch {
      // closed while we looked
    }
  }
  return false
}

/** Every live pid in `/proc`. */
const allPids = async (): Promise<Array<number>> => {
  try {
    return (await readdir('/proc')).filter((n) => /^\d+$/.test(n)).map(Number)
  } catch {
    return []
  }
}

/** Fields after the command name of `/proc/<pid>/stat` (the name may hold spaces and parentheses). */
const statFields = async (pid: number): Promise<Array<string> | undefined> => {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'latin1')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/**
 * The pids of this process's descendants (children, their children …), from `/proc`.
 *
 * @example
 * (await descendantsOf(process.pid)).length // our Chromiums' processes, among others
 */
export const descendantsOf = async (root: number): Promise<Array<number>> => {
  const parents = new Map<number, number>()
  await Promise.all(
    (await allPids()).map(async (pid) => {
      const fields = await statFields(pid)
      if (fields !== undefined) parents.set(pid, Number(fields[1]))
    }),
  )
  const tree = new Set([root])
  let grew = true
  while (grew) {
    grew = false
    for (const [pid, parent] of parents)
      if (!tree.has(pid) && tree.has(parent)) {
        tree.add(pid)
        grew = true
      }
  }
  tree.delete(root)
  return [...tree]
}

/**
 * The local process holding the other end of `connection` (a socket we accepted from loopback),
 * looked for among `candidates` in their order (default: every process). `undefined` when it
 * cannot be told: no `/proc`, the caller is gone, or it is none of the candidates.
 *
 * @example
 * const peer = await localPeerOf(socket, () => [process.pid])
 */
export const localPeerOf = async (
  connection: ConnectionEnds,
  candidates: () => Promise<Iterable<number>> | Iterable<number> = allPids,
): Promise<LocalPeer | undefined> => {
  const { localAddress, localPort, remoteAddress, remotePort } = connection
  if (localAddress === undefined || localPort === undefined || remoteAddress === undefined) return undefined
  if (remotePort === undefined) return undefined
  const inode = await callerInode(
    { address: remoteAddress, port: remotePort },
    { address: localAddress, port: localPort },
  )
  // Inode 0: a socket in TIME_WAIT, held by nobody.
  if (inode === undefined || inode === '0') return undefined
  for (const pid of await candidates()) {
    if (!(await holds(pid, inode))) continue
    const fields = await statFields(pid)
    return fields === undefined ? undefined : { pid, startTime: fields[19]! }
  }
  return undefined
}
