import { describe, expect, it } from 'vitest'
import { LocalStorageBook } from './localStorageBook.ts'

const items = (value: string) => [{ name: 'k', value }]

describe('LocalStorageBook', () => {
  it('reads an origin once a document of it existed, and not again until another does', () => {
    const book = new LocalStorageBook()
    book.saw('https://a.example/cart?x=1')
    book.saw('about:blank')
    book.saw('data:text/html,hi')
    expect(book.begin(new Set())).toEqual(['https://a.example'])
    book.record('https://a.example', items('1'))
    expect(book.begin(new Set())).toEqual([])
    expect(book.origins()).toEqual([{ origin: 'https://a.example', localStorage: items('1') }])
    book.saw('https://a.example/other')
    expect(book.begin(new Set())).toEqual(['https://a.example'])
  })

  it(
    'an origin with a document open at a read is read again at the next one, even if the document left ' + 'meanwhile',
    () => {
      const book = new LocalStorageBook()
      // The document may write after the read, then go away without another navigation.
      expect(book.begin(new Set(['https://a.example/page']))).toEqual(['https://a.example'])
      book.record('https://a.example', items('before'))
      expect(book.begin(new Set())).toEqual(['https://a.example'])
      book.record('https://a.example', items('after'))
      expect(book.begin(new Set())).toEqual([])
      expect(book.origins()[0]?.localStorage).toEqual(items('after'))
    },
  )

  it('a failed read keeps the last value and reads again next time', () => {
    const book = new LocalStorageBook()
    book.saw('https://a.example/')
    book.begin(new Set())
    book.record('https://a.example', items('1'))
    book.saw('https://a.example/')
    expect(book.begin(new Set())).toEqual(['https://a.example'])
    book.failed('https://a.example')
    expect(book.origins()[0]?.localStorage).toEqual(items('1'))
    expect(book.begin(new Set())).toEqual(['https://a.example'])
  })

  it('origins read empty are kept out of origins() but stay known; distrust reads every known origin again', () => {
    const book = new LocalStorageBook()
    book.saw('https://a.example/')
    book.saw('http://b.example:8080/')
    book.begin(new Set())
    book.record('https://a.example', items('1'))
    book.record('http://b.example:8080', [])
    expect(book.origins().map((o) => o.origin)).toEqual(['https://a.example'])
    book.distrust()
    expect([...book.begin(new Set())].sort()).toEqual(['http://b.example:8080', 'https://a.example'])
  })

  it('clearable names known and not-yet-read origins the predicate accepts', () => {
    const book = new LocalStorageBook()
    book.saw('https://a.example/')
    book.begin(new Set())
    book.record('https://a.example', items('1'))
    book.saw('https://b.example/')
    expect([...book.clearable(() => true)].sort()).toEqual(['https://a.example', 'https://b.example'])
    expect(book.clearable((o) => o === 'https://a.example')).toEqual(['https://a.example'])
    book.record('https://a.example', [])
    expect(book.origins()).toEqual([])
  })
})
