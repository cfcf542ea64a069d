/**
 * The inspector's outlet for a Node process: a small server on 127.0.0.1 that serves one page
 * and one WebSocket, on the same port.
 *
 * - `GET /` is a page that embeds the Stately inspector (`https://stately.ai/inspect`, a web app)
 *   in an iframe and hands it the events it reads from the WebSocket — the design of
 *   `@statelyai/inspect/server`'s `createInspectorServer`, which we do not use as is because it
 *   listens on every interface, checks no Host or Origin, relays what any client sends to every
 *   other, and opens a browser by itself.
 * - The WebSocket at `/` carries the Stately inspection events (JSON text, the protocol of
 *   `createWebSocketInspector`), so `createWebSocketReceiver({ server: 'ws://127.0.0.1:<port>' })`
 *   or any Stately inspector client reads them too. Viewers only listen: what they send is ignored.
 *
 * A viewer that connects late first gets the live actors' registrations and latest snapshots,
 * then the recent events; nothing from before the relay opened (the switch was off) exists.
 *
 * Local-service defences as the host's, through `@errands/edge` (B7): the Host must be the relay's
 * own (421), a browser may open the WebSocket only from the relay's own page (its `Origin`, 403),
 * so no web page elsewhere can read the errands' states; the page itself refuses a foreign Origin
 * but not a same-site `Sec-Fetch-Site`, since the live view (another port, same site) frames it.
 * Refusals are the edge's JSON errors, on the socket too.
 *
 * @example
 * const outlet = await openInspectorRelay({ port: 7778 })
 * outlet.url // 'http://127.0.0.1:7778/'
 */
import {
  type Access,
  admit,
  checkMethod,
  nodeHeaders,
  NotFound,
  refuseUpgrade,
  sendError,
  UpgradeRefused,
} from '@errands/edge'
import type { StatelyInspectionEvent } from '@statelyai/inspect'
import { randomBytes } from 'node:crypto'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { WebSocket, WebSocketServer } from 'ws'
import { InspectorUnavailable } from '@errands/sessions'
import { STATELY_VIEWER, type InspectorAdapter, type InspectorOutlet } from './inspector.ts'

/** The relay's page: the live view (another port, same site) frames it, so a same-site Sec-Fetch-Site passes. */
const RELAY_PAGE: Access = { origin: { fetchSite: false } }

/** How to open the relay. */
export interface InspectorRelayOptions {
  /** Port on 127.0.0.1 (`0`: any free port, for tests). */
  readonly port: number
  /** The inspector web app the page embeds. Default: `https://stately.ai/inspect`. */
  readonly viewer?: string | undefined
  /** Origins that may embed the page in a frame (the live view's), besides the relay's own. */
  readonly frameAncestors?: ReadonlyArray<string> | undefined
  /** Recent events a late viewer gets (besides every live actor's registration). Default 500. */
  readonly recent?: number | undefined
}

