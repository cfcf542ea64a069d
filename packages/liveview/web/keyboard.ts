/**
 * The wheel's keyboard (P1, issue #26): while the person drives, what they type is caught by a
 * focused, invisible textarea laid over the screencast (as noVNC and Guacamole do), so the
 * browser's own text machinery works — an input method (IME) composes Japanese or Chinese, a
 * dead key makes "é", a paste brings the clipboard — and only its result is sent:
 *
 * - ordinary typing: each `input` event's inserted text, as a `text` event;
 * - composition: nothing while `compositionstart`/`compositionupdate` run (nor their keydowns,
 *   `Process`), the composed text once at `compositionend`;
 * - paste: the clipboard's `text/plain` as text events of at most 1,000 characters each (line
 *   breaks as `\n`); a paste over {@link MAX_PASTE} characters is not sent, and `notice` says so;
 * - Enter, Backspace, Tab, arrows, Escape, Delete, Home/End, PageUp/Down, the function keys and the
 *   Control/Meta shortcuts: key presses with their modifiers (`Shift+Tab`, `Control+a`).
 *
 * The field is emptied after each send, so it never holds what was typed; nothing is logged (P5).
 *
 * @example
 * const detach = attachKeyboard(textarea, (events) => post(events), setNotice)
 */
import type { PageInput } from '@errands/runtime'
import { keyChord, MAX_PASTE, textPieces } from '../src/keys.ts'

/** One listener: the event's name, its handler, and its options. */
type Listener = readonly [string, (e: never) => void, AddEventListenerOptions?]

/**
 * Adds the listeners to `target`; the answer removes them all.
 *
 * @example
 * const off = listen(canvas, [['mousedown', onDown], ['wheel', onWheel, { passive: false }]])
 */
export const listen = (target: EventTarget, listeners: ReadonlyArray<Listener>): (() => void) => {
  for (const [type, handler, options] of listeners) target.addEventListener(type, handler as EventListener, options)
  return () => {
    for (const [type, handler] of listeners) target.removeEventListener(type, handler as EventListener)
  }
}

/** Sends what the person typed, in order; tells the person when a paste is too long. */
export const attachKeyboard = (
  field: HTMLTextAreaElement,
  post: (events: ReadonlyArray<PageInput>) => void,
  notice: (message: string | null) => void,
): (() => void) => {
  let composing = false
  // What the last composition committed: a browser that also reports it as an input event
  // afterwards (Safari) must not send it twice.
  let committed: string | null = null
  const clear = () => void (field.value = '')
  const sendText = (text: string) => {
    if (text !== '') post(textPieces(text).map((t) => ({ type: 'text', text: t })))
  }

  const onKeyDown = (e: KeyboardEvent) => {
    committed = null
    if (composing || e.isComposing || e.key === 'Process' || e.keyCode === 229) return
    const chord = keyChord(e)
    if (chord === undefined) return
    e.preventDefault()
    post([{ type: 'key', action: 'press', key: chord }])
  }
  const onInput = (e: Event) => {
    const ie = e as InputEvent
    if (composing || ie.isComposing) return
    const text = field.value
    clear()
    if (committed !== null && (ie.inputType === 'insertFromComposition' || text === committed)) {
      committed = null
      return
    }
    sendText(text)
  }
  const onCompositionStart = () => {
    composing = true
    committed = null
  }
  const onCompositionEnd = (e: CompositionEvent) => {
    composing = false
    const text = e.data || field.value
    clear()
    committed = text
    sendText(text)
  }
  const onPaste = (e: ClipboardEvent) => {
    e.preventDefault()
    const text = (e.clipboardData?.getData('text/plain') ?? '').replace(/\r\n?/g, '\n')
    if (text.length > MAX_PASTE) {
      notice(
        `That paste is ${text.length.toLocaleString('en')} characters; the wheel sends at most ` +
          `${MAX_PASTE.toLocaleString('en')} at once, so nothing was sent.`,
      )
      return
    }
    notice(null)
    sendText(text)
  }

  const off = listen(field, [
    ['keydown', onKeyDown],
    ['input', onInput],
    ['compositionstart', onCompositionStart],
    ['compositionend', onCompositionEnd],
    ['paste', onPaste],
  ])
  return () => {
    off()
    clear()
  }
}
