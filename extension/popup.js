// The popup: pair with a code, see which bot is paired and which page this tab shows, and share
// it read-only or return it. Opening the popup from the toolbar button is what gives the
// extension the activeTab grant for this tab; that grant is why this tab's URL and title are
// visible here (there is no `tabs` permission) and why the worker may read it after Share.
// Page titles and URLs are untrusted text: they are only ever set as textContent.

const $ = (id) => document.getElementById(id)
const send = (message) => chrome.runtime.sendMessage(message)
const [tab] = await chrome.tabs.query({ active: true, currentWindow: true })

function show(id, on) {
  $(id).hidden = !on
}

function showError(message) {
  show('error', Boolean(message))
  $('error').textContent = message ?? ''
}

function render(s) {
  show('pairing', !s.paired)
  show('paired', s.paired)
  if (!s.paired && s.lastHost) $('host').value = s.lastHost
  $('bot').textContent = s.botId ?? ''
  const readable = typeof tab?.url === 'string' && /^https?:\/\//i.test(tab.url)
  $('current').textContent = tab?.url
    ? `${tab.title || '(untitled)'} — ${tab.url}`
    : 'not readable (open this popup from the tab you want to share)'
  $('share').disabled = !readable || Boolean(s.share) || s.sharing
  show('share', !s.share)
  show('shared', Boolean(s.share))
  $('shared-page').textContent = s.share ? `${s.share.title || '(untitled)'} — ${s.share.url}` : ''
  show('ended', !s.paired && Boolean(s.ended))
  $('ended').textContent = s.ended ? `The last lease ended: ${s.ended.message}` : ''
}

async function refresh() {
  const answer = await send({ type: 'state' })
  if (answer?.ok) render(answer.state)
}

async function act(message, button) {
  button.disabled = true
  let error = null
  try {
    const answer = await send(message)
    if (!answer?.ok) error = answer?.error ?? 'Something went wrong.'
  } catch (e) {
    error = String(e?.message ?? e)
  }
  // Share's availability is decided by `render`; the other buttons are simply usable again.
  if (button !== $('share')) button.disabled = false
  await refresh()
  showError(error)
}

$('pair').addEventListener('click', () =>
  act({ type: 'pair', host: $('host').value, code: $('code').value }, $('pair')),
)
$('share').addEventListener('click', () => act({ type: 'share', tabId: tab?.id }, $('share')))
$('return').addEventListener('click', () => act({ type: 'return' }, $('return')))

await refresh()
