/**
 * The keyboard of the wheel (P1, issue #26), one definition for the page and the server: which
 * keys go to the errand's page as key presses (with their modifiers, in Playwright's
 * `Control+Shift+A` form, which the runtime's input verb presses as is), and how a long text —
 * a paste — is cut into the input route's text events.
 *
 * Everything else the person types arrives as text (`input` and `compositionend` events of the
 * page's hidden capture field), never as keys.
 *
 * @example
 * keyChord({ key: 'a', code: 'KeyA', ctrlKey: true, altKey: false, shiftKey: false, metaKey: false }) // 'Control+a'
 */

/** Named keys sent as key presses (with or without modifiers). */
export const NAMED_KEYS: ReadonlySet<string> = new Set([
  'Enter',
  'Backspace',
  'Tab',
  'Escape',
  'Delete',
  'Insert',
  'ArrowLeft',
  'ArrowRight',
  'ArrowUp',
  'ArrowDown',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  'F1',
  'F2',
  'F3',
  'F4',
  'F5',
  'F6',
  'F7',
  'F8',
  'F9',
  'F10',
  'F11',
  'F12',
])

/** The modifiers a chord may hold, in the order a chord names them. */
export const MODIFIERS = ['Control', 'Alt', 'Shift', 'Meta'] as const

/** The longest text one `text` event carries (the input route refuses longer). */
export const MAX_TEXT_EVENT = 1_000

/** The most a paste sends (20 events of {@link MAX_TEXT_EVENT}); a longer paste is not sent at all. */
export const MAX_PASTE = 20_000

/** A printable ASCII character Playwright's US keyboard knows as a key (for a chord such as `Control+a`). */
const ASCII_KEY = /^[\x21-\x7e]$/

/** `KeyA`, `Digit1`: the physical key, for a shortcut pressed on a non-Latin layout. */
const CODE_KEY = /^(Key[A-Z]|Digit[0-9])$/

/**
 * Whether a key name is one the input route passes to the runtime: a named key or an ASCII
 * character, after at most one of each modifier (`Shift+Tab`, `Control+a`, `Control+Shift+KeyZ`).
 *
 * @example
 * isKeyChord('Control+Shift+ArrowLeft') // true
 * isKeyChord('Control+é') // false
 */
export const isKeyChord = (chord: string): boolean => {
  const parts = chord.split('+')
  // 'Control++' is Control and the plus key.
  if (chord.endsWith('++')) parts.splice(-2, 2, '+')
  const key = parts.pop()!
  let at = -1
  for (const m of parts) {
    const i = MODIFIERS.indexOf(m as (typeof MODIFIERS)[number])
    if (i <= at) return false
    at = i
  }
  return NAMED_KEYS.has(key) || ASCII_KEY.test(key) || (parts.length > 0 && CODE_KEY.test(key))
}

/** What of a `KeyboardEvent` a chord is made of. */
export interface KeyDown {
  readonly key: string
  readonly code: string
  readonly ctrlKey: boolean
  readonly altKey: boolean
  readonly shiftKey: boolean
  readonly metaKey: boolean
}

/**
 * The key press a keydown is sent as, or `undefined` when it is text (left to the capture field's
 * `input` event), a paste shortcut (left to its `paste` event), or a key the wheel does not send.
 *
 * Named keys go with their modifiers (`Shift+Tab`); a character goes as a key only with Control or
 * Meta (`Control+a`; AltGr, which some systems report as Control+Alt, types text). On a non-Latin
 * layout the shortcut names the physical key (`Control+KeyA`).
 *
 * @example
 * keyChord({ key: 'Tab', code: 'Tab', shiftKey: true, ctrlKey: false, altKey: false, metaKey: false }) // 'Shift+Tab'
 */
export const keyChord = (e: KeyDown): string | undefined => {
  const mods = [e.ctrlKey && 'Control', e.altKey && 'Alt', e.shiftKey && 'Shift', e.metaKey && 'Meta']
    .filter(Boolean)
    .join('+')
  const chord = (key: string) => (mods === '' ? key : `${mods}+${key}`)
  // Shift+Insert pastes: the capture field's paste event sends the clipboard.
  if (e.key === 'Insert' && e.shiftKey && !e.ctrlKey && !e.metaKey) return undefined
  if (NAMED_KEYS.has(e.key)) return chord(e.key)
  if (e.key.length === 0 || [...e.key].length !== 1) return undefined
  const shortcut = (e.ctrlKey || e.metaKey) && !(e.ctrlKey && e.altKey && !e.metaKey)
  if (!shortcut) return undefined
  const latin = ASCII_KEY.test(e.key)
  // Control+V (Shift or not, Meta on a Mac): the capture field's paste event sends the clipboard.
  if (latin ? e.key.toLowerCase() === 'v' : e.code === 'KeyV') return undefined
  if (latin) return chord(e.key)
  return CODE_KEY.test(e.code) ? chord(e.code) : undefined
}

/**
 * A text cut into pieces of at most `limit` UTF-16 units, never inside a character (a surrogate
 * pair stays whole).
 *
 * @example
 * textPieces('abcdef', 4) // ['abcd', 'ef']
 */
export const textPieces = (text: string, limit: number = MAX_TEXT_EVENT): ReadonlyArray<string> => {
  const out: string[] = []
  let piece = ''
  for (const ch of text) {
    if (piece.length + ch.length > limit) {
      out.push(piece)
      piece = ''
    }
    piece += ch
  }
  if (piece !== '') out.push(piece)
  return out
}
