/**
 * The temp folders of our Chromiums, and clearing those a killed engine left behind.
 *
 * Each Chromium runs with a `TMPDIR` of its own, `errands-chromium-*`, holding a marker that
 * names its owner (the data dir), the engine's pid and the other folders made for it (the
 * profile Playwright makes for the errands' browser). A clean close removes them; kill -9 of the
 * engine gives it no chance, and without the marker the next engine cannot tell its own leftovers
 * from another engine's live ones. The soak found them piling up, one set per host kill
 * (docs/reliability.md).
 *
 * @example
 * const dir = freshTmpDir('/var/lib/errands')
 * noteDir(dir, '/tmp/playwright_chromiumdev_profile-x1')
 * sweepStaleTmpDirs('/var/lib/errands') // at the next start: folders of dead engines of this owner
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'

/** The marker's file name inside an `errands-chromium-*` folder. @example join(dir, TMP_MARKER) */
export const TMP_MARKER = '.errands-owner.json'

interface Marker {
  readonly owner: string
  readonly pid: number
  readonly dirs: ReadonlyArray<string>
}

const readMarker = (dir: string): Marker | undefined => {
  try {
    const m = JSON.parse(readFileSync(join(dir, TMP_MARKER), 'utf8')) as Marker
    return typeof m.owner === 'string' && Number.isInteger(m.pid) && Array.isArray(m.dirs) ? m : undefined
  } catch {
    return undefined
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^\d+ \(.*\) [ZX]/.test(stat)
  } catch (e) {
    // EPERM: it exists, it is just not ours to signal.
    return (e as { code?: string }).code === 'EPERM'
  }
}

/**
 * The longest temp dir (in bytes) our Chromiums start under. Chromium puts its singleton socket at
 * `<TMPDIR>/errands-chromium-XXXXXX/org.chromium.Chromium.XXXXXX/SingletonSocket`, and a Unix
 * socket's path holds at most 107 bytes: under a longer temp dir Chromium exits at once, and
 * Playwright says only "Target page, context or browser has been closed" (found by the soak,
 * issue #15; 38 starts and 39 does not, measured).
 *
 * @example
 * MAX_TMPDIR_BYTES // 38
 */
export const MAX_TMPDIR_BYTES = 107 - '/errands-chromium-XXXXXX/org.chromium.Chromium.XXXXXX/SingletonSocket'.length

/**
 * Why our Chromiums cannot start under `root`, in words naming the fix; undefined when they can.
 *
 * @example
 * tmpDirProblem('/tmp') // undefined
 */
export const tmpDirProblem = (root = tmpdir()): string | undefined => {
  const bytes = Buffer.byteLength(root)
  return bytes <= MAX_TMPDIR_BYTES
    ? undefined
    : `the temp dir ${JSON.stringify(root)} is ${bytes} bytes long; Chromium's singleton socket under it would pass ` +
        `the 107-byte limit of a Unix socket path, so Chromium could not start. Set TMPDIR to a folder of at most ` +
        `${MAX_TMPDIR_BYTES} bytes (e.g. /tmp).`
}

/**
 * The marked folders a sweep looks at: Chromiums' TMPDIRs, and the roots of the errands' files
 * folders (downloads and staged files, a crashed context's folder kept aside for its heal: none
 * of it outlives its engine's next start in the clear).
 */
const SWEPT = ['errands-chromium-', 'errands-files-'] as const

/**
 * A fresh private folder (0700) of the temp dir, marked with its owner and this pid: a TMPDIR
 * for one Chromium process tree, or (`errands-files-`) the root of the errands' files folders.
 *
 * @example
 * const dir = freshTmpDir(owner)
 * const files = freshTmpDir(owner, 'errands-files-')
 */
export const freshTmpDir = (owner: string, prefix: (typeof SWEPT)[number] = 'errands-chromium-'): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  writeFileSync(join(dir, TMP_MARKER), JSON.stringify({ owner, pid: process.pid, dirs: [] } satisfies Marker))
  return dir
}

/**
 * Records another folder made for the Chromium of `tmpDir` (removed with it when stale).
 *
 * @example
 * noteDir(tmpDir, userDataDir)
 */
export const noteDir = (tmpDir: string, dir: string): void => {
  const m = readMarker(tmpDir)
  if (m === undefined) return
  writeFileSync(join(tmpDir, TMP_MARKER), JSON.stringify({ ...m, dirs: [...m.dirs, dir] } satisfies Marker))
}

/**
 * Removes the temp folders of engines of `owner` that are no longer running (and the folders
 * their markers list, only when they sit directly in the temp dir). Folders of live engines, of
 * other owners, or without a marker are never touched. Returns how many it removed.
 *
 * @example
 * const removed = sweepStaleTmpDirs(owner)
 */
export const sweepStaleTmpDirs = (owner: string, root = tmpdir()): number => {
  let removed = 0
  let names: string[] = []
  try {
    names = readdirSync(root)
  } catch {
    return 0
  }
  for (const name of names) {
    if (!SWEPT.some((prefix) => name.startsWith(prefix))) continue
    const dir = join(root, name)
    const m = readMarker(dir)
    if (m === undefined || m.owner !== owner || m.pid === process.pid || alive(m.pid)) continue
    const listed = m.dirs.filter(
      (d) => dirname(d) === root && basename(d).startsWith('playwright_chromiumdev_profile-'),
    )
    // Best effort: a folder that cannot go now (a dying process still writing in it: ENOTEMPTY)
    // keeps its marker and goes at a later start. A clean-up must never stop the engine starting.
    if ([...listed, dir].every(removeQuietly)) removed++
  }
  return removed
}

/** Removes a folder; false when it could not (it stays, with its marker, for a later sweep). */
const removeQuietly = (dir: string): boolean => {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 })
    return true
  } catch {
    return false
  }
}
