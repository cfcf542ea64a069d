import { describe, expect, it } from '@effect/vitest'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll } from 'vitest'
import { isProtectedPath } from './markers.ts'

describe('isProtectedPath', () => {
  const root = mkdtempSync(join(tmpdir(), 'errands-protect-'))
  const store = join(root, 'store')
  mkdirSync(join(store, 'errands'), { recursive: true })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('protects the store dir and everything inside it', () => {
    expect(isProtectedPath(store, store)).toBe(true)
    expect(isProtectedPath(join(store, 'device.key'), store)).toBe(true)
    expect(isProtectedPath(join(store, 'errands', 'x.sealed'), store)).toBe(true)
    expect(isProtectedPath(join(store, 'not-yet', 'created'), store)).toBe(true)
    expect(isProtectedPath(join(store, '..foo'), store)).toBe(true)
  })

  it('does not protect siblings, parents or look-alike names', () => {
    expect(isProtectedPath(root, store)).toBe(false)
    expect(isProtectedPath(`${store}-backup`, store)).toBe(false)
    expect(isProtectedPath(join(root, 'notes.txt'), store)).toBe(false)
  })

  it('sees through .. segments, relative paths and symlinks', () => {
    expect(isProtectedPath(join(root, 'elsewhere', '..', 'store', 'device.key'), store)).toBe(true)
    expect(isProtectedPath(relative(process.cwd(), join(store, 'device.key')), store)).toBe(true)
    const link = join(root, 'innocent-link')
    symlinkSync(store, link)
    expect(isProtectedPath(join(link, 'device.key'), store)).toBe(true)
    expect(isProtectedPath(join(link, 'errands', 'missing.sealed'), store)).toBe(true)
  })
})
