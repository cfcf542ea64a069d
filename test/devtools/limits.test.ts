// Issue #27 (A1, S3): limits of an errand's DevTools endpoint, attacked from outside. A 100 MB
// frame from another process is refused with a close reason naming the limit, and the host's
// memory stays within 50 MB of before (it used to take the host from 249 to 749 MB and close with
// a misleading "browser went away"); a connection past the per-errand limit is refused with 429;
// a flood past the in-flight limit is refused command by command, and the connection goes on.
import { spawn } from 'node:child_process'
import { MAX_CONNECTIONS, MAX_IN_FLIGHT } from '@errands/devtools'
import { describe, expect, it } from 'vitest'
import { useDevToolsHost } from './harness.ts'
import { RawCdp } from './raw.ts'

const env = useDevToolsHost(1)

/** Another process sends one frame of `bytes` and reports how its connection ended. */
const hugeFrameFrom = (url: string, bytes: number): Promise<{ code: number; reason: string }> =>
  new Promise((resolve, reject) => {
    const script = `
      const WebSocket = require('ws')
      const ws = new WebSocket(process.argv[1], { perMessageDeflate: false })
      ws.on('open', () => ws.send(Buffer.alloc(Number(process.argv[2]), 120)))
      ws.on('close', (code, reason) => {
        process.stdout.write(JSON.stringify({ code, reason: reason.toString() }))
        process.exit(0)
      })
      ws.on('error', () => undefined)
    `
    const child = spawn(process.execPath, ['-e', script, url, String(bytes)], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.on('exit', () => (out ? resolve(JSON.parse(out)) : reject(new Error('the client process reported nothing'))))
  })

const rssMb = () => {
  globalThis.gc?.()
  return process.memoryUsage().rss / 1024 / 1024
}

describe('limits of the DevTools endpoint (#27)', () => {
  it('refuses a 100 MB frame with a reason naming the limit; the host stays within 50 MB', async () => {
    const url = await env().endpoint('lim-frame')
    const before = rssMb()
    let peak = before
    const watch = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss / 1024 / 1024)), 20)
    try {
      const ended = await hugeFrameFrom(url, 100 * 1024 * 1024)
      expect(ended.code).toBe(1009)
      expect(ended.reason).toMatch(/frame limit/)
      expect(ended.reason).toMatch(/16777216 bytes/)
    } finally {
      clearInterval(watch)
    }
    expect(peak - before).toBeLessThan(50)
    // The errand goes on: a new connection works.
    const cdp = await RawCdp.open(await env().endpoint('lim-frame'))
    expect((await cdp.send('Browser.getVersion')).result).toBeDefined()
    cdp.close()
  })

  it(`refuses connection ${MAX_CONNECTIONS + 1} of one errand with 429; another errand is not counted`, async () => {
    const open: Array<RawCdp> = []
    try {
      for (let i = 0; i < MAX_CONNECTIONS; i++) open.push(await RawCdp.open(await env().endpoint('lim-conn')))
      await expect(RawCdp.open(await env().endpoint('lim-conn'))).rejects.toThrow(/HTTP 429/)
      const other = await RawCdp.open(await env().endpoint('lim-other'))
      open.push(other)
      expect((await other.send('Browser.getVersion')).result).toBeDefined()
      // One closed: room for one more.
      open.shift()!.close()
      await open[0]!.send('Browser.getVersion')
      let again: RawCdp | undefined
      for (let i = 0; i < 50 && again === undefined; i++) {
        again = await RawCdp.open(await env().endpoint('lim-conn')).catch(() => undefined)
        if (again === undefined) await new Promise((r) => setTimeout(r, 50))
      }
      expect(again).toBeDefined()
      open.push(again!)
    } finally {
      for (const c of open) c.close()
    }
  })

  it('refuses a flood past the in-flight limit command by command, and the connection goes on', async () => {
    const cdp = await RawCdp.open(await env().endpoint('lim-flood'))
    try {
      // Commands that stay in flight (the page answers each after 1.5 s): the endpoint takes one
      // message per turn of its event loop, so instant ones could be answered as fast as they come.
      const { sessionId } = await cdp.newPage()
      const slow = () =>
        cdp.send(
          'Runtime.evaluate',
          { expression: 'new Promise((r) => setTimeout(r, 1500))', awaitPromise: true },
          sessionId,
        )
      const answers = await Promise.all(Array.from({ length: MAX_IN_FLIGHT + 20 }, slow))
      const refused = answers.filter((a) => a.error !== undefined)
      expect(refused).toHaveLength(20)
      expect(refused[0]!.error!.message).toMatch(/in-flight limit/)
      expect(refused[0]!.error!.code).toBe(-32000)
      expect(answers.filter((a) => a.result !== undefined)).toHaveLength(MAX_IN_FLIGHT)
      expect((await cdp.send('Browser.getVersion')).result).toBeDefined()
      expect(cdp.ended).toBeUndefined()
      // Another errand was served meanwhile.
      expect((await env().host.call('lim-other2', 'GET', '/v1/url')).status).toBe(200)
    } finally {
      cdp.close()
    }
  })
})
