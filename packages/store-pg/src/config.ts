import { Config, type Option, Redacted, Schema } from 'effect'

/**
 * The variable that picks the Postgres sealed store, and what it accepts (docs/sealed-store.md).
 *
 * @example
 * databaseVariables.ERRANDS_DATABASE_URL.text
 */
export const databaseVariables = {
  ERRANDS_DATABASE_URL: { text: 'must be a postgres:// or postgresql:// address' },
} as const

const isPostgresUrl = (s: string): boolean => {
  try {
    return ['postgres:', 'postgresql:'].includes(new URL(s).protocol)
  } catch {
    return false
  }
}

/** The host the driver connects to: the `host` parameter wins over the URL's (as in libpq). */
const serverOf = (url: URL): string => url.searchParams.get('host') ?? url.hostname

/**
 * Whether a database host is this machine: a Unix socket (no host, or a directory), `localhost`,
 * 127.0.0.0/8 or ::1. Anything else is a network path someone else may sit on.
 *
 * @example
 * isLoopbackHost('127.0.0.1') // true
 * isLoopbackHost('10.0.0.5') // false
 */
export const isLoopbackHost = (host: string): boolean => {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  return (
    h === '' ||
    h.startsWith('/') ||
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
  )
}

/** The `sslmode`s that refuse a connection without TLS (`prefer`, `allow`, `disable` do not). */
const TLS_MODES = ['require', 'verify-ca', 'verify-full']

/** libpq's `sslmode` words (https://www.postgresql.org/docs/current/libpq-ssl.html); no other is taken. */
const SSL_MODES = ['disable', 'allow', 'prefer', ...TLS_MODES]

/**
 * What an `sslmode` word asks of the server's certificate, or why the URL cannot ask it: a word
 * libpq does not know (node-postgres's own `no-verify`, a typo), or `verify-ca` with no CA named.
 */
const sslModeProblem = (url: URL): string | undefined => {
  const mode = url.searchParams.get('sslmode')
  if (mode === null) return undefined
  if (!SSL_MODES.includes(mode))
    return `gives sslmode=${mode.slice(0, 40)}, which is not one of libpq's: ${SSL_MODES.join(', ')}`
  // libpq would read ~/.postgresql/root.crt; the driver has no such default and would refuse at the first connection.
  if (mode === 'verify-ca' && url.searchParams.get('sslrootcert') === null)
    return (
      "gives sslmode=verify-ca without sslrootcert: name the CA the server's certificate must be signed by " +
      '(sslrootcert=/path/to/ca.pem), or use sslmode=verify-full'
    )
  return undefined
}

/**
 * Why a Postgres URL may not be used as it is — it reaches a host off this machine without
 * asking for TLS (issue #23, L7: the sealed errands, the cluster's messages and the password
 * would cross the network in the clear) — or `undefined` when it may. Names the host only,
 * never the URL.
 *
 * @example
 * tlsProblem('postgres://u:pw@10.0.0.5/errands') // 'names 10.0.0.5, which is not this machine, without TLS: …'
 * tlsProblem('postgres://u:pw@10.0.0.5/errands?sslmode=verify-full') // undefined
 */
export const tlsProblem = (text: string): string | undefined => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return undefined // not a URL at all: isPostgresUrl says so
  }
  // The check reads a setting's first value and the driver its last: a setting given twice
  // (sslmode=verify-full&sslmode=disable, two host=) would pass here and connect in the clear there.
  const names = [...url.searchParams.keys()]
  const twice = names.find((name, i) => names.indexOf(name) !== i)
  if (twice !== undefined)
    return (
      `gives ${twice.slice(0, 40)} more than once: give each connection setting once, so what is checked is ` +
      'what connects'
    )
  const word = sslModeProblem(url)
  if (word !== undefined) return word
  const server = serverOf(url)
  if (isLoopbackHost(server)) return undefined
  const mode = url.searchParams.get('sslmode')
  const ssl = url.searchParams.get('ssl')
  // The driver lets sslmode override ssl (sslmode=disable turns ssl=true off), so sslmode decides when given.
  const asksTls = mode !== null ? TLS_MODES.includes(mode) : ssl === 'true' || ssl === '1'
  return asksTls
    ? undefined
    : `names ${server}, which is not this machine, without TLS: add sslmode=verify-full (or sslmode=require, ` +
        "sslmode=verify-ca, ssl=true) so the sealed errands, the cluster's messages and the password do not cross " +
        'the network in the clear'
}

/**
 * The URL as the driver is to be given it: `sslmode` read as libpq reads it (K2, L7). node-postgres
 * on its own treats `require` and `verify-ca` as `verify-full` — a server with a self-signed
 * certificate refused under `require` — unless told `uselibpqcompat=true`; then `require`
 * encrypts without checking the certificate (with `sslrootcert`, as `verify-ca`), `verify-ca`
 * checks it against that CA but not its name, `verify-full` checks both, as docs/sealed-store.md
 * says. Every Postgres client of the engine is built from this.
 *
 * @example
 * PgClient.layer({ url: driverUrl(url) })
 */
export const driverUrl = (url: Redacted.Redacted<string>): Redacted.Redacted<string> => {
  let parsed: URL
  try {
    parsed = new URL(Redacted.value(url))
  } catch {
    return url // not a URL: the driver says so, as it would have
  }
  if (parsed.searchParams.get('sslmode') === null) return url
  parsed.searchParams.set('uselibpqcompat', 'true')
  return Redacted.make(parsed.toString())
}

/**
 * A Postgres connection URL, redacted as soon as it is decoded: it usually holds a password.
 * A host off this machine needs TLS asked for in the URL (`tlsProblem`). The error for a bad
 * value says what is accepted and why, and never repeats the value.
 *
 * @example
 * Schema.decodeUnknownSync(DatabaseUrl)('postgres://errands:pw@db:5432/errands?sslmode=verify-full') // <redacted>
 */
export const DatabaseUrl: Schema.Schema<Redacted.Redacted<string>, string> = Schema.Redacted(
  Schema.String.pipe(
    Schema.filter(isPostgresUrl, { message: () => databaseVariables.ERRANDS_DATABASE_URL.text }),
    Schema.filter((s) => tlsProblem(s) === undefined, { message: (issue) => tlsProblem(String(issue.actual)) ?? '' }),
  ),
)

/**
 * `ERRANDS_DATABASE_URL`, decoded at the edge: `None` when unset (the file store stays), the
 * redacted URL when set, a config error naming the variable when it is not a Postgres URL.
 *
 * @example
 * const url = yield* databaseUrlConfig // Option<Redacted<string>>
 */
export const databaseUrlConfig: Config.Config<Option.Option<Redacted.Redacted<string>>> = Config.option(
  Schema.Config('ERRANDS_DATABASE_URL', DatabaseUrl),
)

/**
 * Where a database URL points, for a log line: host, port and database, never the user or password.
 *
 * @example
 * describeDatabase(Redacted.make('postgres://u:pw@db.internal:6543/errands')) // 'Postgres at db.internal:6543/errands'
 */
export const describeDatabase = (url: Redacted.Redacted<string>): string => {
  const parsed = new URL(Redacted.value(url))
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres'
  return `Postgres at ${parsed.hostname || 'localhost'}:${parsed.port || '5432'}/${database}`
}
