/**
 * Who is calling (D2, B7): the real peer address at the raw socket and the extension `Origin`
 * (the `Host` is judged by `@errands/edge`'s one rule). Headers such as `X-Forwarded-For` are never consulted, and a
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
 * allowedExtensionOrigin('chrome-extension://dmlklmnegbjkhpodgecphlidpippljbl', ['dmlklmnegbjkhpodgecphlidpippljbl'])
 * // the id
 * allowedExtensionOrigin('http://evil.example', ids) // undefined
 */
export const allowedExtensionOrigin = (
  origin: string | undefined,
  allowedIds: ReadonlyArray<string>,
): string | undefined => {
  const m = origin === undefined ? null : /^chrome-extension:\/\/([a-p]{32})$/.exec(origin)
  return m && allowedIds.includes(m[1]!) ? m[1] : undefined
}
