import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkedFiles, longLines, treeLongLines, WIDTH } from './lineWidth.ts'

const root = resolve(import.meta.dirname, '..')

describe('line width (docs/adr/0039-biome.md)', () => {
  it('finds a line one past the width and passes one at it, counting characters, not bytes', () => {
    const text = ['a'.repeat(WIDTH), 'b'.repeat(WIDTH + 1), 'é'.repeat(WIDTH), `// ${'c'.repeat(WIDTH)}`].join('\n')
    expect(longLines(text)).toEqual([
      { line: 2, length: WIDTH + 1 },
      { line: 4, length: WIDTH + 3 },
    ])
  })

  it('covers the sources and leaves out the pinned, generated copy', () => {
    const files = checkedFiles(root)
    expect(files).toContain('scripts/lineWidth.ts')
    expect(files).toContain('packages/liveview/web/style.css')
    expect(files.some((f) => f.startsWith('packages/mcp/src/pinned/'))).toBe(false)
  })

  it('the tree has no line wider than 120 columns', () => {
    expect(treeLongLines(root)).toEqual([])
  })
})
