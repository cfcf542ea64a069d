// The observation itself (D4). `chrome.scripting.executeScript({ func: observePage })` serialises
// this function and runs it in the shared tab's main document, in the extension's isolated world
// (page scripts cannot replace the DOM methods it calls). It must therefore be self-contained:
// no imports, no closures over module variables.
//
// What it reads: the visible text of the document and the labels of its controls — button and
// link text, <label> text, aria-label / aria-labelledby, placeholders and titles.
// What it never reads: any form control's value. It never touches `.value`, `.checked`,
// `.selectedIndex`, `value` attributes or the text inside <textarea>, <select>/<option>, <input>
// or contenteditable regions — so neither typed text nor passwords (autofilled or not) leave the
// page. Even an <input type=submit>'s caption is not read (it lives in `value`); such buttons are
// named by aria-label, title or their type.

/**
 * @param {{ maxTextChars: number, maxControls: number, maxLabelChars: number }} limits
 * @returns {{ url: string, title: string, text: string, controls: Array<{ kind: string, label: string, inputType?:
 * string }>, truncated: { text: boolean, controls: boolean } }}
 */
export function observePage(limits) {
  const maxText = Math.max(0, limits.maxTextChars | 0)
  const maxControls = Math.max(0, limits.maxControls | 0)
  const maxLabel = Math.max(1, limits.maxLabelChars | 0)
  // Subtrees whose text is (or may be) user input, code, or not rendered as text.
  const skipped = new Set([
    'SCRIPT',
    'STYLE',
    'NOSCRIPT',
    'TEMPLATE',
    'TEXTAREA',
    'SELECT',
    'OPTION',
    'DATALIST',
    'INPUT',
    'IFRAME',
    'FRAME',
    'OBJECT',
    'EMBED',
    'CANVAS',
    'HEAD',
  ])
  const fields = new Set(['INPUT', 'TEXTAREA', 'SELECT'])
  const squash = (s) =>
    String(s ?? '')
      .replace(/\s+/g, ' ')
      .trim()
  const clip = (s) => (s.length > maxLabel ? s.slice(0, maxLabel) : s)
  const isVisible = (el) =>
    typeof el.checkVisibility === 'function'
      ? el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })
      : el.getClientRects().length > 0
  const isSkipped = (el) => skipped.has(el.tagName) || el.isContentEditable

  // The text of an element, by the same rules as the page text (no field contents, no editables).
  const safeText = (root) => {
    const out = []
    const walk = (node) => {
      for (const child of node.childNodes) {
        if (child.nodeType === Node.TEXT_NODE) out.push(child.data)
        else if (child.nodeType === Node.ELEMENT_NODE && !isSkipped(child)) walk(child)
      }
    }
    if (root && !isSkipped(root)) walk(root)
    return squash(out.join(' '))
  }
  const labelledBy = (el) =>
    squash(
      (el.getAttribute('aria-labelledby') ?? '')
        .split(/\s+/)
        .map((id) => (id ? document.getElementById(id) : null))
        .filter((x) => x && !fields.has(x.tagName))
        .map(safeText)
        .join(' '),
    )
  const ariaName = (el) => squash(el.getAttribute('aria-label')) || labelledBy(el)

  // — visible text, with a line break wherever the enclosing block changes —
  const display = new Map()
  const blockOf = (el) => {
    let e = el
    while (e && e !== document.body) {
      let d = display.get(e)
      if (d === undefined) {
        d = getComputedStyle(e).display
        display.set(e, d)
      }
      if (!d.startsWith('inline') && d !== 'contents') return e
      e = e.parentElement
    }
    return document.body
  }
  const parts = []
  let size = 0
  let textCut = false
  let lastBlock = null
  const root = document.body ?? document.documentElement
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      if (node.nodeType === Node.TEXT_NODE) return NodeFilter.FILTER_ACCEPT
      if (isSkipped(node) || !isVisible(node)) return NodeFilter.FILTER_REJECT
      return NodeFilter.FILTER_SKIP
    },
  })
  while (walker.nextNode()) {
    const node = walker.currentNode
    const text = squash(node.data)
    if (!text) continue
    const block = blockOf(node.parentElement)
    const piece = (parts.length === 0 ? '' : block === lastBlock ? ' ' : '\n') + text
    lastBlock = block
    if (size + piece.length > maxText) {
      parts.push(piece.slice(0, Math.max(0, maxText - size)))
      textCut = true
      break
    }
    parts.push(piece)
    size += piece.length
  }

  // — control labels —
  const controls = []
  let controlsCut = false
  const seen = new Set()
  const add = (el, kind, label, inputType) => {
    if (seen.has(el)) return
    seen.add(el)
    const text = clip(squash(label))
    if (!text) return
    if (controls.length >= maxControls) {
      controlsCut = true
      return
    }
    controls.push(inputType ? { kind, label: text, inputType } : { kind, label: text })
  }
  const each = (selector, fn) => {
    // Inside an editable region everything is user content; the region's own host may still be named.
    for (const el of document.querySelectorAll(selector))
      if (!seen.has(el) && isVisible(el) && !el.parentElement?.isContentEditable) fn(el)
  }
  const buttonTypes = new Set(['button', 'submit', 'reset', 'image'])
  each(
    'button, [role="button"], input[type="button" i], input[type="submit" i], input[type="reset" i], ' +
      'input[type="image" i]',
    (el) => {
      const type = el.tagName === 'INPUT' ? String(el.getAttribute('type') ?? '').toLowerCase() : ''
      const named = ariaName(el) || squash(el.getAttribute('title'))
      const label =
        el.tagName === 'INPUT'
          ? named || squash(type === 'image' ? el.getAttribute('alt') : '') || type
          : named || safeText(el)
      add(el, 'button', label)
    },
  )
  each('a[href], [role="link"]', (el) => {
    const img = el.querySelector('img[alt]')
    add(
      el,
      'link',
      ariaName(el) || safeText(el) || squash(el.getAttribute('title')) || squash(img?.getAttribute('alt')),
    )
  })
  each('label', (el) => add(el, 'label', safeText(el)))
  each(
    'input, textarea, select, [role="textbox"], [role="combobox"], [role="checkbox"], [role="radio"], [role="switch"]',
    (el) => {
      const type =
        el.tagName === 'INPUT'
          ? String(el.getAttribute('type') ?? 'text').toLowerCase()
          : el.tagName === 'TEXTAREA'
            ? 'textarea'
            : el.tagName === 'SELECT'
              ? 'select'
              : String(el.getAttribute('role'))
      if (type === 'hidden' || buttonTypes.has(type)) return
      const labels = el.labels ? [...el.labels].map(safeText).filter(Boolean).join(' ') : ''
      const name = ariaName(el) || labels || squash(el.getAttribute('title')) || squash(el.getAttribute('name'))
      const placeholder = squash(el.getAttribute('placeholder'))
      const label =
        name && placeholder && placeholder !== name ? `${name} (placeholder: ${placeholder})` : name || placeholder
      add(el, 'field', label || type, type.replace(/[^a-z-]/g, '').slice(0, 20))
    },
  )
  each('[aria-label], [aria-labelledby]', (el) => {
    if (!fields.has(el.tagName)) add(el, 'named', ariaName(el))
  })

  return {
    url: location.href,
    title: String(document.title ?? '').slice(0, 1000),
    text: parts.join(''),
    controls,
    truncated: { text: textCut, controls: controlsCut },
  }
}
