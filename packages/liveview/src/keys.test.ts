import { describe, expect, it } from 'vitest'
import { isKeyChord, keyChord, textPieces, type KeyDown } from './keys.ts'

const down = (key: string, o: Partial<KeyDown> = {}): KeyDown => ({
  key,
  code: '',
  ctrlKey: false,
  altKey: false,
  shiftKey: false,
  metaKey: false,
  ...o,
})

describe("the wheel's keyboard (P1, issue #26)", () => {
  it(
    'sends named keys with their modifiers, shortcuts with Control or Meta, and leaves text and paste to the ' +
      'capture field',
    () => {
      expect(keyChord(down('Enter'))).toBe('Enter')
      expect(keyChord(down('Tab', { shiftKey: true }))).toBe('Shift+Tab')
      expect(keyChord(down('ArrowLeft', { ctrlKey: true, shiftKey: true }))).toBe('Control+Shift+ArrowLeft')
      expect(keyChord(down('a', { ctrlKey: true }))).toBe('Control+a')
      expect(keyChord(down('Z', { ctrlKey: true, shiftKey: true }))).toBe('Control+Shift+Z')
      expect(keyChord(down('a', { metaKey: true }))).toBe('Meta+a')
      expect(keyChord(down('Insert', { ctrlKey: true }))).toBe('Control+Insert')
      // A shortcut on a Cyrillic layout names the physical key.
      expect(keyChord(down('ф', { code: 'KeyA', ctrlKey: true }))).toBe('Control+KeyA')
      // Text, AltGr's characters, paste shortcuts, IME's Process and lone modifiers are not keys.
      for (const e of [
        down('a'),
        down('é'),
        down('A', { shiftKey: true }),
        down('@', { ctrlKey: true, altKey: true }),
        down('v', { ctrlKey: true }),
        down('V', { ctrlKey: true, shiftKey: true }),
        down('v', { metaKey: true }),
        down('Insert', { shiftKey: true }),
        down('м', { code: 'KeyV', ctrlKey: true }),
        down('Process'),
        down('Shift', { shiftKey: true }),
        down('Dead'),
      ]) {
        expect(keyChord(e)).toBeUndefined()
      }
    },
  )

  it("the server takes exactly the chords the page makes, and no name the runtime's keyboard would not know", () => {
    for (const ok of [
      'Enter',
      'Shift+Tab',
      'Control+a',
      'Control+Shift+Z',
      'Control+KeyA',
      'Meta+a',
      'Control++',
      'F5',
      'a',
    ])
      expect(isKeyChord(ok), ok).toBe(true)
    for (const bad of [
      '',
      'é',
      'Control+é',
      'KeyA',
      'Shift+Control+a',
      'Control+Control+a',
      'Hyper+a',
      'Process',
      'Enter+a',
      'ab',
      'Control+',
    ])
      expect(isKeyChord(bad), bad).toBe(false)
  })

  it("cuts a long text into pieces of the route's size, never inside a character", () => {
    expect(textPieces('abcdef', 4)).toEqual(['abcd', 'ef'])
    expect(textPieces('ab😀c', 3)).toEqual(['ab', '😀c'])
    expect(textPieces('x'.repeat(2_500)).map((p) => p.length)).toEqual([1_000, 1_000, 500])
    expect(textPieces('')).toEqual([])
  })
})
