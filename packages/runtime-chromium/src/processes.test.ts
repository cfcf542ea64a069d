import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { browserPidOf, killAll, untilGone } from './processes.ts'

const started: Array<number> = []
afterEach(() => {
  killAll(started)
  untilGone(started, 5_000)
  started.length = 0
})

describe('browserPidOf', () => {
  it('finds our own child, not an older process of the same TMPDIR (a crashpad handler after pids wrapped)', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'errands-pids-'))
    try {
      const env = { ...process.env, TMPDIR: tmp }
      // A process with the TMPDIR that is not our child (its parent exits at once), started
      // first so its pid is lower: what a crashpad handler looks like once pids wrapped.
      const orphan = Number(
        spawnSync('sh', ['-c', 'sleep 30 >/dev/null 2>&1 & echo $!'], { env, encoding: 'utf8' }).stdout.trim(),
      )
      started.push(orphan)
      const child: ChildProcess = spawn('sleep', ['31'], { env, stdio: 'ignore' })
      started.push(child.pid!)
      expect(orphan).toBeLessThan(child.pid!)
      expect(readFileSync(`/proc/${orphan}/environ`, 'latin1')).toContain(`TMPDIR=${tmp}`)
      expect(browserPidOf(tmp)).toBe(child.pid)
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  })

  it('passes over a helper of ours started with --type=', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'errands-pids-'))
    try {
      // Node keeps its command line; `sh -c 'sleep 32' --type=…` did not: dash execs its last
      // command, and once it had, the process read as `sleep 32` (CI: 'expected 20330 to be undefined').
      const helper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 32_000)', '--type=renderer'], {
        env: { ...process.env, TMPDIR: tmp },
        stdio: 'ignore',
      })
      started.push(helper.pid!)
      const argv = (pid: number | undefined) =>
        pid === undefined ? undefined : readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')
      await expect.poll(() => argv(helper.pid)).toContain('--type=renderer')
      const found = browserPidOf(tmp)
      expect({ found, argv: argv(found) }).toEqual({ found: undefined, argv: undefined })
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  })
})

describe('browserPidOf without a child of ours', () => {
  it('passes over a crashpad handler', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'errands-pids-'))
    try {
      const env = { ...process.env, TMPDIR: tmp }
      const spawnOrphan = (argv0: string) =>
        Number(
          spawnSync('bash', ['-c', `exec -a ${argv0} sleep 33 >/dev/null 2>&1 & echo $!`], {
            env,
            encoding: 'utf8',
          }).stdout.trim(),
        )
      const handler = spawnOrphan('/usr/lib/chromium/chrome_crashpad_handler')
      started.push(handler)
      const browser = spawnOrphan('/usr/lib/chromium/chromium')
      started.push(browser)
      expect(browserPidOf(tmp)).toBe(browser)
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  })
})
