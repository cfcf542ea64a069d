/**
 * Finding, killing and waiting out Chromium processes through Linux `/proc`: each browser we start
 * carries our mark (`ERRANDS_OWNER`) and a TMPDIR only it has, so what a killed engine left behind
 * is found and reaped, and never another program's.
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'

/** The environment variable that marks every Chromium we start with its owner (see `LaunchSettings.owner`). */
export const OWNER_VARIABLE = 'ERRANDS_OWNER'

/**
 * The `--user-data-dir` a Chromium process was started with. @example profileOf(pid) //
 * '/tmp/playwright_chromiumdev_profile-…'
 */
export const profileOf = (pid: number | undefined): string | undefined => {
  if (pid === undefined) return undefined
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1')
      .split('\0')
      .find((a) => a.startsWith('--user-data-dir='))
      ?.slice('--user-data-dir='.length)
  } catch {
    return undefined
  }
}

/**
 * What Linux `/proc` says of processes: the pids listed, and one file of one process, read whole (`undefined` when
 * it cannot be read — the process left, or it is not ours to read). {@link liveProc} reads the real one; a test
 * gives one whose process leaves or changes between two reads, which load alone brings out only now and then.
 */
export interface Proc {
  readonly pids: () => ReadonlyArray<number>
  readonly read: (pid: number, file: 'cmdline' | 'environ' | 'stat') => string | undefined
}

/** The real `/proc`. @example browserPidOf(tmpDir, liveProc) */
export const liveProc: Proc = {
  pids: () => {
    try {
      return readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .map(Number)
    } catch {
      return []
    }
  },
  read: (pid, file) => {
    try {
      return readFileSync(`/proc/${pid}/${file}`, 'latin1')
    } catch {
      return undefined
    }
  },
}

/** The fields of `/proc/<pid>/stat` after the command (which may hold spaces and parentheses). */
const statFields = (stat: string | undefined): ReadonlyArray<string> | undefined => {
  if (stat === undefined) return undefined
  const close = stat.lastIndexOf(')')
  return close < 0 ? undefined : stat.slice(close + 2).split(' ')
}

/**
 * One process as one reading: its state, parent and start time from `stat`, its command line and environment —
 * `undefined` unless every file read whole and `stat` shows the same start time before and after, the process not
 * a zombie (the same live process throughout, not one that left or whose pid was taken again in between). A
 * command line read whole ends with its NUL; a
 * process on its way out reads as an empty one (the kernel has dropped its memory), which once made a leaving
 * helper pass for the browser (CI: `browserPidOf` found a pid whose argv was `['']`).
 */
const snapshotOf = (
  proc: Proc,
  pid: number,
): { readonly parent: number; readonly argv: ReadonlyArray<string>; readonly environ: string } | undefined => {
  const before = proc.read(pid, 'stat')
  const fields = statFields(before)
  if (fields === undefined || fields[0] === 'Z' || fields[0] === 'X') return undefined
  const environ = proc.read(pid, 'environ')
  const cmdline = proc.read(pid, 'cmdline')
  if (environ === undefined || cmdline === undefined || cmdline === '' || !cmdline.endsWith('\0')) return undefined
  // Field 22 of stat (index 19 here) is the start time: a pid taken again by another process reads another one.
  // The rest of stat (the state, the CPU times) changes from one read to the next in a live process.
  const after = statFields(proc.read(pid, 'stat'))
  if (after === undefined || after[0] === 'Z' || after[0] === 'X' || after[19] !== fields[19]) return undefined
  return { parent: Number(fields[1]), argv: cmdline.slice(0, -1).split('\0'), environ }
}

/**
 * The browser process of the Chromium this process started with `TMPDIR=tmpDir`: not one of its
 * `--type=` helpers nor its crashpad handlers (which carry the same TMPDIR), and our own child
 * when one is (a wrapper script that does not `exec` makes it a grandchild). Taking the first
 * match in `/proc` order was wrong once pids wrapped: Linux starts again at 300, a crashpad
 * handler got a lower pid than its browser, and a test's SIGKILL hit the handler. A process that
 * cannot be read whole, or that changed between the reads, is never taken for the browser: the
 * heal SIGKILLs what this returns.
 *
 * @example
 * browserPidOf(tmpDir)
 */
