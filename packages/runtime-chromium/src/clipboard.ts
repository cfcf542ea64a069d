/**
 * A clipboard of its own per errand (T5). Chromium keeps one clipboard per browser process, and
 * every errand's context lives in the errands' browser: without this, text copied in one errand
 * pastes in any other. Chromium has no per-context clipboard, so each errand's pages get a small
 * script (in every frame, before the page's own scripts) that marks what the errand copies with a
 * secret of its context and refuses a paste that does not carry it:
 *
 * - copy / cut: the errand's text (and HTML) goes to the clipboard with a second entry of type
 *   {@link CLIPBOARD_OWNER_TYPE} holding the context's secret. The page's own copy handlers run as
 *   usual first; the mark is added last, after them (what they put stays).
 * - paste: a paste whose clipboard does not carry this context's secret is cancelled before any
 *   of the page's handlers sees it — the page never reads another errand's text, nor its secret.
 * - `navigator.clipboard.writeText` / `write` (text and HTML) go through the same marked copy;
 *   `readText` / `read` are refused in errands (the async API cannot see the mark).
 *
 * The secret belongs to the errand, not to one context of it (an HMAC of the errand's id under a
 * key of this process): copying between tabs of one errand works, across sites too, and what it
 * copied pastes again after it was parked and resumed or healed — while the browser that holds
 * the clipboard lives. Images written with `navigator.clipboard.write` carry no mark and paste
 * nowhere. See docs/shared-surfaces.md.
 *
 * @example
 * await isolateClipboard(context, 'task-1') // before the context's pages load anything
 */
import { createHmac, randomBytes } from 'node:crypto'
import type { BrowserContext } from 'playwright-core'

/** The clipboard entry that names the errand whose copy it is (its value is that context's secret). */
export const CLIPBOARD_OWNER_TYPE = 'application/x-errands-clipboard'

interface ShimArgs {
  readonly token: string
  readonly type: string
}

/** Runs in the page (serialised by Playwright): it may use nothing from this module's scope. */
const clipboardShim = ({ token, type }: ShimArgs): void => {
  const installed = Symbol.for('errands.clipboard')
  const w = window as unknown as Record<symbol, boolean>
  if (w[installed]) return
  Object.defineProperty(window, installed, { value: true })
  const refuse = () =>
    Promise.reject(new DOMException('Reading the clipboard is not allowed in an errand: the errands share one browser process (Errands)', 'NotAllowedError'))
  // What navigator.clipboard.write* asked for, while its copy event runs.
  let pending: { text: string; html?: string | undefined } | undefined

  const selected = (): { text: string; html?: string } => {
    const el = document.activeElement
    // A password field copies nothing in Chromium; so it stays.
    if (el instanceof HTMLInputElement && el.type === 'password') return { text: '' }
    if ((el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement) && el.selectionStart !== null) {
      return { text: el.value.slice(el.selectionStart, el.selectionEnd ?? el.selectionStart) }
    }
    const selection = getSelection()
    if (!selection || selection.rangeCount === 0) return { text: '' }
    const holder = document.createElement('div')
    for (let i = 0; i < selection.rangeCount; i++) holder.append(selection.getRangeAt(i).cloneContents())
    return { text: selection.toString(), html: holder.innerHTML }
  }

  /** The last listener of a copy or cut: does what the browser would have, with the mark. */
  const finish = (e: ClipboardEvent) => {
    const data = e.clipboardData
    if (!e.isTrusted || !data) return
    if (pending) {
      data.setData('text/plain', pending.text)
      if (pending.html !== undefined) data.setData('text/html', pending.html)
      e.preventDefault()
    } else if (!e.defaultPrevented) {
      // Nobody wrote the data: the browser would copy the selection, but would drop the mark.
      const { text, html } = selected()
      data.setData('text/plain', text)
      if (html !== undefined) data.setData('text/html', html)
      e.preventDefault()
      if (e.type === 'cut') setTimeout(() => document.execCommand('delete'))
    }
    data.setData(type, token)
  }
  for (const kind of ['copy', 'cut'] as const) {
    // Added while the event is at the window on its way down, so it runs after every handler
    // the page registered (the window's bubbling listeners are collected when it gets there).
    addEventListener(kind, (e) => e.isTrusted && addEventListener(kind, finish, { once: true }), true)
  }
  addEventListener('paste', (e) => {
    if (e.isTrusted && e.clipboardData?.getData(type) !== token) {
      e.preventDefault()
      e.stopImmediatePropagation()
    }
  }, true)

  // The async API, on the prototype so no page reaches the originals through it.
  const proto = (window as unknown as { Clipboard?: { prototype: Clipboard } }).Clipboard?.prototype
  if (!proto) return
  const copyMarked = (what: { text: string; html?: string | undefined }) => {
    pending = what
    try {
      return document.execCommand('copy')
    } finally {
      pending = undefined
    }
  }
  const { writeText, write } = proto
  const fixed = (value: unknown): PropertyDescriptor => ({ value, configurable: false, writable: false, enumerable: true })
  Object.defineProperties(proto, {
    readText: fixed(refuse),
    read: fixed(refuse),
    // Marked when the page may copy now; otherwise the browser's own (unmarked: it pastes nowhere).
    writeText: fixed(function (this: Clipboard, text: string) {
      return copyMarked({ text: String(text) }) ? Promise.resolve() : writeText.call(this, text)
    }),
    write: fixed(async function (this: Clipboard, items: ClipboardItem[]) {
      const item = items[0]
      const textOf = async (mime: string) => (item?.types.includes(mime) ? (await item.getType(mime)).text() : undefined)
      const text = await textOf('text/plain')
      const onlyText = items.length === 1 && item!.types.every((t) => t === 'text/plain' || t === 'text/html')
      if (onlyText && text !== undefined && copyMarked({ text, html: await textOf('text/html') })) return
      return write.call(this, items)
    }),
  })
}

/** Makes the errands' secrets; never leaves this process. */
const SECRET_KEY = randomBytes(32)

/**
 * Gives `context`, opened for errand `errandId`, that errand's clipboard (see the module's
 * comment): every document it loads from now on, and the ones it holds already (a warm spare's
 * blank page).
 *
 * @example
 * await isolateClipboard(context, 'task-1')
 */
export const isolateClipboard = async (context: BrowserContext, errandId: string): Promise<void> => {
  const token = createHmac('sha256', SECRET_KEY).update(errandId).digest('hex').slice(0, 32)
  const args: ShimArgs = { token, type: CLIPBOARD_OWNER_TYPE }
  await context.addInitScript(clipboardShim, args)
  await Promise.all(context.pages().map((page) => page.evaluate(clipboardShim, args).catch(() => undefined)))
}
