/**
 * Who is calling (D2, B7): the real peer address at the raw socket, the `Host` the request names,
 * and the extension `Origin`. Headers such as `X-Forwarded-For` are never consulted, and a
 * Connection request's synthetic URL is no peer authority: only `req.socket.remoteAddress` is.
 */

/**
 * Whether a socket's remote address is loopback: `127.0.0.0/8`, `::1`, or an IPv4-mapped
 * `::ffff:127.x.y.z` (what a dual-stack server reports for an IPv4 loopback peer).
 *
 * @example
 * isLoopbackAddress('127.0.0.1') // true
 * isLoopbackAddress('::ffff:127.9.9.9') // true
 * isLoopbackAddress('192.0.2.2') // false
 */
export const isLoopbackAddress = (address: string | undefined): boolean => {
  if (address === undefined) return false
  const a = address.toLowerCase()
  if (a === '::1' || a === '0:0:0:0:0:0:0:1') return true
  const v4 = a.startsWith('::ffff:') ? a.slice('::ffff:'.length) : a
  const parts = v4.split('.')
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return false
  return parts[0] === '127'
}

/**
 * Whether the `Host` header names this server by a loopback name and its own port: `127.x.y.z`,
 * `localhost` or `[::1]`. A DNS-rebinding page reaches the port under its own host name, which
 * this refuses.
 *
 * @example
 * isLoopbackHost('127.0.0.1:7777', 7777) // true
 * isLoopbackHost('evil.example:7777', 7777) // false
 */
export const isLoopbackHost = (host: string | undefined, localPort: number | undefined): boolean => {
  if (host === undefined || host.length > 300) return false
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(host)
  if (!m) return false
  const name = m[1]!.toLowerCase()
  const port = m[2] === undefined ? 80 : Number(m[2])
  if (localPort !== undefined && port !== localPort) return false
  if (name === 'localhost') return true
  if (name.startsWith('[')) return isLoopbackAddress(name.slice(1, -1))
  return isLoopbackAddress(name)
}

/**
 * A Chrome/Edge extension id: 32 letters `a`–`p`.
 *
 * @example
 * extensionIdPattern.test('dmlklmnegbjkhpodgecphlidpippljbl') // true
 */
export const extensionIdPattern = /^[a-p]{32}$/

/**
 * The extension id of an `Origin` header when it is `chrome-extension://<id>` of an allowed id.
 *
 * @example
 * allowedExtensionOrigin('chrome-extension://dmlklmnegbjkhpodgecphlidpippljbl', ['dmlklmnegbjkhpodgecphlidpippljbl']) // the id
 * allowedExtensionOrigin('http://evil.example', ids) // undefined
 */
export const allowedExtensionOrigin = (origin: string | undefined, allowedIds: ReadonlyArray<string>): string | undefined => {
  const m = origin === undefined ? null : /^chrome-extension:\/\/([a-p]{32})$/.exec(origin)
  return m && allowedIds.includes(m[1]!) ? m[1] : undefined
}