export const browserPidOf = (tmpDir: string, proc: Proc = liveProc): number | undefined => {
  const entry = `TMPDIR=${tmpDir}`
  const browsers: Array<{ readonly pid: number; readonly parent: number }> = []
  for (const pid of proc.pids()) {
    if (pid === process.pid) continue
    const seen = snapshotOf(proc, pid)
    if (seen === undefined || !seen.environ.split('\0').includes(entry)) continue
    const [argv0 = ''] = seen.argv
    if (argv0 === '' || argv0.includes('crashpad') || seen.argv.some((a) => a.startsWith('--type='))) continue
    browsers.push({ pid, parent: seen.parent })
  }
  return (browsers.find((b) => b.parent === process.pid) ?? browsers[0])?.pid
}

/** Whether the process runs (not a zombie). @example if (alive(pid)) killAll([pid]) */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^\d+ \(.*\) [ZX]/.test(stat)
  } catch {
    return false
  }
}

/** Pids of live processes (not this one) whose `/proc/<pid>/<file>` satisfies `test`. */
const pidsWhere = (file: 'cmdline' | 'environ', test: (text: string) => boolean): Array<number> => {
  let names: Array<string> = []
  try {
    names = readdirSync('/proc')
  } catch {
    return []
  }
  const pids: Array<number> = []
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    try {
      if (test(readFileSync(`/proc/${name}/${file}`, 'latin1')) && alive(Number(name))) pids.push(Number(name))
    } catch {
      // exited while we looked, or not ours to read
    }
  }
  return pids
}

/**
 * Pids of live processes whose command line contains `needle` (Linux `/proc`). Used to make
 * sure nothing of ours survives a shutdown — the needle is a path only we use.
 *
 * @example
 * pidsWithCmdline(`--user-data-dir=${profileDir}`)
 */
export const pidsWithCmdline = (needle: string): Array<number> => pidsWhere('cmdline', (text) => text.includes(needle))

/**
 * Pids of live processes whose environment holds exactly `entry` (`NAME=value`).
 *
 * @example
 * pidsWithEnv('ERRANDS_OWNER=/var/lib/errands')
 */
export const pidsWithEnv = (entry: string): Array<number> =>
  pidsWhere('environ', (text) => text.split('\0').includes(entry))

/**
 * Kills the Chromium processes an earlier engine on the same data dir left behind when it was
 * killed (kill -9 gives it no chance to close them): they would hold the profile's lock and
 * memory forever. One engine owns a data dir at a time, so whatever carries its mark is stale.
 *
 * @example
 * const reaped = reapOrphans(settings.owner, profileDir) // number of processes killed
 */
export const reapOrphans = (owner: string, profileDir: string): number => {
  const pids = [
    ...new Set([...pidsWithEnv(`${OWNER_VARIABLE}=${owner}`), ...pidsWithCmdline(`--user-data-dir=${profileDir}`)]),
  ]
  killAll(pids)
  untilGone(pids, 5_000)
  if (pids.length > 0) {
    // The profile's singleton files name the dead browser; Chromium refuses to start while they do.
    for (const name of ['SingletonLock', 'SingletonSocket', 'SingletonCookie'])
      rmSync(join(profileDir, name), { force: true })
  }
  return pids.length
}

/**
 * Waits until every pid has exited (or `deadlineMs` passed): a SIGKILLed process still writes
 * for a moment, and the profile it held must be free before a new browser or a sweep touches it.
 *
 * @example
 * untilGone([pid], 5_000)
 */
export const untilGone = (pids: ReadonlyArray<number>, deadlineMs: number): void => {
  const pause = new Int32Array(new SharedArrayBuffer(4))
  const end = Date.now() + deadlineMs
  while (pids.some(alive) && Date.now() < end) Atomics.wait(pause, 0, 0, 20)
}

/** SIGKILLs every pid (one already gone is skipped). @example killAll([pid]) */
export const killAll = (pids: ReadonlyArray<number>): void => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}
