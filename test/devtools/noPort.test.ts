// Issue #27 (A1, A4, G2): no local process but the engine reaches its Chromiums' CDP. The
// errands' browser runs over Playwright's pipe (no --remote-debugging-port, no launch server), the
// DevTools proxy rides that connection (a browser session per client), and after start no
// Chromium process of the engine owns a LISTEN socket — checked from /proc, as any local user can.
import { chromium as pw } from 'playwright-core'
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { crConnectionOf, pidsWithEnv, routerInstalled } from '@errands/runtime-chromium'
import { describe, expect, it } from 'vitest'
import { eventually } from '../fixtures/processes.ts'
import { useDevToolsHost } from './harness.ts'

const env = useDevToolsHost(1)

/** Inodes of every TCP socket in LISTEN state (st 0A), v4 and v6. */
const listeningInodes = (): Set<string> => {
  const inodes = new Set<string>()
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = ''
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      if (f[3] === '0A' && f[9] !== undefined) inodes.add(f[9])
    }
  }
  return inodes
}

/** The LISTEN sockets `pid` holds (from /proc/<pid>/fd), as `pid:inode`. */
const listenersOf = (pid: number, listening: Set<string>): Array<string> => {
  let fds: Array<string> = []
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return []
  }
  const found: Array<string> = []
  for (const fd of fds) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]
      if (inode !== undefined && listening.has(inode)) found.push(`${pid}:${inode}`)
    } catch {
      // closed while we looked
    }
  }
  return found
}

describe('no debugging port (A4, #27)', () => {
  it('no Chromium process of the engine owns a LISTEN socket, with an errand and a DevTools client up', async () => {
    const { host } = env()
    const url = await env().endpoint('np')
    const client = await pw.connectOverCDP(url)
    try {
      const page = await client.contexts()[0]!.newPage()
      await page.goto('about:blank')
      expect(await page.evaluate('1 + 1')).toBe(2)
      // Every process of both browsers carries the engine's mark (ERRANDS_OWNER=<dataDir>).
      const pids = pidsWithEnv(`ERRANDS_OWNER=${host.dataDir}`)
      expect(pids.length).toBeGreaterThan(4)
      expect(host.chromium.errandsBrowserPid()).toBeDefined()
      expect(pids).toContain(host.chromium.errandsBrowserPid())
      const listening = listeningInodes()
      expect(pids.flatMap((pid) => listenersOf(pid, listening))).toEqual([])
    } finally {
      await client.close()
    }
  })

  it('the /proc check sees a Chromium that does listen (the check can fail)', async () => {
    const child = spawn(
      '/usr/lib/chromium/chromium',
      [
        '--headless',
        '--no-sandbox',
        '--remote-debugging-port=0',
        '--user-data-dir=/tmp/errands-noport-control',
        'about:blank',
      ],
      { stdio: 'ignore' },
    )
    try {
      expect(await eventually(async () => listenersOf(child.pid!, listeningInodes()).length > 0, 20_000)).toBe(true)
    } finally {
      child.kill('SIGKILL')
    }
  })

  it(
    'pins the Playwright internals the DevTools channel rides (ADR 0016): fails naming the one an upgrade ' + 'changed',
    async () => {
      const { host } = env()
      await env().endpoint('np2')
      const contextId = host.supervisor.contextOf('session:np2')!
      const target = await host.run(host.runtime.devtools!(contextId))
      const channel = await target.connect()
      try {
        const { browser } = await (
          host.chromium as unknown as { errands: { ensure(): Promise<{ browser: import('playwright-core').Browser }> } }
        ).errands.ensure()
        // crConnectionOf throws "Playwright internal changed: …" naming what is missing.
        const connection = crConnectionOf(browser)
        expect(typeof connection.rootSession.send).toBe('function')
        expect(typeof connection._transport.send).toBe('function')
        expect(routerInstalled(browser)).toBe(true)
        // The channel is a root-like connection: Browser.getVersion answers without a sessionId.
        const answer = await new Promise<{ id?: number; result?: unknown; sessionId?: string }>((resolve) => {
          channel.onMessage((m) => m.id === 7 && resolve(m))
          channel.send({ id: 7, method: 'Browser.getVersion', params: {} })
        })
        expect(answer.sessionId).toBeUndefined()
        expect(JSON.stringify(answer.result)).toContain('Chrom')
        // A session of no one: answered as Chromium answers, never reaching another channel.
        const refused = await new Promise<{ error?: { code?: number } }>((resolve) => {
          channel.onMessage((m) => m.id === 8 && resolve(m as never))
          channel.send({ id: 8, method: 'Runtime.evaluate', params: { expression: '1' }, sessionId: 'F'.repeat(32) })
        })
        expect(refused.error?.code).toBe(-32001)
        // The engine's own connection still works after ours (Playwright never saw our messages).
        expect(await host.call('np2', 'GET', '/v1/tabs').then((r) => r.status)).toBe(200)
      } finally {
        channel.close()
      }
    },
  )
})
