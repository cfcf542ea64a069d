import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { browserPidOf, killAll, type Proc, untilGone } from './processes.ts'

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
      // What was taken, read again for the failure's words (it failed once under a loaded machine, unexplained).
      const seen = (file: string) => {
        try {
          return found === undefined ? undefined : readFileSync(`/proc/${found}/${file}`, 'latin1')
        } catch (e) {
          return String(e)
        }
      }
      expect(
        { found, argv: argv(found) },
        `helper ${helper.pid}, test ${process.pid}; stat ${seen('stat')}; cmdline ${JSON.stringify(seen('cmdline'))}`,
      ).toEqual({ found: undefined, argv: undefined })
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

describe('browserPidOf reads each process whole, or not at all', () => {
  const tmp = '/tmp/errands-pids-fake'
  const env = `PATH=/usr/bin\0TMPDIR=${tmp}\0`
  const stat = (pid: number, state: string, parent: number, start: number, cpu = 0) =>
    `${pid} (chromium (x)) ${state} ${parent} 1 1 0 -1 4194560 1 0 0 0 ${cpu} 0 0 0 20 0 1 0 ${start} 1 1`
  type Files = { cmdline?: string; environ?: string; stat?: string }
  /** A /proc whose files answer from a list per read: the n-th read of a file gets the n-th answer (the last one
   * after that), so a process can leave, or its pid be taken again, between two reads — deterministically. */
  const fakeProc = (procs: Record<number, { [F in keyof Files]: ReadonlyArray<string | undefined> }>): Proc => {
    const reads = new Map<string, number>()
    return {
      pids: () => Object.keys(procs).map(Number),
      read: (pid, file) => {
        const answers = procs[pid]?.[file]
        if (answers === undefined) return undefined
        const n = reads.get(`${pid}/${file}`) ?? 0
        reads.set(`${pid}/${file}`, n + 1)
        return answers[Math.min(n, answers.length - 1)]
      },
    }
  }
  const browser = { cmdline: ['/usr/lib/chromium/chromium\0--headless\0'], environ: [env] }

  it('takes the browser whose stat moves on between reads (CPU times, state) but keeps its start time', () => {
    const proc = fakeProc({
      41: { ...browser, stat: [stat(41, 'R', process.pid, 900, 5), stat(41, 'S', process.pid, 900, 7)] },
    })
    expect(browserPidOf(tmp, proc)).toBe(41)
  })

  it('passes over a helper leaving between the reads: its command line reads empty (the CI failure, certain)', () => {
    const proc = fakeProc({
      // environ still readable, then the kernel has dropped the process's memory: cmdline reads ''.
      50: { environ: [env], cmdline: [''], stat: [stat(50, 'S', process.pid, 800)] },
      51: { ...browser, stat: [stat(51, 'S', 1, 850)] },
    })
    expect(browserPidOf(tmp, proc)).toBe(51)
  })

  it('passes over a pid taken again by another process between the reads (another start time)', () => {
    const proc = fakeProc({
      60: { ...browser, stat: [stat(60, 'S', process.pid, 700), stat(60, 'S', process.pid, 701)] },
    })
    expect(browserPidOf(tmp, proc)).toBeUndefined()
  })

  it('passes over a process gone or a zombie by the last read, and a command line not read whole', () => {
    const proc = fakeProc({
      70: { ...browser, stat: [stat(70, 'S', process.pid, 600), undefined] },
      71: { ...browser, stat: [stat(71, 'S', process.pid, 600), stat(71, 'Z', process.pid, 600)] },
      72: { cmdline: ['/usr/lib/chromium/chromium\0--head'], environ: [env], stat: [stat(72, 'S', process.pid, 600)] },
      73: { ...browser, stat: [stat(73, 'Z', process.pid, 600)] },
    })
    expect(browserPidOf(tmp, proc)).toBeUndefined()
  })
})