const bridgePage = (viewer: string, nonce: string) => {
  const viewerOrigin = new URL(viewer).origin
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Errands — XState inspector</title>
<style>
html,body{height:100%;margin:0}iframe{width:100%;height:100%;border:0}
#off{display:none;font:14px system-ui;padding:1em}
</style>
</head>
<body>
<p id="off">The inspector was switched off (or the errands host stopped). Switch it on again and reload.</p>
<iframe id="viewer" src="${viewer}" referrerpolicy="no-referrer"></iframe>
<script nonce="${nonce}">
  // As @statelyai/inspect/server's bridge: hold events until the viewer says it is ready.
  const frame = document.getElementById('viewer');
  const buffer = [];
  let ready = false;
  window.addEventListener('message', (e) => {
    if (e.source === frame.contentWindow && e.data && e.data.type === '@statelyai.connected') {
      ready = true;
      for (const event of buffer.splice(0)) frame.contentWindow.postMessage(event, ${JSON.stringify(viewerOrigin)});
    }
  });
  const ws = new WebSocket('ws://' + location.host + '/');
  ws.onmessage = (m) => {
    const event = JSON.parse(m.data);
    if (ready) frame.contentWindow.postMessage(event, ${JSON.stringify(viewerOrigin)});
    else buffer.push(event);
  };
  ws.onclose = () => { document.getElementById('off').style.display = 'block'; };
</script>
</body>
</html>`
}

/**
 * Opens the relay; its `adapter` is what a `@statelyai/inspect` inspector sends to. Fails with
 * `InspectorUnavailable('port-in-use')` when the port is taken.
 *
 * @example
 * const outlet = await openInspectorRelay({ port: 0 })
 * const inspector = createInspector(outlet.adapter)
 */
export const openInspectorRelay = async (options: InspectorRelayOptions): Promise<InspectorOutlet> => {
  const viewer = options.viewer ?? STATELY_VIEWER
  const recentMax = options.recent ?? 500
  let port = options.port
  const ownHost = () => `127.0.0.1:${port}`
  const ownOrigin = () => `http://${ownHost()}`
  /** Live actors' registrations and latest snapshots (JSON text), in registration order. */
  const registered = new Map<string, string>()
  const latest = new Map<string, string>()
  const recent: Array<{ readonly sessionId: string; readonly text: string }> = []
  let closed = false

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 })
  const server = http.createServer((req, res) => {
    const base = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' }
    const headers = nodeHeaders(req.headers)
    const path = req.url ?? '/'
    const refusal =
      admit(headers, { port }, RELAY_PAGE) ??
      (path !== '/'
        ? new NotFound({ reason: 'no-route', message: 'The inspector relay serves its page at / only.' })
        : undefined) ??
      checkMethod(req.method ?? 'GET', ['GET'], path)
    if (refusal) {
      sendError(res, refusal)
      return
    }
    const nonce = randomBytes(16).toString('base64')
    const ancestors = ["'self'", ...(options.frameAncestors ?? [])].join(' ')
    res.writeHead(200, {
      ...base,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy':
        `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; ` +
        `frame-src ${new URL(viewer).origin}; connect-src ws://${ownHost()} ws://localhost:${port}; frame-ancestors ` +
        `${ancestors}`,
    })
    res.end(req.method === 'HEAD' ? undefined : bridgePage(viewer, nonce))
  })

  server.on('upgrade', (req, socket: Duplex, head) => {
    const headers = nodeHeaders(req.headers)
    // A browser sends an Origin with every WebSocket: only the relay's own page may read.
    const refusal =
      admit(headers, { port }) ??
      ((req.url ?? '/') !== '/'
        ? new UpgradeRefused({ reason: 'no-websocket', message: "The inspector relay's WebSocket is at / only." })
        : undefined)
    if (refusal) return refuseUpgrade(socket, refusal)
    wss.handleUpgrade(req, socket, head, (ws) => {
      const inRecent = new Set(recent.map((r) => r.sessionId))
      for (const text of registered.values()) ws.send(text)
      for (const [id, text] of latest) if (!inRecent.has(id) && registered.has(id)) ws.send(text)
      for (const r of recent) ws.send(r.text)
      ws.on('message', () => undefined)
      ws.on('error', () => ws.terminate())
    })
  })

  port = await new Promise<number>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(
        new InspectorUnavailable({
          reason: error.code === 'EADDRINUSE' ? 'port-in-use' : 'open-failed',
          message:
            error.code === 'EADDRINUSE'
              ? `Port ${options.port} on 127.0.0.1 is in use; set ERRANDS_INSPECT_PORT to a free port (and restart), ` +
                `or stop what holds it.`
              : `The inspector could not listen on 127.0.0.1:${options.port} (${error.code ?? error.message}).`,
        }),
      )
    server.once('error', onError)
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', onError)
      resolve((server.address() as AddressInfo).port)
    })
  })

  const adapter: InspectorAdapter = {
    send: (event: StatelyInspectionEvent) => {
      if (closed) return
      const text = JSON.stringify(event)
      const id = event.sessionId
      if (event.type === '@xstate.actor') registered.set(id, text)
      else if (event.type === '@xstate.snapshot') {
        if ((event.snapshot as { status?: string }).status === 'active') latest.set(id, text)
        else {
          registered.delete(id)
          latest.delete(id)
        }
      }
      if (event.type !== '@xstate.actor') {
        recent.push({ sessionId: id, text })
        if (recent.length > recentMax) recent.shift()
      }
      for (const client of wss.clients) if (client.readyState === WebSocket.OPEN) client.send(text)
    },
  }

  const close = () => {
    if (closed) return Promise.resolve()
    closed = true
    for (const client of wss.clients) client.terminate()
    wss.close()
    return new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  }

  return { adapter, url: `${ownOrigin()}/`, events: `ws://${ownHost()}/`, viewer, close }
}
