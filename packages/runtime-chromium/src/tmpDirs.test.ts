import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { MAX_TMPDIR_BYTES, sweepStaleTmpDirs, tmpDirProblem, TMP_MARKER } from './tmpDirs.ts'

// Regression (issue #15, found by the soak): every kill -9 of the host left its Chromiums' temp
// folders (errands-chromium-*, Playwright's profile of the errands' browser) behind for good.

const roots: string[] = []
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true })
})

/** A pid that surely ran and ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!

const leftover = (root: string, name: string, marker: object | undefined, extra?: string) => {
  const dir = join(root, name)
  mkdirSync(join(dir, 'org.chromium.Chromium.abc'), { recursive: true })
  if (marker)
    writeFileSync(join(dir, TMP_MARKER), JSON.stringify({ dirs: extra ? [join(root, extra)] : [], ...marker }))
  if (extra) mkdirSync(join(root, extra, 'Default'), { recursive: true })
  return dir
}

describe('sweepStaleTmpDirs (temp folders a killed engine left behind)', () => {
  it(
    'removes the folders of a dead engine of this owner and the profile its marker lists; keeps live, foreign and ' +
      'unmarked ones',
    () => {
      const root = mkdtempSync(join(tmpdir(), 'errands-sweep-'))
      roots.push(root)
      const dead = leftover(
        root,
        'errands-chromium-dead',
        { owner: '/data/a', pid: deadPid() },
        'playwright_chromiumdev_profile-dead',
      )
      const live = leftover(
        root,
        'errands-chromium-live',
        { owner: '/data/a', pid: process.ppid },
        'playwright_chromiumdev_profile-live',
      )
      const foreign = leftover(root, 'errands-chromium-foreign', { owner: '/data/b', pid: deadPid() })
      const unmarked = leftover(root, 'errands-chromium-unmarked', undefined)
      // A listed folder outside the temp dir, or not a Playwright profile, is never removed.
      const outside = mkdtempSync(join(tmpdir(), 'errands-sweep-outside-'))
      roots.push(outside)
      const odd = leftover(root, 'errands-chromium-odd', {
        owner: '/data/a',
        pid: deadPid(),
        dirs: [outside, join(root, 'errands-chromium-live')],
      })
      // The errands' files folders (downloads, and a crashed context's folder kept aside) too.
      const files = leftover(root, 'errands-files-dead', { owner: '/data/a', pid: deadPid() })
      const liveFiles = leftover(root, 'errands-files-live', { owner: '/data/a', pid: process.ppid })

      expect(sweepStaleTmpDirs('/data/a', root)).toBe(3)
      expect(existsSync(files)).toBe(false)
      expect(existsSync(liveFiles)).toBe(true)
      expect(existsSync(dead)).toBe(false)
      expect(existsSync(join(root, 'playwright_chromiumdev_profile-dead'))).toBe(false)
      expect(existsSync(odd)).toBe(false)
      expect(existsSync(outside)).toBe(true)
      for (const kept of [live, join(root, 'playwright_chromiumdev_profile-live'), foreign, unmarked])
        expect(existsSync(kept)).toBe(true)
      expect(sweepStaleTmpDirs('/data/a', root)).toBe(0)
    },
  )
})

describe('tmpDirProblem (a temp dir too long for Chromium to start under)', () => {
  it('allows up to 38 bytes, counts bytes not characters, and names the fix', () => {
    expect(MAX_TMPDIR_BYTES).toBe(38)
    expect(tmpDirProblem('/tmp')).toBeUndefined()
    expect(tmpDirProblem(`/${'x'.repeat(37)}`)).toBeUndefined()
    expect(tmpDirProblem(`/${'x'.repeat(38)}`)).toContain('39 bytes long')
    expect(tmpDirProblem(`/${'é'.repeat(19)}`)).toContain('Set TMPDIR to a folder of at most 38 bytes')
  })
})
