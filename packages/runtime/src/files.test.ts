// The name rules of an errand's files folder (issue #25, F1): what a page suggests or a client
// sends is made a plain name, and never overwrites a file already there.
import { Effect } from 'effect'
import { describe, expect, it } from 'vitest'
import { dedupeName, fitting, mediaTypeOf, overCap, sanitiseFileName, sourceOf } from './files.ts'
import { MemoryRuntime } from './memory.ts'
import { isPlainFileName } from './pages.ts'

describe('sanitiseFileName', () => {
  it('keeps a plain name as it is', () => {
    expect(sanitiseFileName('report.pdf')).toBe('report.pdf')
    expect(sanitiseFileName('Rechnung März (final).pdf')).toBe('Rechnung März (final).pdf')
  })

  it('never leaves a separator, a dot path, NUL or a control character (a hostile page suggests them)', () => {
    for (const hostile of [
      '../../etc/passwd',
      '..\\..\\boot.ini',
      '/etc/shadow',
      'a/b\\c.pdf',
      'nul\0byte.txt',
      'line\nbreak.txt',
      '.',
      '..',
      '...',
      '.bashrc',
      '',
      '   ',
    ]) {
      const name = sanitiseFileName(hostile)
      expect(isPlainFileName(name), JSON.stringify(hostile)).toBe(true)
      expect(name.startsWith('.'), JSON.stringify(hostile)).toBe(false)
    }
    expect(sanitiseFileName('../../etc/passwd')).toBe('etc_passwd')
    expect(sanitiseFileName('..')).toBe('download')
  })

  it('cuts a long name to 200 characters and keeps its extension', () => {
    const name = sanitiseFileName(`${'x'.repeat(400)}.pdf`)
    expect(name).toHaveLength(200)
    expect(name.endsWith('.pdf')).toBe(true)
  })
})

describe('dedupeName', () => {
  it('numbers a taken name before its extension: a (1).pdf, a (2).pdf', () => {
    const taken = new Set(['a.pdf', 'a (1).pdf'])
    expect(dedupeName('b.pdf', (n) => taken.has(n))).toBe('b.pdf')
    expect(dedupeName('a.pdf', (n) => taken.has(n))).toBe('a (2).pdf')
    expect(dedupeName('README', (n) => n === 'README')).toBe('README (1)')
  })
})

describe('mediaTypeOf and sourceOf', () => {
  it('guesses a type by extension and drops the query and fragment of a source (it may carry a token)', () => {
    expect(mediaTypeOf('a.PDF')).toBe('application/pdf')
    expect(mediaTypeOf('a.unknown')).toBe('application/octet-stream')
    expect(sourceOf('https://shop.example/inv/1.pdf?token=secret#p2')).toBe('https://shop.example/inv/1.pdf')
  })
})

describe('MemoryRuntime files (the fake every host test uses)', () => {
  it('stages and downloads under deduplicated names, per context, dropped with it', () => {
    const memory = MemoryRuntime.make()
    const a = Effect.runSync(memory.openContext({ errandId: 'a', label: { reason: 'task', lentSites: [] } }))
    const b = Effect.runSync(memory.openContext({ errandId: 'b', label: { reason: 'task', lentSites: [] } }))
    memory.files.download(a, 'r.pdf', new Uint8Array([1]), 'http://127.0.0.1/r.pdf?x=1')
    memory.files.download(a, 'r.pdf', new Uint8Array([1, 2]), 'http://127.0.0.1/r.pdf')
    const staged = Effect.runSync(memory.files.stage(a, 'note.txt', new Uint8Array([3])))
    expect(staged).toMatchObject({ name: 'note.txt', size: 1, origin: 'staged', source: null })
    expect(Effect.runSync(memory.files.list(a)).map((f) => [f.name, f.size, f.source])).toEqual([
      ['r.pdf', 1, 'http://127.0.0.1/r.pdf'],
      ['r (1).pdf', 2, 'http://127.0.0.1/r.pdf'],
      ['note.txt', 1, null],
    ])
    expect(Effect.runSync(memory.files.list(b))).toEqual([])
    expect(Effect.runSync(memory.files.read(b, 'r.pdf'))).toBeUndefined()
    expect(Effect.runSync(memory.files.read(a, '../r.pdf'))).toBeUndefined()
    expect(Effect.runSync(Effect.flip(memory.files.stage(a, '../x', new Uint8Array())))).toMatchObject({
      reason: 'invalid',
    })
    Effect.runSync(memory.closeContext(a))
    expect(Effect.runSync(Effect.flip(memory.files.list(a)))._tag).toBe('ContextNotFound')
  })
})

describe('caps and the parked budget (F3)', () => {
  it('overCap says which cap a download would pass, and nothing without caps', () => {
    const caps = { maxFileBytes: 10, maxErrandBytes: 20 }
    expect(overCap(caps, 0, 10)).toBeUndefined()
    expect(overCap(caps, 0, 11)).toBe('file')
    expect(overCap(caps, 11, 10)).toBe('errand')
    expect(overCap(caps, 10, 10)).toBeUndefined()
    expect(overCap(undefined, 1e12, 1e12)).toBeUndefined()
  })

  it('fitting keeps files in order while they fit, skipping one that does not', () => {
    const f = (name: string, size: number) => ({ name, size })
    expect(fitting([f('a', 5), f('b', 9), f('c', 2)], 7)).toEqual({ fit: [f('a', 5), f('c', 2)], left: ['b'] })
    expect(fitting([], 0)).toEqual({ fit: [], left: [] })
    expect(fitting([f('empty', 0)], 0)).toEqual({ fit: [f('empty', 0)], left: [] })
  })
})
