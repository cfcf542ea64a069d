import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { allowedFiles, errandFolder } from './uploads.ts'

// browser_file_upload / browser_drop read only the errand's own files (#25): an MCP client must
// not make the server read other files of the host.
const root = mkdtempSync(join(tmpdir(), 'errands-uploads-'))
const folder = errandFolder(root, 'task-42')
mkdirSync(folder, { recursive: true })
writeFileSync(join(folder, 'note.txt'), 'hello')
mkdirSync(join(folder, 'sub'))
writeFileSync(join(root, 'secret.txt'), 'not yours')
mkdirSync(errandFolder(root, 'other'), { recursive: true })
writeFileSync(join(errandFolder(root, 'other'), 'theirs.txt'), 'another errand')
symlinkSync('/etc/hostname', join(folder, 'link-out'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe("an errand uploads only files of its own folder", () => {
  it('takes a name in the folder, or an absolute path inside it', async () => {
    expect(await allowedFiles(root, 'task-42', ['note.txt', join(folder, 'note.txt')])).toEqual([join(folder, 'note.txt'), join(folder, 'note.txt')])
  })

  it('refuses, typed, any path outside: absolute, .., another errand, a link that leads out, a directory, a missing file', async () => {
    for (const [name, reason] of [
      ['/etc/passwd', 'outside-folder'],
      ['../secret.txt', 'outside-folder'],
      [join(root, 'secret.txt'), 'outside-folder'],
      ['../other/theirs.txt', 'outside-folder'],
      ['link-out', 'outside-folder'],
      ['sub', 'not-a-file'],
      ['missing.txt', 'not-a-file'],
    ] as const) {
      expect(await allowedFiles(root, 'task-42', [name]), name).toMatchObject({ _tag: 'UploadRefused', reason })
    }
  })

  it('no uploads folder configured, or none made for the errand: nothing is uploaded', async () => {
    expect(await allowedFiles(undefined, 'task-42', ['note.txt'])).toMatchObject({ _tag: 'UploadRefused', reason: 'no-folder' })
    expect(await allowedFiles(root, 'nobody', ['note.txt'])).toMatchObject({ _tag: 'UploadRefused', reason: 'not-a-file' })
  })

  it('no key names a folder outside the root', () => {
    expect(errandFolder('/d/uploads', '..')).toBe('/d/uploads/_.')
    expect(errandFolder('/d/uploads', 'mcp~1/../x')).toBe('/d/uploads/mcp_1_.._x')
  })
})
