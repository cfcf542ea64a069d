import { Config, Option, Redacted, Schema } from 'effect'

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

/**
 * A Postgres connection URL, redacted as soon as it is decoded: it usually holds a password.
 * The error for a bad value says what is accepted and never repeats the value.
 *
 * @example
 * Schema.decodeUnknownSync(DatabaseUrl)('postgres://errands:pw@db:5432/errands') // <redacted>
 */
export const DatabaseUrl: Schema.Schema<Redacted.Redacted<string>, string> = Schema.Redacted(
  Schema.String.pipe(Schema.filter(isPostgresUrl, { message: () => databaseVariables.ERRANDS_DATABASE_URL.text })),
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
