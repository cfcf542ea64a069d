/**
 * An errand's upstream proxy (issue #21, L7): the proxy its egress lane chains to, named when
 * the errand is opened (`X-Browser-Proxy`, `PUT /v1/session/proxy`, the `open` option) or
 * host-wide (`ERRANDS_UPSTREAM_PROXY`). Its URL may carry credentials, so it travels as a
 * `Redacted` value: printed, logged or turned into JSON it reads `<redacted>`; only the egress
 * and the sealed record ever see its text.
 *
 * @example
 * const proxy = Either.getOrThrow(parseUpstreamProxy('http://user:pass@proxy.example:3128'))
 * String(proxy) // "<redacted>"
 */
import { Either, Redacted, Schema } from 'effect'

/** An upstream proxy URL (`http://` or `https://`, credentials allowed), kept redacted. */
export type UpstreamProxy = Redacted.Redacted<string>

/**
 * A value that is no upstream proxy URL. The message names what is wrong, never the value
 * (it may hold a password).
 *
 * @example
 * new InvalidUpstreamProxy({ reason: 'scheme', message: '…' }).status // 400
 */
export class InvalidUpstreamProxy extends Schema.TaggedError<InvalidUpstreamProxy>()('InvalidUpstreamProxy', {
  reason: Schema.Literal('not-a-url', 'scheme', 'no-host', 'not-a-proxy-address', 'unsupported'),
  message: Schema.String,
}) {
  readonly status = 400
}

const invalid = (reason: InvalidUpstreamProxy['reason'], why: string) =>
  Either.left(
    new InvalidUpstreamProxy({
      reason,
      message: `The upstream proxy ${why}; give it as http://user:pass@host:port (or https://), or null for none.`,
    }),
  )

/**
 * Checks an upstream proxy URL: at most 2048 characters, `http:` or `https:`, a host, no path,
 * query or fragment. User and password (percent-encoded) are allowed; they stay secret.
 *
 * @example
 * Either.isLeft(parseUpstreamProxy('socks5://127.0.0.1:1080')) // true (reason "scheme")
 */
export const parseUpstreamProxy = (text: string): Either.Either<UpstreamProxy, InvalidUpstreamProxy> => {
  if (text.length === 0 || text.length > 2048) return invalid('not-a-url', 'must be a URL of 1 to 2048 characters')
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return invalid('not-a-url', 'is not a URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return invalid('scheme', `must be an http:// or https:// proxy (not ${url.protocol.slice(0, 16)})`)
  if (url.hostname === '') return invalid('no-host', 'names no host')
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    return invalid('not-a-proxy-address', 'is a proxy address: it takes no path, query or fragment')
  }
  return Either.right(Redacted.make(url.href.replace(/\/$/, '')))
}

/**
 * `scheme://host:port` of an upstream proxy, for a log line or a health report: never its
 * credentials.
 *
 * @example
 * describeUpstreamProxy(proxy) // "http://proxy.example:3128"
 */
export const describeUpstreamProxy = (proxy: UpstreamProxy): string => {
  const url = new URL(Redacted.value(proxy))
  return `${url.protocol}//${url.host}`
}
