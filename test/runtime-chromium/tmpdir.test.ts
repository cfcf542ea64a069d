import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { ChromiumRuntime } from '@errands/runtime-chromium'
import { Effect } from 'effect'
import { afterEach, describe, expect, it } from 'vitest'

// Issue #15 found it: under a TMPDIR longer than 38 bytes Chromium's singleton socket path passes
// the 107-byte limit of a Unix socket, Chromium exits at once, and Playwright only says "Target
// page, context or browser has been closed". The runtime now refuses first, in words naming the fix.
const saved = process.env.TMPDIR
const made: Array<string> = []
afterEach(() => {
  if (saved === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = saved
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const tmpOf = (bytes: number) => {
  const dir = `/tmp/e${'x'.repeat(bytes - '/tmp/e'.length)}`
  mkdirSync(dir, { recursive: true })
  made.push(dir)
  return dir
}

describe('the temp dir Chromium starts under', () => {
  it('a 39-byte TMPDIR is refused before any Chromium starts, with a typed error naming TMPDIR; 38 bytes ' +
    'start', async () => {
    const dataDir = mkdtempSync('/tmp/errands-tmpdir-')
    made.push(dataDir)
    process.env.TMPDIR = tmpOf(39)
    const refused = await Effect.runPromise(Effect.flip(ChromiumRuntime.make({ dataDir })))
    expect(refused._tag).toBe('RuntimeError')
    expect(refused.reason).toBe('invalid')
    expect(refused.message).toContain('Set TMPDIR to a folder of at most 38 bytes')

    process.env.TMPDIR = tmpOf(38)
    const runtime = await Effect.runPromise(ChromiumRuntime.make({ dataDir }))
    try {
      const id = await Effect.runPromise(
        runtime.openContext({ errandId: 'short-tmp', label: { reason: 'task', lentSites: [] } }),
      )
      expect(await Effect.runPromise(runtime.isOpen(id))).toBe(true)
    } finally {
      await Effect.runPromise(runtime.shutdown)
    }
  }, 60_000)
})
