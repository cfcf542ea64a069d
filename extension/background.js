// The Daily Browser extension's service worker (D2–D6).
//
// It redeems a pairing code, keeps the lease alive by polling the host, runs observations in the
// ONE tab the person shared (main frame, that document only) and reports when that tab reloads,
// navigates or closes. It never picks a tab by itself: the only tab it ever reads is the one whose
// id the popup passed along with the person's "Share current tab read-only" — and it can read it
// only because pressing the toolbar button gave it the activeTab grant for that tab. It never
// shares again by itself: a lease that ends is forgotten, and sharing again needs a new code.
//
// Keep-alive: Chrome stops an idle extension worker after 30 s, and one whose fetch response
// takes longer than 30 s. The poll therefore waits at most 20 s at the host, and after each poll
// the worker writes `lastPollAt` to session storage — an extension API call, which resets the
// idle timer. If the worker is stopped anyway (or crashes), the `daily-poll` alarm (every 30 s,
// the shortest period Chrome allows since 120) wakes it and the loop resumes from storage. The
// host revokes the lease after 45 s without a poll, so a worker that stays dead ends the lease.

import { call, checkHost, DoorError } from './lib/door.js'
import { observePage } from './lib/observe.js'
import { endState, isPaired, loadState, publicState, update } from './lib/state.js'

const ALARM = 'daily-poll'
const RETRY_MS = 2_000

/** The running poll loop of this worker instance: at most one, for one lease. */
let loop = null
/** Observation ids being worked on by this worker instance (sent with each poll). */
const inFlight = new Set()

// Listeners are registered synchronously at the top level, so that a worker woken by one of these
// events has its listener in place (MV3).
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // Only the extension's own pages talk to the worker (it has no content scripts).
  if (sender.id !== chrome.runtime.id || sender.tab !== undefined) return false
  handle(message).then(
    (state) => sendResponse({ ok: true, state: publicState(state) }),
    (e) => sendResponse({ ok: false, error: String(e?.message ?? e), code: e?.code ?? null }),
  )
  return true
})
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === ALARM) void ensurePolling()
})
// Without the `tabs` permission these events still fire for every tab, with the tab id and the
// loading status; the URL and title are filled in only for tabs the extension has a grant for.
// That is all this needs: the shared tab's id, and "it started loading" or "it is gone".
chrome.tabs.onUpdated.addListener((tabId, change) => void onTabUpdated(tabId, change))
chrome.tabs.onRemoved.addListener((tabId) => void onTabEvent(tabId, 'tab-closed'))
chrome.tabs.onReplaced.addListener((_added, removed) => void onTabEvent(removed, 'tab-closed'))

// A worker that was stopped and started again picks its poll up from storage.
void ensurePolling()

async function handle(message) {
  switch (message?.type) {
    case 'state':
      return loadState()
    case 'pair':
      return pair(String(message.host ?? ''), String(message.code ?? ''))
    case 'share':
      return share(message.tabId)
    case 'return':
      return giveBack()
    default:
      throw new Error('Unknown request.')
  }
}

async function pair(hostText, code) {
  const host = checkHost(hostText)
  const old = await loadState()
  // Cancel the old lease's poll before switching leases; give the old lease back once the new
  // code is accepted (a wrong code leaves the old lease as it was).
  stopPolling()
  let redeemed
  try {
    redeemed = await call(host, '/redeem', { code })
  } catch (e) {
    void ensurePolling()
    throw e
  }
  if (isPaired(old)) await call(old.host, '/lease/return', {}, { token: old.token }).catch(() => {})
  inFlight.clear()
  const state = await update(() => ({
    host,
    lastHost: host,
    token: redeemed.token,
    botId: redeemed.botId,
    leaseId: redeemed.leaseId,
    expiresAt: redeemed.expiresAt,
    pollWaitMs: redeemed.pollWaitMs,
    share: null,
    pendingShare: null,
    ended: null,
  }))
  await chrome.alarms.create(ALARM, { periodInMinutes: 0.5 })
  void ensurePolling()
  return state
}

