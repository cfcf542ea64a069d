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

/**
 * The script every document of an errand runs first: plain JavaScript in a string, never a
 * function of this module — a function would be serialised from whatever the loader made of it,
 * and tsx (esbuild's keepNames) wraps named inner functions in a `__name(...)` that does not
 * exist in the page: the script threw and the clipboard was shared (issue #22). `token` and
 * `type` are JSON literals.
 *
 * @example
 * await context.addInitScript({ content: clipboardScript('ab12…', CLIPBOARD_OWNER_TYPE) })
 */
export const clipboardScript = (token: string, type: string): string => `
(function () {
  var TOKEN = ${JSON.stringify(token)};
  var TYPE = ${JSON.stringify(type)};
  var installed = Symbol.for('errands.clipboard');
  if (window[installed]) return;
  Object.defineProperty(window, installed, { value: true });
  var refuse = function () {
    var why = 'Reading the clipboard is not allowed in an errand: the errands share one browser process (Errands)';
    return Promise.reject(new DOMException(why, 'NotAllowedError'));
  };
  // What navigator.clipboard.write* asked for, while its copy event runs.
  var pending;

  var selected = function () {
    var el = document.activeElement;
    // A password field copies nothing in Chromium; so it stays.
    if (el instanceof HTMLInputElement && el.type === 'password') return { text: '' };
    if ((el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement) && el.selectionStart !== null) {
      var end = el.selectionEnd === null ? el.selectionStart : el.selectionEnd;
      return { text: el.value.slice(el.selectionStart, end) };
    }
    var selection = getSelection();
    if (!selection || selection.rangeCount === 0) return { text: '' };
    var holder = document.createElement('div');
    for (var i = 0; i < selection.rangeCount; i++) holder.append(selection.getRangeAt(i).cloneContents());
    return { text: selection.toString(), html: holder.innerHTML };
  };

  // The last listener of a copy or cut: does what the browser would have, with the mark.
  var finish = function (e) {
    var data = e.clipboardData;
    if (!e.isTrusted || !data) return;
    if (pending) {
      data.setData('text/plain', pending.text);
      if (pending.html !== undefined) data.setData('text/html', pending.html);
      e.preventDefault();
    } else if (!e.defaultPrevented) {
      // Nobody wrote the data: the browser would copy the selection, but would drop the mark.
      var got = selected();
      data.setData('text/plain', got.text);
      if (got.html !== undefined) data.setData('text/html', got.html);
      e.preventDefault();
      if (e.type === 'cut') setTimeout(function () { document.execCommand('delete'); });
    }
    data.setData(TYPE, TOKEN);
  };
  ['copy', 'cut'].forEach(function (kind) {
    // Added while the event is at the window on its way down, so it runs after every handler
    // the page registered (the window's bubbling listeners are collected when it gets there).
    addEventListener(kind, function (e) { if (e.isTrusted) addEventListener(kind, finish, { once: true }); }, true);
  });
  addEventListener('paste', function (e) {
    if (e.isTrusted && (!e.clipboardData || e.clipboardData.getData(TYPE) !== TOKEN)) {
      e.preventDefault();
      e.stopImmediatePropagation();
    }
  }, true);

  // The async API, on the prototype so no page reaches the originals through it.
  var proto = window.Clipboard && window.Clipboard.prototype;
  if (!proto) return;
  var copyMarked = function (what) {
    pending = what;
    try { return document.execCommand('copy'); } finally { pending = undefined; }
  };
  var writeText = proto.writeText;
  var write = proto.write;
  var fixed = function (value) { return { value: value, configurable: false, writable: false, enumerable: true }; };
  Object.defineProperties(proto, {
    readText: fixed(refuse),
    read: fixed(refuse),
    // Marked when the page may copy now; otherwise the browser's own (unmarked: it pastes nowhere).
    writeText: fixed(function (text) {
      return copyMarked({ text: String(text) }) ? Promise.resolve() : writeText.call(this, text);
    }),
    write: fixed(function (items) {
      var self = this;
      var item = items[0];
      var textOf = function (mime) {
        if (!item || !item.types.includes(mime)) return Promise.resolve(undefined);
        return item.getType(mime).then(function (b) { return b.text(); });
      };
      return Promise.all([textOf('text/plain'), textOf('text/html')]).then(function (got) {
        var onlyText = items.length === 1 &&
          item.types.every(function (t) { return t === 'text/plain' || t === 'text/html'; });
        if (onlyText && got[0] !== undefined && copyMarked({ text: got[0], html: got[1] })) return;
        return write.call(self, items);
      });
    }),
  });
})();
`

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
  const script = clipboardScript(token, CLIPBOARD_OWNER_TYPE)
  await context.addInitScript({ content: script })
  await Promise.all(context.pages().map((page) => page.evaluate(script).catch(() => undefined)))
}
