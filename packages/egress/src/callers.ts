/**
 * Who may use a lane (G3, docs/containment.md "Lanes are the engine's own"): a lane is a loopback
 * port, and any local process can connect to one — an agent's script, another user's program —
 * and would find an open proxy there, with the errand's upstream credentials attached. A lane
 * admits a connection only when the socket at its other end is held by this process or one of its
 * descendants: the Chromiums the engine started (their network service holds every connection
 * to a proxy). The kernel says who holds it (`localPeerOf`, `@errands/edge`); nothing the caller
 * sends counts.
 *
 * Proxy credentials per context would say the same, but Playwright answers a proxy's 407 by
 * pausing every request and switching the HTTP cache off, and Chromium's own DevTools answers a
 * 407 only for requests it pauses (measured: a browser-level `Fetch.enable` with
 * `handleAuthRequests` and the guard's narrow patterns never saw the challenge, and the page got
 * `ERR_INVALID_AUTH_CREDENTIALS`). ADR: docs/adr/0042-lanes-admit-the-engines-own-processes.md.
 *
 * @example
 * const admit = admitOwnProcesses()
 * if (!(await admit(socket))) socket.destroy()
 */
import { existsSync } from 'node:fs'
import { type ConnectionEnds, descendantsOf, type LocalPeer, localPeerOf } from '@errands/edge'

/** Whether a connection to a lane may use it. @example const admit: Admission = async () => true */
export type Admission = (connection: ConnectionEnds) => Promise<boolean>

/**
 * Whether this machine lets a lane tell who its caller is (Linux `/proc`). Where it cannot, lanes
 * admit every local caller, and the egress says so once when it starts.
 *
 * @example
 * if (!canTellCallers()) log('lanes cannot tell the engine's browser from other local processes')
 */
export const canTellCallers = (): boolean => existsSync('/proc/net/tcp')

/** How many processes that held a lane's caller before are tried first (the network services). */
const REMEMBERED = 4

/**
 * Admits a connection whose other end is held by process `root` (default: this one) or a process
 * it started. The processes that held a caller before are tried first (a browser's network
 * service holds them all: one `/proc/<pid>/fd` scan); only when none holds it is the whole tree
 * read again, one such search at a time, so a flood of strangers costs one search after another.
 *
 * @example
 * const admit = admitOwnProcesses()
 */
export const admitOwnProcesses = (root: number = process.pid): Admission => {
  if (!canTellCallers()) return () => Promise.resolve(true)
  // Remembered by pid and start time: a pid the kernel gave to a new process is not the one we knew.
  let holders: ReadonlyArray<LocalPeer> = []
  let slow: Promise<unknown> = Promise.resolve()
  const remember = (peer: LocalPeer) => {
    holders = [peer, ...holders.filter((h) => h.pid !== peer.pid)].slice(0, REMEMBERED)
  }
  const searchTree = async (connection: ConnectionEnds, tried: ReadonlyArray<number>) => {
    const tree = [root, ...(await descendantsOf(root))].filter((pid) => !tried.includes(pid))
    const peer = await localPeerOf(connection, () => tree)
    if (peer !== undefined) remember(peer)
    return peer !== undefined
  }
  return async (connection) => {
    const known = holders.map((h) => h.pid)
    const peer = await localPeerOf(connection, () => known)
    if (peer !== undefined && holders.some((h) => h.pid === peer.pid && h.startTime === peer.startTime)) return true
    const next = slow.then(() => searchTree(connection, known))
    slow = next.catch(() => undefined)
    return next
  }
}
