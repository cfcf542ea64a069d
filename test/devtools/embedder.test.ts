// Issue #13 (A1): an embedder gets the DevTools endpoint from the Promise API (`DevToolsServer`
// over `Errands`, the same service the host mounts) — a real errand in our own Chromium; a chat
// on the person's main context and a runtime without a real browser get a typed refusal.
import { DevToolsServer } from '@errands/devtools'
import { ChromiumRuntime } from '@errands/runtime-chromium'
import { Errands } from '@errands/supervisor'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { closeSites, serveSites } from '../fixtures/sites.ts'
import { RawCdp } from './raw.ts'

describe('the DevTools endpoint from the Promise API', () => {
  it('hands out a URL into an errand of our own Chromium, and refuses a chat on the main context', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'errands-embed-'))
    const [site] = await serveSites(1)
    const errands = await Errands.create({
      settings: { dataDir },
      runtime: ChromiumRuntime.layer({ dataDir, warmSpare: false }),
    })
    const devtools = await DevToolsServer.start(errands)
    try {
      await errands.open({ id: 'task-1', kind: 'task' })
      const url = await devtools.url('task-1')
      expect(url.startsWith(`${devtools.baseUrl}/devtools/`)).toBe(true)
      const browser = await chromium.connectOverCDP(url)
      const page = await browser.contexts()[0]!.newPage()
      await page.goto(site!.url('/title?t=embedded'))
      expect(await page.title()).toBe('embedded')
      expect(devtools.connections('task-1')).toBe(1)
      await browser.close()

      await errands.open({ id: 'chat-1', kind: 'chat' })
      await expect(devtools.url('chat-1')).rejects.toMatchObject({
        _tag: 'DevToolsUnavailable',
        reason: 'not-an-errand',
        status: 409,
      })
      await expect(devtools.url('nobody')).rejects.toMatchObject({ _tag: 'UnknownConversation' })
    } finally {
      await devtools.close()
      await errands.close()
      await closeSites([site!])
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('takes the limits from its options (#27): frame size, connections per errand, commands in flight', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'errands-embed-'))
    const errands = await Errands.create({
      settings: { dataDir },
      runtime: ChromiumRuntime.layer({ dataDir, warmSpare: false }),
    })
    const devtools = await DevToolsServer.start(errands, { maxFrameBytes: 4096, maxConnections: 1, maxInFlight: 2 })
    try {
      await errands.open({ id: 'task-l', kind: 'task' })
      const first = await RawCdp.open(await devtools.url('task-l'))
      await expect(RawCdp.open(await devtools.url('task-l'))).rejects.toThrow(/HTTP 429/)
      // Five commands that stay in flight (answered after 1 s), with a limit of 2: three refused.
      const { sessionId } = await first.newPage()
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          first.send(
            'Runtime.evaluate',
            { expression: 'new Promise((r) => setTimeout(r, 1000))', awaitPromise: true },
            sessionId,
          ),
        ),
      )
      expect(answers.filter((a) => a.error?.message.includes('the in-flight limit'))).toHaveLength(3)
      first.ws.send(JSON.stringify({ id: 9, method: 'Runtime.evaluate', params: { expression: 'x'.repeat(8192) } }))
      expect(await first.closed()).toMatchObject({ code: 1009, reason: expect.stringContaining('4096 bytes') })
    } finally {
      await devtools.close()
      await errands.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('says so when the runtime has no real browser (the memory runtime)', async () => {
    const errands = await Errands.create()
    const devtools = await DevToolsServer.start(errands)
    try {
      await errands.open({ id: 'task-m', kind: 'task' })
      await expect(devtools.url('task-m')).rejects.toMatchObject({
        _tag: 'DevToolsUnavailable',
        reason: 'unsupported',
        status: 501,
      })
    } finally {
      await devtools.close()
      await errands.close()
    }
  })
})
