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

/** The parent pid of a process, from `/proc/<pid>/stat` (its command may hold spaces and parentheses). */
const parentOf = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
  } catch {
    return undefined
  }
}

/**
 * The browser process of the Chromium this process started with `TMPDIR=tmpDir`: not one of its
 * `--type=` helpers nor its crashpad handlers (which carry the same TMPDIR), and our own child
 * when one is (a wrapper script that does not `exec` makes it a grandchild). Taking the first
 * match in `/proc` order was wrong once pids wrapped: Linux starts again at 300, a crashpad
 * handler got a lower pid than its browser, and a test's SIGKILL hit the handler.
 *
 * @example
 * browserPidOf(tmpDir)
 */
export const browserPidOf = (tmpDir: string): number | undefined => {
  const browsers = pidsWithEnv(`TMPDIR=${tmpDir}`).filter((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')
      return !argv[0]!.includes('crashpad') && !argv.some((a) => a.startsWith('--type='))
    } catch {
      return false
    }
  })
  return browsers.find((pid) => parentOf(pid) === process.pid) ?? browsers[0]
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