async function share(tabId) {
  const state = await loadState()
  if (!isPaired(state)) throw new Error('Pair with a code first.')
  if (state.share || state.pendingShare) throw new Error('A tab is already shared. Return it first.')
  if (!Number.isInteger(tabId)) throw new Error('No tab to share.')
  await update((s) => ({ ...s, pendingShare: { tabId, gone: null } }))
  try {
    // Needs the activeTab grant for this tab, which only the person's click on the toolbar
    // button gives. Main frame only; the result carries the document's id, which fences the lease.
    const [injection] = await chrome.scripting.executeScript({
      target: { tabId, frameIds: [0] },
      func: () => ({ url: location.href, title: document.title }),
    })
    if (!injection?.documentId || !injection.result)
      throw new Error('This tab cannot be read; open the extension from the tab you want to share.')
    const shared = {
      tabId,
      documentId: injection.documentId,
      url: String(injection.result.url),
      title: String(injection.result.title ?? ''),
    }
    if (!/^https?:\/\//i.test(shared.url)) throw new Error('Only web pages (http or https) can be shared.')
    await call(state.host, '/lease/share', shared, { token: state.token })
    // Tab events are decided inside `update` too, so each one lands either before this commit
    // (and marks the pending Share) or after it (and sees the shared tab): none is lost.
    let gone = null
    const after = await update((s) => {
      gone = s.pendingShare?.gone ?? null
      return { ...s, share: shared, pendingShare: null }
    })
    // The tab reloaded, navigated or closed while Share was on its way: the document that was
    // lent is gone already, so the lease ends now.
    if (gone) return report(gone)
    return after
  } catch (e) {
    await update((s) => (s.pendingShare ? { ...s, pendingShare: null } : null))
    if (e instanceof DoorError && e.isFinal) await finish(e.reason ?? e.code, e.message)
    throw e
  }
}

async function giveBack() {
  const state = await loadState()
  if (!isPaired(state)) return state
  stopPolling()
  await call(state.host, '/lease/return', {}, { token: state.token }).catch(() => {})
  return finish('return', 'You returned the tab.')
}

async function report(event) {
  const state = await loadState()
  if (!isPaired(state)) return state
  stopPolling()
  await call(state.host, '/lease/event', { event }, { token: state.token }).catch(() => {})
  return finish(
    event === 'tab-closed' ? 'tab-closed' : 'navigation',
    event === 'tab-closed' ? 'The shared tab was closed.' : 'The shared tab reloaded or navigated.',
  )
}

async function finish(cause, message) {
  stopPolling()
  inFlight.clear()
  await chrome.alarms.clear(ALARM)
  return endState({ cause: cause ?? 'ended', message: message ?? 'The lease ended.', at: Date.now() })
}

function onTabUpdated(tabId, change) {
  // Title, favicon and audio changes are not navigations.
  const navigated = change.status === 'loading' || change.url !== undefined || change.discarded === true
  return navigated ? onTabEvent(tabId, 'navigated') : undefined
}

async function onTabEvent(tabId, event) {
  let lent = false
  await update((s) => {
    if (s.pendingShare?.tabId === tabId)
      return { ...s, pendingShare: { ...s.pendingShare, gone: s.pendingShare.gone ?? event } }
    lent = s.share?.tabId === tabId
    return null
  })
  if (lent) await report(event)
}

async function ensurePolling() {
  const state = await loadState()
  if (!isPaired(state)) {
    stopPolling()
    await chrome.alarms.clear(ALARM)
    return
  }
  if (loop?.leaseId === state.leaseId) return
  stopPolling()
  const controller = new AbortController()
  loop = { leaseId: state.leaseId, controller }
  void pollLoop(state.leaseId, controller.signal)
}

function stopPolling() {
  loop?.controller.abort()
  loop = null
}

async function pollLoop(leaseId, signal) {
  while (!signal.aborted) {
    const state = await loadState()
    if (!isPaired(state) || state.leaseId !== leaseId) return
    try {
      const result = await call(
        state.host,
        '/lease/poll',
        { waitMs: state.pollWaitMs ?? 20_000, inFlight: [...inFlight] },
        { token: state.token, signal },
      )
      // An extension API call: resets the worker's 30-second idle timer.
      await chrome.storage.session.set({ lastPollAt: Date.now() })
      for (const request of result.requests ?? []) if (!inFlight.has(request.id)) void observe(leaseId, request)
    } catch (e) {
      if (signal.aborted) return
      // Ended (410), unknown after a host restart (401), or bound to another Origin (403).
      if (e instanceof DoorError && e.isFinal) {
        await finish(e.reason ?? e.code, e.message)
        return
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS))
    }
  }
}

async function observe(leaseId, request) {
  inFlight.add(request.id)
  const state = await loadState()
  const token = { token: state.token }
  try {
    if (!state.share || state.leaseId !== leaseId) {
      await call(state.host, '/lease/fail', { id: request.id, message: 'Nothing is shared.' }, token)
      return
    }
    let injection
    try {
      // Only the shared document: if the tab has moved on to another document, this fails
      // instead of reading the new one.
      ;[injection] = await chrome.scripting.executeScript({
        target: { tabId: state.share.tabId, documentIds: [state.share.documentId] },
        func: observePage,
        args: [request.limits],
      })
    } catch (e) {
      await call(state.host, '/lease/fail', { id: request.id, message: String(e?.message ?? e).slice(0, 300) }, token)
      return
    }
    const page = injection?.result
    if (!page) {
      await call(state.host, '/lease/fail', { id: request.id, message: 'The page returned nothing.' }, token)
      return
    }
    await call(
      state.host,
      '/lease/answer',
      {
        id: request.id,
        url: page.url,
        documentId: injection.documentId,
        title: page.title,
        text: page.text,
        controls: page.controls,
        truncated: page.truncated,
      },
      token,
    )
  } catch (e) {
    // 404: the bot stopped waiting meanwhile — nothing to do. A final answer ends the lease here too.
    if (e instanceof DoorError && e.isFinal) await finish(e.reason ?? e.code, e.message)
  } finally {
    inFlight.delete(request.id)
  }
}
