import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TabBook } from './tabs.ts'

describe('TabBook', () => {
  it('gives stable ids and activates opened tabs', () => {
    const book = new TabBook<string>()
    expect(book.add('a')).toBe('t1')
    expect(book.add('b')).toBe('t2')
    expect(book.active()).toBe('t2')
    expect(book.add('c', { activate: false })).toBe('t3')
    expect(book.active()).toBe('t2')
    expect(book.list().map((t) => [t.id, t.active])).toEqual([
      ['t1', false],
      ['t2', true],
      ['t3', false],
    ])
  })
  it('activates the right neighbour, else the left one, when the active tab closes', () => {
    const book = new TabBook<string>()
    book.add('a')
    book.add('b')
    book.add('c')
    book.activate('t2')
    expect(book.remove('t2')).toBe('t3')
    expect(book.remove('t3')).toBe('t1')
    expect(book.remove('t1')).toBeUndefined()
    expect(book.size).toBe(0)
    expect(book.add('d')).toBe('t4') // ids are never reused
  })
  it('keeps the active tab when another one closes, and ignores unknown ids', () => {
    const book = new TabBook<string>()
    book.add('a')
    book.add('b')
    expect(book.remove('t1')).toBe('t2')
    expect(book.remove('t9')).toBe('t2')
    expect(book.activate('t9')).toBe(false)
  })
  it('inserts at an index and finds handles', () => {
    const book = new TabBook<string>()
    book.add('a')
    book.add('c')
    book.add('b', { index: 1, activate: false })
    expect(book.list().map((t) => t.handle)).toEqual(['a', 'b', 'c'])
    expect(book.idOf('b')).toBe('t3')
    expect(book.get('t3')).toBe('b')
  })
  it('always has exactly one active tab while it has tabs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant('add'), fc.nat(10), fc.integer({ min: -10, max: -1 })), { maxLength: 60 }),
        (ops) => {
          const book = new TabBook<number>()
          let n = 0
          for (const op of ops) {
            if (op === 'add') book.add(n++)
            else if (typeof op === 'number' && op >= 0) book.remove(`t${op}`)
            else book.activate(`t${-op}`)
            const actives = book.list().filter((t) => t.active).length
            if (actives !== (book.size > 0 ? 1 : 0)) return false
            if (new Set(book.list().map((t) => t.id)).size !== book.size) return false
          }
          return true
        },
      ),
    )
  })
})

describe('TabBook ids kept on reopen (issue #15)', () => {
  it('takes a free wanted id, numbers later tabs after it, and refuses a taken or malformed one', () => {
    const book = new TabBook<string>()
    expect(book.add('b', { id: 't2' })).toBe('t2')
    expect(book.add('c', { id: 't5' })).toBe('t5')
    expect(book.add('d')).toBe('t6')
    expect(book.add('e', { id: 't2' })).toBe('t7') // taken
    expect(book.add('f', { id: 'x9' })).toBe('t8') // not ours
    expect(book.add('g', { id: 't0' })).toBe('t9')
    expect(new Set(book.list().map((t) => t.id)).size).toBe(book.size)
  })
})
