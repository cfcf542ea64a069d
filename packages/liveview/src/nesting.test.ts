import { describe, expect, it } from 'vitest'
import { nested } from './nesting.ts'

const c = (conversationId: string, parent?: string) =>
  parent === undefined ? { conversationId } : { conversationId, parent }
const shown = (list: ReadonlyArray<{ conversationId: string; parent?: string }>) =>
  nested(list).map(({ item, depth }) => `${'  '.repeat(depth)}${item.conversationId}`)

describe('nested', () => {
  it('puts helpers right under their parent, theirs under them, the rest in order', () => {
    expect(shown([c('a/h1', 'a'), c('b'), c('a'), c('a/h1/x', 'a/h1'), c('a/h2', 'a')])).toEqual([
      'b',
      'a',
      '  a/h1',
      '    a/h1/x',
      '  a/h2',
    ])
  })

  it('a helper whose parent is gone stands at the top; a cycle shows each once', () => {
    expect(shown([c('h', 'gone'), c('x', 'y'), c('y', 'x'), c('s', 's')])).toEqual(['h', 's', 'x', '  y'])
  })
})
