import { spawn } from 'node:child_process'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admitOwnProcesses } from './callers.ts'

let server: Server
let port = 0
const accepted: Array<Socket> = []
const nextAccepted = () => new Promise<Socket>((r) => server.once('connection', r))

beforeAll(async () => {
  server = createServer((s) => accepted.push(s))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  port = (server.address() as { port: number }).port
})
afterAll(async () => {
  for (const s of accepted) s.destroy()
  await new Promise((r) => server.close(r))
})

describe("admitOwnProcesses: a lane's callers (G3)", () => {
  it('admits a socket this process holds, again from what it remembers', async () => {
    const admit = admitOwnProcesses()
    for (let i = 0; i < 2; i++) {
      const arriving = nextAccepted()
      const client = connect(port, '127.0.0.1')
      expect(await admit(await arriving)).toBe(true)
      client.destroy()
    }
  })

  it('refuses a socket of a process that is none of ours (orphaned, so its parent is not us)', async () => {
    const admit = admitOwnProcesses()
    const arriving = nextAccepted()
    const script = `const s = require('net').connect(${port}, '127.0.0.1'); setTimeout(() => s.destroy(), 30000)`
    const shell = spawn('sh', ['-c', `"${process.execPath}" -e "$0" </dev/null >/dev/null 2>&1 & echo $!`, script], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    const exited = new Promise((r) => shell.once('exit', r))
    let pid = ''
    shell.stdout.on('data', (d: Buffer) => (pid += d.toString('utf8')))
    try {
      const socket = await arriving
      expect(await admit(socket)).toBe(false)
      // A child of ours is ours: the engine's Chromiums are its children.
      const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' })
      const fromChild = nextAccepted()
      try {
        expect(await admit(await fromChild)).toBe(true)
      } finally {
        child.kill('SIGKILL')
      }
    } finally {
      await exited
      if (pid.trim() !== '') process.kill(Number(pid.trim()), 'SIGKILL')
    }
  })
})
