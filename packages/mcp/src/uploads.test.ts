import { Effect } from 'effect'
import { describe, expect, it } from 'vitest'
import type { ErrandBrowser } from './ErrandBrowser.ts'
import { errandUploads } from './uploads.ts'

// browser_file_upload / browser_drop read only the errand's own files (#25): an MCP client must
// not make the server read other files of the host. The files come through the errand — the same
// folder /v1/upload uses — by plain name; the server never opens a path a client named.
const folder = new Map<string, { bytes: Uint8Array; type: string }>([
  ['note.txt', { bytes: new TextEncoder().encode('hello'), type: 'text/plain' }],
])
const asked: Array<string> = []
const errand = {
  key: 'task-42',
  files: {
    downloads: () => Effect.succeed([]),
    read: (name: string) => Effect.sync(() => (asked.push(name), folder.get(name))),
  },
} as unknown as ErrandBrowser

const upload = (names: ReadonlyArray<string>, on: ErrandBrowser = errand) =>
  Effect.runPromise(Effect.either(errandUploads(on, names)))

describe('an errand uploads only files of its own folder', () => {
  it('takes a plain name of a file in the folder, with its bytes and type', async () => {
    const got = await upload(['note.txt'])
    expect(got._tag === 'Right' && got.right.map((f) => [f.name, f.mimeType, f.buffer.toString()])).toEqual([
      ['note.txt', 'text/plain', 'hello'],
    ])
  })

  it(
    'refuses, typed, any path — absolute, .., a separator, another errand — without asking the folder; a missing ' +
      'file is not-a-file',
    async () => {
      asked.length = 0
      for (const name of [
        '/etc/passwd',
        '../secret.txt',
        '..',
        '.',
        'sub/note.txt',
        '..\\other\\theirs.txt',
        'nul\0.txt',
      ]) {
        expect(await upload([name]), name).toMatchObject({
          _tag: 'Left',
          left: { _tag: 'UploadRefused', reason: 'outside-folder' },
        })
      }
      expect(asked).toEqual([])
      expect(await upload(['missing.txt'])).toMatchObject({
        _tag: 'Left',
        left: { _tag: 'UploadRefused', reason: 'not-a-file' },
      })
      // One refused name refuses the whole call: the page gets no file.
      expect(await upload(['note.txt', '/etc/passwd'])).toMatchObject({
        _tag: 'Left',
        left: { reason: 'outside-folder' },
      })
    },
  )

  it('an errand with no files folder uploads nothing; no names is no file (a cancelled chooser)', async () => {
    expect(await upload(['note.txt'], { key: 'k' } as unknown as ErrandBrowser)).toMatchObject({
      _tag: 'Left',
      left: { reason: 'no-folder' },
    })
    expect(await upload([], { key: 'k' } as unknown as ErrandBrowser)).toMatchObject({ _tag: 'Right', right: [] })
  })
})
