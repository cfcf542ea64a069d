// The errands' files folders never come back after their context or the runtime is gone: a late
// park's `pack` or a download finishing after shutdown once made a fresh `errands-files-*` root
// that outlived the host (the soak's leak-temp-dirs, seed 15).
import { existsSync } from 'node:fs'
import { dirname } from 'node:path'
import { Effect } from 'effect'
import { describe, expect, it } from 'vitest'
import { Downloads } from './downloads.ts'
import { ErrandFiles } from './errandFiles.ts'

describe('ErrandFiles', () => {
  it('makes a folder on first use and removes it with its context; a dropped context gets none again', () => {
    const files = new ErrandFiles()
    expect(files.has('t.1')).toBe(false)
    const dir = files.dirFor('t.1')
    expect(existsSync(dir) && files.has('t.1')).toBe(true)
    files.drop('t.1')
    expect(existsSync(dir) || files.has('t.1')).toBe(false)
    expect(() => files.dirFor('t.1')).toThrow(/gone with its context/)
    files.close()
  })

  it('after close, no folder and no root is made again', () => {
    const files = new ErrandFiles()
    const root = dirname(files.dirFor('t.1'))
    files.close()
    expect(existsSync(root)).toBe(false)
    expect(() => files.dirFor('t.2')).toThrow(/gone with its context/)
    expect(existsSync(root)).toBe(false)
  })

  it('a heal or a park of an errand with no files makes no folder (the soak counts the temp dir entries)', async () => {
    const files = new ErrandFiles()
    const downloads = new Downloads(
      files,
      (id) => Effect.sync(() => files.dirFor(id)),
      5_000,
      () => undefined,
      undefined,
    )
    expect(await Effect.runPromise(downloads.verbs.claimAside('task-1', 'task-1.2'))).toBe(0)
    expect(await Effect.runPromise(downloads.verbs.pack('task-1.2', 1_000))).toEqual({ files: [], left: [] })
    expect(files.has('task-1.2')).toBe(false)
    files.close()
  })
})
