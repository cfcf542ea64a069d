import { randomBytes } from 'node:crypto'
import { SqlClient } from '@effect/sql'
import { PgClient } from '@effect/sql-pg'
import { Cause, Effect, Exit, Layer, Redacted } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { driverUrl, PgSealedStore } from '../../packages/store-pg/src/index.ts'
import { startPostgres, type TestPostgres } from '../fixtures/postgres.ts'

/*
 * K2, L7: the sealed store's connection over TLS reads `sslmode` as libpq does (docs/sealed-store.md), against a real
 * Postgres whose certificate is self-signed and names `pg.test` only; a connection that fails says what failed.
 */

let tls: TestPostgres
let plain: TestPostgres

beforeAll(async () => {
  ;[tls, plain] = await Promise.all([startPostgres({ tls: true }), startPostgres()])
}, 60_000)

afterAll(async () => {
  await Promise.all([tls?.stop(), plain?.stop()])
}, 30_000)

const withQuery = (server: TestPostgres, query: string) => {
  const url = new URL(server.url)
  for (const [name, value] of new URLSearchParams(query)) url.searchParams.set(name, value)
  return Redacted.make(url.toString())
}

/** Opens the store with `url` and says how: its connection's TLS as the server sees it, or the store's words. */
const open = (url: Redacted.Redacted<string>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const built = yield* Effect.exit(
          Layer.build(PgSealedStore.layer({ url, key: Redacted.make(randomBytes(32)), table: 'tls_check' })),
        )
        if (Exit.isFailure(built)) return { failed: Cause.pretty(built.cause) }
        // The same URL the store's pool was given: does the server see this connection encrypted?
        const ssl = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ ssl: boolean }>`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`,
        ).pipe(Effect.provide(PgClient.layer({ url: driverUrl(url) })), Effect.orDie)
        return { encrypted: ssl[0]?.ssl }
      }),
    ),
  )

describe('sslmode means what libpq says (K2, L7)', () => {
  it(
    'require encrypts without checking the certificate; verify-ca checks it against the CA named, not its name; ' +
      'verify-full checks both',
    async () => {
      expect(await open(withQuery(tls, 'sslmode=require'))).toEqual({ encrypted: true })
      expect(await open(withQuery(tls, `sslmode=verify-ca&sslrootcert=${tls.certFile}`))).toEqual({ encrypted: true })
      // The control: with nothing asked, this server's loopback connection is plain.
      expect(await open(withQuery(tls, 'sslmode=disable'))).toEqual({ encrypted: false })
    },
  )

  it('a TLS failure says what failed and what to do, never only "SqlError"', async () => {
    const untrusted = await open(withQuery(tls, 'sslmode=verify-full'))
    expect(untrusted.failed).toContain(
      "DEPTH_ZERO_SELF_SIGNED_CERT: the server's TLS certificate is not signed by a CA this host trusts",
    )
    // Trusted, but it names pg.test, and the URL 127.0.0.1.
    const misnamed = await open(withQuery(tls, `sslmode=verify-full&sslrootcert=${tls.certFile}`))
    expect(misnamed.failed).toContain(
      "ERR_TLS_CERT_ALTNAME_INVALID: the server's TLS certificate does not name the host in the URL",
    )
    const noTls = await open(withQuery(plain, 'sslmode=require'))
    expect(noTls.failed).toContain('NO_TLS: the URL asks for TLS and the server does not offer it')
    for (const failed of [untrusted, misnamed, noTls]) expect(failed.failed).not.toContain(new URL(tls.url).password)
  })
})
