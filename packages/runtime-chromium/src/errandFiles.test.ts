// The errands' files folders never come back after their context or the runtime is gone: a late
// park's `pack` or a download finishing after shutdown once made a fresh `errands-files-*` root
// that outlived the host (the soak's leak-temp-dirs, seed 15).
import { existsSync } from 'node:fs'
import { dirname } from 'node:path'
import { describe, expect, it } from 'vitest'
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
})
