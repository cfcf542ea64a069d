// The extension's side of the Daily Browser door. Every call is a POST with a JSON body: Chrome
// sends an extension's `Origin: chrome-extension://<id>` on POST (not on GET), and the door needs
// it. `credentials: 'omit'` keeps cookies out of every request, in both directions.

/** The door's path prefix on the host. */
export const PREFIX = '/daily'

/** The host URLs this extension may talk to: its host permissions cover only these names. */
export function checkHost(text) {
  let url
  try {
    url = new URL(String(text).trim())
  } catch {
    throw new Error('The host must be a URL such as http://127.0.0.1:7777')
  }
  if (url.protocol !== 'http:' || !['127.0.0.1', 'localhost'].includes(url.hostname)) {
    throw new Error(
      'The host must be http://127.0.0.1:<port> or http://localhost:<port> (this extension talks to loopback only).',
    )
  }
  return url.origin
}

/** An error answer of the door: `{ error: { code, reason, message } }` with its HTTP status. */
export class DoorError extends Error {
  constructor(status, code, reason, message) {
    super(message || `The host answered ${status}`)
    this.status = status
    this.code = code
    this.reason = reason
  }
  /** The lease is gone for good: ended (410), unknown after a host restart (401) or bound elsewhere (403). */
  get isFinal() {
    return this.status === 410 || this.status === 401 || this.status === 403
  }
}

/** POSTs `body` to `{host}/daily{path}`, with the lease token when given. */
export async function call(host, path, body, { token, signal } = {}) {
  const headers = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(`${host}${PREFIX}${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body ?? {}),
    credentials: 'omit',
    cache: 'no-store',
    signal,
  })
  const json = await res.json().catch(() => null)
  if (!res.ok) throw new DoorError(res.status, json?.error?.code, json?.error?.reason, json?.error?.message)
  return json
}
