// The extension's state, in `chrome.storage.session`: kept while the browser runs (across
// service-worker restarts), gone when it quits, never written to disk, and — at the default
// access level — readable by the extension's own pages and worker only, not by content scripts
// (so not by the observation script either).
//
// {
//   host, token, botId, leaseId, expiresAt, pollWaitMs,   // set by pairing
//   share: { tabId, documentId, url, title } | null,       // set by the person's Share
//   pendingShare: { tabId, gone: null | 'navigated' | 'tab-closed' } | null,  // Share in flight
//   ended: { cause, message, at } | null,                  // why the last lease ended
//   lastHost                                              // prefilled in the popup
// }
//
// Only the service worker writes it, and every write goes through `update`, one at a time: two
// event handlers reading, merging and writing concurrently would otherwise lose a field.

const KEY = 'daily'
let chain = Promise.resolve()

export async function loadState() {
  const got = await chrome.storage.session.get(KEY)
  return got[KEY] ?? {}
}

/** Runs `fn(state)` after every earlier update; a returned object replaces the state. */
export function update(fn) {
  const run = chain.then(async () => {
    const next = await fn(await loadState())
    if (next) await chrome.storage.session.set({ [KEY]: next })
    return next ?? (await loadState())
  })
  chain = run.catch(() => {})
  return run
}

/** Forgets the lease (token included), keeping why it ended and the host for the next pairing. */
export function endState(ended) {
  return update((s) => ({ lastHost: s.host ?? s.lastHost, ended }))
}

export function isPaired(state) {
  return typeof state.token === 'string' && state.token.length > 0
}

/** The state without the token, for the popup. */
export function publicState(s) {
  return {
    paired: isPaired(s),
    host: s.host ?? null,
    lastHost: s.lastHost ?? s.host ?? null,
    botId: s.botId ?? null,
    leaseId: s.leaseId ?? null,
    expiresAt: s.expiresAt ?? null,
    share: s.share ? { title: s.share.title, url: s.share.url } : null,
    sharing: Boolean(s.pendingShare),
    ended: s.ended ?? null,
  }
}
