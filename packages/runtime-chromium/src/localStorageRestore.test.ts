import { describe, expect, it } from 'vitest'
import { restoreScript } from './localStorageRestore.ts'

/** A window-like object with an in-memory localStorage. */
const fakeWindow = (origin: string, opts: { items?: Record<string, string>; top?: unknown; throws?: boolean } = {}) => {
  const items = new Map(Object.entries(opts.items ?? {}))
  const storage = {
    get length() {
      return items.size
    },
    setItem: (k: string, v: string) => {
      items.set(k, v)
    },
  }
  const w: Record<string, unknown> = { location: { origin } }
  Object.defineProperty(w, 'localStorage', {
    get: () => {
      if (opts.throws) throw new Error('denied')
      return storage
    },
  })
  w.self = w
  w.top = opts.top ?? w
  return { w, items }
}
const run = (script: string, w: unknown) => new Function('window', script)(w)

describe('restoreScript', () => {
  const data = {
    'https://a.example': [
      ['k', 'v'],
      ['basket', '</script><b>'],
    ] as const,
  }

  it("writes the origin's items into an empty storage", () => {
    const { w, items } = fakeWindow('https://a.example')
    run(restoreScript(data), w)
    expect(Object.fromEntries(items)).toEqual({ k: 'v', basket: '</script><b>' })
  })
  it('leaves a storage that already has items alone (written once, never again)', () => {
    const { w, items } = fakeWindow('https://a.example', { items: { mine: '1' } })
    run(restoreScript(data), w)
    expect(Object.fromEntries(items)).toEqual({ mine: '1' })
  })
  it('ignores other origins and cross-origin frames, and survives a storage that throws', () => {
    const other = fakeWindow('https://b.example')
    run(restoreScript(data), other.w)
    expect(other.items.size).toBe(0)
    const crossTop = {
      get location(): never {
        throw new Error('cross-origin')
      },
    }
    const framed = fakeWindow('https://a.example', { top: crossTop })
    run(restoreScript(data), framed.w)
    expect(framed.items.size).toBe(0)
    const sameTop = fakeWindow('https://a.example').w
    const sameFrame = fakeWindow('https://a.example', { top: sameTop })
    run(restoreScript(data), sameFrame.w)
    expect(sameFrame.items.get('k')).toBe('v')
    expect(() => run(restoreScript(data), fakeWindow('https://a.example', { throws: true }).w)).not.toThrow()
  })
  it('cannot be broken out of by stored values', () => {
    expect(restoreScript(data)).not.toContain('</script>')
  })
  it('does not use an own-property check that a prototype key could fool', () => {
    const { w, items } = fakeWindow('__proto__')
    run(restoreScript(data), w)
    expect(items.size).toBe(0)
  })
})
