import { spawn } from 'node:child_process'
import { createServer, connect, type Server, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { descendantsOf, localPeerOf } from './localPeer.ts'

let v4: Server
let v6: Server
const accepted: Array<Socket> = []
const nextAccepted = (server: Server) => new Promise<Socket>((r) => server.once('connection', r))

const listen = async (host: string) => {
  const server = createServer((s) => accepted.push(s))
  await new Promise<void>((r) => server.listen(0, host, () => r()))
  return server
}
const portOf = (server: Server) => (server.address() as { port: number }).port

beforeAll(async () => {
  v4 = await listen('127.0.0.1')
  v6 = await listen('::')
})
afterAll(async () => {
  for (const s of accepted) s.destroy()
  await Promise.all([v4, v6].map((s) => new Promise((r) => s?.close(r))))
})

describe('localPeerOf: the process at the other end of a loopback connection (Linux /proc)', () => {
  it('names this process for a socket it holds itself, over IPv4, IPv6 and IPv4 to a dual-stack listener', async () => {
    for (const [server, host] of [
      [v4, '127.0.0.1'],
      [v6, '::1'],
      [v6, '127.0.0.1'],
    ] as const) {
      const arriving = nextAccepted(server)
      const client = connect(portOf(server), host)
      const socket = await arriving
      const peer = await localPeerOf(socket)
      expect(peer?.pid, host).toBe(process.pid)
      expect(peer?.startTime).toMatch(/^\d+$/)
      client.destroy()
    }
  })

  it('names another local process by its pid, and finds nobody among candidates that do not hold it', async () => {
    const arriving = nextAccepted(v4)
    const child = spawn(
      process.execPath,
      ['-e', `require('net').connect(${portOf(v4)}, '127.0.0.1'); setTimeout(() => {}, 60000)`],
      { stdio: 'ignore' },
    )
    try {
      const socket = await arriving
      expect((await localPeerOf(socket))?.pid).toBe(child.pid)
      expect(await descendantsOf(process.pid)).toContain(child.pid)
      expect(await localPeerOf(socket, () => [process.pid])).toBeUndefined()
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('is undefined for a connection that is not there', async () => {
    expect(
      await localPeerOf({ localAddress: '127.0.0.1', localPort: 1, remoteAddress: '127.0.0.1', remotePort: 2 }),
    ).toBeUndefined()
  })
})
