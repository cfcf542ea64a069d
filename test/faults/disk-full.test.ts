import { words } from '@errands/supervisor'
import { Effect, Either } from 'effect'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { fillDisk } from '../fixtures/fillDisk.ts'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { seen, startEngine, type Engine } from '../errands/harness.ts'

/*
 * Issue #9, fault 3: a full disk under the sealed store. The store lives on a real 512 KiB
 * tmpfs (`mount -t tmpfs`, as root), filled to the last byte: every store write fails with ENOSPC
 * from the kernel, which the store turns into its typed `StoreError('disk-full')`. Nothing may be
 * lost in memory: parking leaves the errand open with its state, making room at the cap refuses
 * in words, and once there is room again parking works and the errand comes back as it was.
 * Where mounting is not allowed (not root, no CAP_SYS_ADMIN) the test is skipped, saying why.
 */
const probeMount = (): string | undefined => {
  const dir = mkdtempSync(join(tmpdir(), 'errands-mount-probe-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'pipe' })
    execFileSync('umount', [dir], { stdio: 'pipe' })
    return undefined
  } catch (e) {
    return String((e as { stderr?: Buffer }).stderr ?? e)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
const cannotMount = probeMount()
if (cannotMount !== undefined)
  console.warn(`disk-full fault test skipped: cannot mount a tmpfs here (${cannotMount.trim()})`)

let site: Site
let engine: Engine | undefined
let dataDir = ''
let storeDir = ''
let mounted = false

beforeAll(async () => {
  ;[site] = (await serveSites(1)) as [Site]
})
afterAll(async () => {
  await engine?.close()
  if (mounted) execFileSync('umount', [storeDir])
  if (dataDir !== '') rmSync(dataDir, { recursive: true, force: true })
  await closeSites([site])
})

describe.skipIf(cannotMount !== undefined)('a full disk under the sealed store (issue #9)', () => {
  it(
    'park fails with the typed disk-full error and the errand stays open with its state; the cap refuses in words; ' +
      'with room again it parks and resumes as it was',
    async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'errands-fault-disk-'))
      storeDir = join(dataDir, 'store')
      mkdirSync(storeDir)
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=512k,mode=0700', 'tmpfs', storeDir])
      mounted = true
      engine = await startEngine({ maxErrands: 1, snapshotDebounceMs: 300 }, {}, dataDir)
      const { supervisor, chromium } = engine
      const { contextId } = await engine.run(supervisor.open({ id: 'full', kind: 'task' }))
      const page = await engine.newPage(contextId, site.url('/add?item=keep'))
      await page.evaluate(() => localStorage.setItem('basket', 'kept'))
      await engine.newPage(contextId, site.url('/title?t=second'))
      const tabs = (await engine.run(chromium.tabs(contextId))).map((t) => t.url)

      fillDisk(storeDir)
      const view = await engine.run(supervisor.taskChanged('full', 'interrupted'))
      expect(view.state).toBe('active')
      expect(view.lastError).toMatch(/disk-full/)
      expect((await engine.run(supervisor.health)).map((m) => m.text)).toContain(words.parkFailed('disk-full'))
      // Nothing lost: the same context, its tabs, cookie and storage; no half-written file left.
      expect(supervisor.contextOf('full')).toBe(contextId)
      expect((await engine.run(chromium.tabs(contextId))).map((t) => t.url)).toEqual(tabs)
      expect(readdirSync(join(storeDir, 'errands'))).toEqual([])

      // At the cap, the only idle errand cannot be set aside: the new one is refused in words,
      // and the open one is untouched.
      const refused = await engine.run(Effect.either(supervisor.open({ id: 'newcomer', kind: 'task' })))
      expect(Either.isLeft(refused) && refused.left._tag).toBe('AllBusy')
      expect(Either.isLeft(refused) && refused.left.message).toMatch(/try again/)
      expect(supervisor.contextOf('full')).toBe(contextId)

      // Room again: it parks, then resumes as it was.
      rmSync(join(storeDir, 'filler'))
      expect((await engine.run(supervisor.taskChanged('full', 'interrupted'))).state).toBe('parked')
      expect(readdirSync(join(storeDir, 'errands')).filter((n) => n.endsWith('.sealed'))).toHaveLength(1)
      await engine.run(supervisor.resume('full'))
      const back = supervisor.contextOf('full')!
      const backTabs = await engine.run(chromium.tabs(back))
      expect(backTabs.map((t) => t.url)).toEqual(tabs)
      const state = await seen(chromium.pageOf(back, backTabs[0]!.id)!, site.url('/echo'))
      expect(state.cookie).toContain('basket=keep')
      expect(state.localBasket).toBe('kept')
      await engine.close()
      engine = undefined
    },
  )
})
